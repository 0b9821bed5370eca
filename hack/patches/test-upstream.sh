#!/usr/bin/env bash
# Run upstream's own unit tests, unedited, of every upstream Go package the
# series touches, on the patched work tree (run import-patches.sh first).
# Twice: with the SidecarContainerOrdering gate at its default (on), and
# linked with it off. -ldflags only changes the link, so the second run
# reuses the compiled packages.
#
# The packages are the folders of the .go files the series changes, plus
# those listed in $SERIES_DIR/test-packages (optional, one per line).
#
# $SERIES_DIR/test-exclusions (optional) lists upstream tests to skip, each
# with the evidence for why, printed before every run:
#
#   <package> <TestName>[/<subtest>]  # evidence: ...
#   <package>                         # evidence: ...   (drops the package)
#
# Env: PKGS="pkg ..." tests these packages instead; GATE=on|off|both
# (default both).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

GATE="${GATE:-both}"
case "$GATE" in
  on) modes=(on) ;;
  off) modes=(off) ;;
  both) modes=(on off) ;;
  *) die "GATE must be on, off or both, not '$GATE'" ;;
esac
[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make import-patches' first"

# lines FILE: the non-comment, non-blank lines of FILE.
lines() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^[[:space:]]*$' || true; }

if [ -n "${PKGS:-}" ]; then
  read -r -a pkgs <<<"$PKGS"
else
  changed_dirs="$(tree_git diff --name-only "$UPSTREAM_TAG..HEAD" -- '*.go' | xargs -r -n1 dirname | sort -u)"
  listed="$(
    for d in $changed_dirs; do
      # Deleted packages and testdata are nothing go test can run.
      case "/$d/" in */testdata/* | */_* | */.*) continue ;; esac
      compgen -G "$TREE/$d/*.go" >/dev/null || continue
      echo "k8s.io/kubernetes/$d"
    done
    [ ! -f "$SERIES_DIR/test-packages" ] || lines "$SERIES_DIR/test-packages"
  )"
  read -r -a pkgs <<<"$(printf '%s\n' "$listed" | sort -u | tr '\n' ' ')"
fi

# Exclusions: skip[pkg] holds "<depth> <regexp>" lines for -skip; drop[pkg]
# drops the package.
declare -A skip=() drop=()
declare -a excluded=()
if [ -f "$SERIES_DIR/test-exclusions" ]; then
  while IFS= read -r line; do
    body="${line%%#*}"
    read -r pkg name extra <<<"$body" || true
    [ -n "${pkg:-}" ] || continue
    [ -z "${extra:-}" ] || die "test-exclusions: want '<package> [<TestName>]  # evidence: ...', got: $line"
    [[ "$line" == *"#"*[![:space:]#]* ]] || die "test-exclusions: no evidence comment for '$pkg ${name:-}': every exclusion must say why"
    excluded+=("$(printf '%-8s %s %s\n        %s' skip "$pkg" "${name:-(whole package)}" "#${line#*#}")")
    if [ -z "${name:-}" ]; then
      drop[$pkg]=1
      continue
    fi
    # Anchor every level of the name; go test splits -skip at unbracketed
    # "/" into levels and at "|" into alternatives, so one regexp carries
    # all of a package's exclusions.
    re="$(printf '%s' "$name" | sed -e 's/[][\\.^$*+?(){}|]/\\&/g' -e 's|/|$/^|g')"
    # Shallow names go first: go test takes the first alternative that
    # matches a test's name so far, and a deeper one only matches it partly.
    depth="$(printf '%s' "$name" | tr -cd / | wc -c)"
    skip[$pkg]="${skip[$pkg]:-}$depth ^$re\$"$'\n'
  done <"$SERIES_DIR/test-exclusions"
fi
skip_regexp() { printf '%s' "${skip[$1]}" | sort -n -s -k1,1 | cut -d' ' -f2- | paste -sd'|'; }

if [ "${#excluded[@]}" -gt 0 ]; then
  log "excluded upstream tests (from $SERIES_DIR/test-exclusions):"
  printf '  %s\n' "${excluded[@]}" >&2
  for p in "${!skip[@]}" "${!drop[@]}"; do
    [[ " ${pkgs[*]-} " == *" $p "* ]] || log "warning: excluded package $p is not in the package list (stale exclusion?)"
  done
fi

plain=()   # packages without exclusions: one go test run for them all
special=() # packages with exclusions: a go test run each, for its -skip
for p in ${pkgs[@]+"${pkgs[@]}"}; do
  if [ -n "${drop[$p]:-}" ]; then continue
  elif [ -n "${skip[$p]:-}" ]; then special+=("$p")
  else plain+=("$p")
  fi
done
total=$((${#plain[@]} + ${#special[@]}))
if [ "$total" -eq 0 ]; then
  log "no upstream packages to test (the series changes no .go files)"
  exit 0
fi

cd "$BUILD_DIR"
export GOFLAGS=-mod=mod
declare -a summary=()
failed=0
for mode in "${modes[@]}"; do
  flags=(-count=1)
  [ "$mode" = on ] || flags+=(-ldflags=-X=k8s.io/kubernetes/pkg/features.sidecarContainerOrderingDefault=false)
  log "upstream unit tests, SidecarContainerOrdering gate $mode: $total package(s)"
  start=$SECONDS
  rc=0
  if [ "${#plain[@]}" -gt 0 ]; then
    go test "${flags[@]}" "${plain[@]}" || rc=1
  fi
  for p in ${special[@]+"${special[@]}"}; do
    log "go test ${flags[*]} -skip '$(skip_regexp "$p")' $p"
    go test "${flags[@]}" -skip "$(skip_regexp "$p")" "$p" || rc=1
  done
  result=PASS
  [ "$rc" = 0 ] || { result=FAIL; failed=1; }
  summary+=("$(printf 'gate %-3s %s  %d package(s), %d exclusion(s), %ds' \
    "$mode" "$result" "$total" "${#excluded[@]}" $((SECONDS - start)))")
done

echo
echo "upstream unit tests on the patched tree (K8S_VERSION=$K8S_VERSION):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
