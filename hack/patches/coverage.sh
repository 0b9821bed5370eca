#!/usr/bin/env bash
# Unit-test coverage of the fork, per package, written to
# docs/results/coverage-v<release>.md (record_result) by the command that
# measured it, so that the KEP's Test Plan cites a file and no figure is
# copied by hand (make coverage).
#
#   1. the fork's own packages: go test -cover ./kubelet/... of this
#      repository (what make test-unit runs, less hack/images);
#   2. the patched upstream packages of the work tree: the folders of the
#      .go files the series changes, plus $SERIES_DIR/test-packages, less
#      the packages $SERIES_DIR/test-exclusions drops, each test it names
#      skipped (the packages and exclusions of make test-upstream), with the
#      SidecarContainerOrdering gate at its default (on);
#   3. of those, the statements of the files the fork adds to upstream's
#      tree (the Fork-File trailers: kubernetes/ here), from the same runs'
#      profiles: how much of the fork's own code upstream's and the fork's
#      tests in that package reach.
#
# Imports the series first (hack/patches/import-patches.sh: a no-op when
# the tree is up to date; it fetches upstream if needed). Idempotent: a
# second run writes the same file but for the date and the times; its
# profiles go to a temporary folder that is removed on exit. A failing test
# fails the command, and nothing is recorded.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

"$ROOT/hack/patches/import-patches.sh"
[ -d "$TREE/.git" ] || die "no work tree at $TREE"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# lines FILE: the non-comment, non-blank lines of FILE.
lines() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^[[:space:]]*$' || true; }

# The upstream packages, as test-upstream.sh finds them.
changed_dirs="$(tree_git diff --name-only "$UPSTREAM_TAG..HEAD" -- '*.go' | xargs -r -n1 dirname | sort -u)"
mapfile -t pkgs < <(
  for d in $changed_dirs; do
    case "/$d/" in */testdata/* | */_* | */.*) continue ;; esac
    compgen -G "$TREE/$d/*.go" > /dev/null || continue
    echo "k8s.io/kubernetes/$d"
  done
  [ ! -f "$SERIES_DIR/test-packages" ] || lines "$SERIES_DIR/test-packages"
)
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | grep -v '^$' | sort -u)

# Exclusions: a package dropped whole, or tests skipped (anchored as
# test-upstream.sh anchors them).
declare -A drop=() skip=()
if [ -f "$SERIES_DIR/test-exclusions" ]; then
  while read -r pkg name _; do
    [ -n "${pkg:-}" ] || continue
    if [ -z "${name:-}" ]; then
      drop[$pkg]=1
    else
      re="$(printf '%s' "$name" | sed -e 's/[][\\.^$*+?(){}|]/\\&/g' -e 's|/|$/^|g')"
      depth="$(printf '%s' "$name" | tr -cd / | wc -c)"
      skip[$pkg]="${skip[$pkg]:-}$depth ^$re\$"$'\n'
    fi
  done < <(lines "$SERIES_DIR/test-exclusions")
fi
# skip_regexp PKG: the package's exclusions as one -skip, shallow names
# first (go test takes the first alternative that matches a name so far).
skip_regexp() { printf '%s' "${skip[$1]}" | sort -n -s -k1,1 | cut -d' ' -f2- | paste -sd'|'; }

# cover_lines LOG: go test's per-package lines, as "<package> <percent> <time>".
# "ok  <pkg>  1.2s  coverage: 45.6% of statements"; a package without test
# files says "<pkg>  coverage: 0.0% of statements" (or "[no test files]").
cover_lines() {
  awk '
    $1 == "ok" && /coverage: \[no statements\]/ { print $2, "no-statements", $3; next }
    $1 == "ok" && /coverage:/ { for (i = 1; i <= NF; i++) if ($i == "coverage:") c = $(i + 1); print $2, c, $3; next }
    $1 == "?" { print $2, "no-tests", "-"; next }
    $1 != "ok" && $1 != "FAIL" && $2 == "coverage:" { print $1, "no-tests", "-" }
  ' "$1"
}

# 1. The fork's packages.
log "the fork's packages: go test -cover ./kubelet/..."
start=$SECONDS
(cd "$ROOT" && go test -count=1 -cover ./kubelet/...) 2>&1 | tee "$tmp/own.log" >&2
own_secs=$((SECONDS - start))

# 2. The patched upstream packages, each with its profile.
cd "$BUILD_DIR"
export GOFLAGS=-mod=mod
start=$SECONDS
: > "$tmp/upstream.log"
n=0
for p in "${pkgs[@]}"; do
  [ -z "${drop[$p]:-}" ] || { log "skipping $p (dropped by $SERIES_DIR/test-exclusions)"; continue; }
  n=$((n + 1))
  args=(-count=1 -cover -coverprofile="$tmp/profile.$n")
  [ -z "${skip[$p]:-}" ] || args+=(-skip "$(skip_regexp "$p")")
  log "go test ${args[*]/#-coverprofile=*/-coverprofile=...} $p"
  go test "${args[@]}" "$p" 2>&1 | tee -a "$tmp/upstream.log" >&2
done
upstream_secs=$((SECONDS - start))

# 3. The fork's files in upstream's tree: statements and those covered,
# per file, from the profiles (mode: set; a block is "file:a.b,c.d stmts count").
mapfile -t fork_files < <(
  for p in $(series_patches); do fork_files_of_patch "$SERIES_DIR/$p"; done |
    grep '\.go$' | grep -v '_test\.go$' | sort -u
)
cat "$tmp"/profile.* 2> /dev/null | grep -v '^mode:' |
  awk '{ split($1, a, ":"); k = $1; if (!(k in seen) || $3 > 0) seen[k] = ($3 > 0); stmts[k] = $2; file[k] = a[1] }
       END { for (k in seen) { t[file[k]] += stmts[k]; if (seen[k]) c[file[k]] += stmts[k] } for (f in t) print f, t[f], c[f] + 0 }' |
  sort > "$tmp/files"

own_table="$(cover_lines "$tmp/own.log")"
up_table="$(cover_lines "$tmp/upstream.log")"
[ -n "$up_table" ] || die "go test printed no coverage lines for the upstream packages"

fork_total=0 fork_covered=0
fork_rows=""
for f in "${fork_files[@]}"; do
  read -r _ t c < <(grep -F "k8s.io/kubernetes/$f " "$tmp/files" || echo "- 0 0")
  if [ "$t" = 0 ]; then
    fork_rows+="| [\`$f\`](../../kubernetes/$f) | no profile (not in a package with tests) | |"$'\n'
    continue
  fi
  fork_total=$((fork_total + t)) fork_covered=$((fork_covered + c))
  fork_rows+="$(awk -v f="$f" -v t="$t" -v c="$c" 'BEGIN { printf "| [`%s`](../../kubernetes/%s) | %d | %.1f%% |", f, f, t, 100 * c / t }')"$'\n'
done
fork_pct="$(awk -v t="$fork_total" -v c="$fork_covered" 'BEGIN { if (t) printf "%.1f%%", 100 * c / t; else printf "n/a" }')"

table() {
  echo "| package | coverage of statements | time |"
  echo "| --- | ---: | ---: |"
  while read -r pkg pct secs; do
    [ -n "$pkg" ] || continue
    [ "$pct" != no-tests ] || pct="no test files"
    [ "$pct" != no-statements ] || pct="no statements"
    printf '| `%s` | %s | %s |\n' "$pkg" "$pct" "$secs"
  done
}

version="v$K8S_VERSION-sidecar-kubelet+$(build_hash | cut -c1-12)"
own_summary="$(awk '$2 ~ /%$/ { printf "%s%s %s", sep, $1, $2; sep = ", " }' <<< "$own_table" | sed 's|github.com/sidecar-kubelet/sidecar-kubelet/||g')"
up_summary="$(awk '$2 ~ /%$/ { printf "%s%s %s", sep, $1, $2; sep = ", " }' <<< "$up_table" | sed 's|k8s.io/kubernetes/||g')"
{
  echo "\`make coverage\` of $(date -u '+%Y-%m-%d %H:%M') UTC ($(go env GOVERSION), $(nproc) cores) on $version, gate on (its default): the fork's packages: $own_summary; the patched upstream packages: $up_summary; the fork's files in upstream's tree: $fork_pct of $fork_total statements."
  echo
  echo "Written by [\`hack/patches/coverage.sh\`](../../hack/patches/coverage.sh); \`go test -count=1 -cover\`, each package's own tests only (no \`-coverpkg\`), so a package's figure counts the statements its own tests reach."
  echo
  echo "### The fork's packages (this repository, \`./kubelet/...\`; ${own_secs}s)"
  echo
  table <<< "$own_table"
  echo
  echo "### The patched upstream packages (the work tree of v$K8S_VERSION with [\`patches/v$K8S_MINOR\`](../../patches/v$K8S_MINOR); ${upstream_secs}s)"
  echo
  echo "The packages whose \`.go\` files the series changes, as \`make test-upstream\` tests them (its exclusions: [\`test-exclusions\`](../../patches/v$K8S_MINOR/test-exclusions)); a package's figure is upstream's code and the fork's together."
  echo
  table <<< "$up_table"
  echo
  echo "### The files the fork adds to upstream's tree"
  echo
  echo "Statements of each file, and the share the tests of its package reach (from the same runs' profiles)."
  echo
  echo "| file | statements | covered |"
  echo "| --- | ---: | ---: |"
  printf '%s' "$fork_rows"
  printf '| all | %d | %s |\n' "$fork_total" "$fork_pct"
} | record_result "coverage-v$K8S_VERSION" "make coverage"
log "wrote docs/results/coverage-v$K8S_VERSION.md"

# The KEP's Test Plan (and the termination fix's Tests) cite the default
# minor's file in a block this command writes, since a release written by
# hand in prose goes stale at the next rebase (hack/tools/pinned).
if [ "$K8S_MINOR" = "$(default_minor)" ]; then
  # Each document's block: the run, its file, and the rows of the fork's
  # files that the document is about (README.md: all; termination-fix.md:
  # those of the termination).
  # Two blocks, one rebuild of the build notes, after the last
  # (write_doc_block).
  export DOC_NOTES_LATER=1
  for doc in docs/kep/README.md:. docs/kep/termination-fix.md:termination; do
    pattern="${doc#*:}" doc="${doc%%:*}"
    if [ ! -f "$ROOT/$doc" ] || ! doc_has_block "$doc" coverage; then continue; fi
    {
      printf -- '[docs/results/coverage-v%s.md](../results/coverage-v%s.md), written by `make coverage` of %s UTC on `%s`: the fork'"'"'s files in upstream'"'"'s tree %s of %s statements; per package: %s; %s.\n' \
        "$K8S_VERSION" "$K8S_VERSION" "$(date -u '+%Y-%m-%d %H:%M')" "$version" "$fork_pct" "$fork_total" "$own_summary" "$up_summary"
      if [ "$pattern" != . ]; then
        echo
        echo "| file | statements | covered |"
        echo "| --- | ---: | ---: |"
        # (docs/kep/ is as deep as docs/results/: the rows' links hold.)
        printf '%s' "$fork_rows" | grep -- "$pattern" || true
      fi
    } | write_doc_block "$doc" coverage
    log "wrote the coverage block of $doc"
  done
  build_notes > /dev/null
fi
