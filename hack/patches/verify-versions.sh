#!/usr/bin/env bash
# Check every supported minor: for each series folder under patches/ (its
# pinned release in patches/vX.Y/UPSTREAM_VERSION), build the patched
# kubelet and run upstream's unit tests of the touched packages with the gate
# on and off (hack/patches/test-upstream.sh, which includes the fork's own tests in
# those packages), then run the fork's tests alone, verbosely, to count them,
# then that every patch alone builds, vets and passes its tests
# (check-series-steps.sh; VERIFY_STEPS=0 skips it), and the unit tests of
# kubelet/ in the release's build module, i.e. against
# the release's own k8s.io/* and third-party versions (make test-unit runs
# them against this repository's go.mod, the newest minor's).
# The table also shows the latest whole-suite `make test-e2e` on a local
# cluster of each release, when it ran the kubelet this builds (that run is
# not repeated here: it needs the local cluster).
# Prints one summary line per version, with the time each step took, and
# keeps it in _output/verify-versions.txt. When every supported minor was
# checked, it also writes docs/results/verify-versions.md (the table of
# supported versions, and its summary in the README's results table):
# those figures are never edited by hand.
#
# Slow (a cold kubelet build per version): not part of `make test`.
#
# Series pinned to an upstream pre-release (X.Y.Z-pre) are checked like the
# others; the table says which series are released, which is pinned to a
# pre-release, and which is the default.
#
# Env: VERSIONS="X.Y X.Y.Z X.Y.Z-pre ..." checks these minors (their pins) or releases instead of every minor.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

if [ -n "${VERSIONS:-}" ]; then
  read -r -a versions <<<"$VERSIONS"
else
  read -r -a versions <<<"$(supported_minors | sort -rV | tr '\n' ' ')"
fi
[ "${#versions[@]}" -gt 0 ] || die "no series folders under $PATCHES_DIR"

# The release an unset K8S_VERSION resolves to, named in the table.
default_release="$(K8S_VERSION='' "$ROOT/hack/patches/k8s-version.sh")"
summary_file="$OUTPUT/verify-versions.txt"
mkdir -p "$OUTPUT"
declare -a summary=() rows=()
failed=0
for v in "${versions[@]}"; do
  release="$(K8S_VERSION="$v" "$ROOT/hack/patches/k8s-version.sh")"
  log "=== v$release"
  build_s="-" upstream_s="-" fork="-" unit="-" result=PASS lines="-" steps="-"
  start=$SECONDS
  if K8S_VERSION="$release" "$ROOT/hack/patches/build-kubelet.sh"; then
    build_s=$((SECONDS - start))
    tree="$OUTPUT/v$release/kubernetes"
    # Lines of upstream's own files the series changes, apart from the
    # lines of the files it adds (non-test code both).
    lines="$(git -C "$tree" diff --shortstat --diff-filter=M "$UPSTREAM_TAG..$PATCH_BRANCH" -- . ':(exclude)*_test.go' |
      awk '{print $4 "+/" $6 "-"}'), new files $(git -C "$tree" diff --numstat --diff-filter=A "$UPSTREAM_TAG..$PATCH_BRANCH" -- . ':(exclude)*_test.go' |
      awk '{n += $1} END {print n + 0}') lines"
    start=$SECONDS
    if K8S_VERSION="$release" "$ROOT/hack/patches/test-upstream.sh"; then
      upstream_s=$((SECONDS - start))
    else
      upstream_s="$((SECONDS - start)) FAIL"
      result=FAIL
    fi
    # The fork's own tests: the Test functions of the test files the series
    # adds, run verbosely to count them (subtests included).
    # Only their packages are tested (fork_test_files says why).
    added="$(fork_test_files "$tree" "$UPSTREAM_TAG" "$PATCH_BRANCH")"
    names="$(cd "$tree" && for f in $added; do sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*/\1/p' "$f"; done | paste -sd'|')"
    pkgs="$(printf '%s\n' "$added" | go_packages_of)"
    if [ -n "$names" ]; then
      out="$(mktemp)"
      # shellcheck disable=SC2086  # pkgs is a list
      if (cd "$OUTPUT/v$release" && GOFLAGS=-mod=mod go test -count=1 -v -run "^($names)\$" $pkgs) >"$out" 2>&1; then
        fork="$(grep -c '^=== RUN   Test[^/]*$' "$out") tests, $(grep -c -- '--- PASS' "$out") passed (subtests included)"
      else
        fork="FAIL: $(grep -- '--- FAIL' "$out" | head -n 5 | paste -sd' ')"
        result=FAIL
        tail -n 50 "$out" >&2
      fi
      rm -f "$out"
    fi
    if [ "${VERIFY_STEPS:-1}" != 0 ]; then
      start=$SECONDS
      if K8S_VERSION="$release" "$ROOT/hack/patches/check-series-steps.sh" >&2; then
        steps="each builds alone, $((SECONDS - start))s"
      else
        steps="FAIL"
        result=FAIL
      fi
    fi
    if (cd "$OUTPUT/v$release" && GOFLAGS=-mod=mod go test -count=1 "$OWN_MODULE/kubelet/...") >&2; then
      unit=PASS
    else
      unit=FAIL
      result=FAIL
    fi
  else
    build_s="$((SECONDS - start)) FAIL"
    result=FAIL
  fi
  [ "$result" = PASS ] || failed=1
  minor="$(echo "$release" | cut -d. -f1,2)"
  patches_n="$(grep -cv '^[[:space:]]*\(#\|$\)' "$PATCHES_DIR/v$minor/series")"
  # Released or not: a series pinned to a pre-release is supported, never
  # the default (hack/lib.sh).
  kind=release
  ! is_prerelease "$release" || kind=pre-release
  [ "$release" != "$default_release" ] || kind="release, the default"
  # The staging modules the module proxy does not serve at a pre-release
  # (hack/patches/fetch-upstream.sh pinned them to the newest version below
  # it) that the kubelet links.
  versions_file="$OUTPUT/v$release/staging-versions"
  if [ -s "$versions_file" ] && [ -x "$OUTPUT/v$release/bin/kubelet" ]; then
    linked="$(go version -m "$OUTPUT/v$release/bin/kubelet" | awk '$1 == "=>" { print $2, $3 }')"
    substitutes="$(awk -v want="v0.${release#*.}" '$2 != want { print $1, $2 }' "$versions_file" |
      grep -Fxf - <(printf '%s\n' "$linked") | paste -sd, | sed 's/,/, /g' || true)"
    [ -z "$substitutes" ] || kind="$kind; links $substitutes (none at v0.${release#*.})"
  fi
  # The e2e suite on a local cluster of this release: the latest whole-suite
  # make test-e2e (hack/cluster/test-e2e.sh records it), if it ran the
  # kubelet just built; a run of an earlier series does not count.
  e2e="not run on this series"
  if [ -s "$OUTPUT/v$release/e2e-result" ] && [ -x "$OUTPUT/v$release/bin/kubelet" ]; then
    IFS=$'\t' read -r e2e_kubelet e2e_when e2e_counts < "$OUTPUT/v$release/e2e-result"
    if [ "$e2e_kubelet" = "$("$OUTPUT/v$release/bin/kubelet" --version | cut -d' ' -f2)" ]; then
      e2e="$e2e_counts ($e2e_when)"
    fi
  fi
  rows+=("| $minor | v$release | $kind | [\`patches/v$minor\`](../../patches/v$minor) | $patches_n | $steps | $lines | ${build_s}s | $result, ${upstream_s}s | $fork | $e2e |")
  summary+=("$(printf 'v%-8s (%s) %s  kubelet build %ss, upstream tests (gate on+off) %ss, fork tests: %s, patches: %s, kubelet/ unit tests on the release'"'"'s modules: %s; non-test lines: upstream files %s; e2e: %s' \
    "$release" "$kind" "$result" "$build_s" "$upstream_s" "$fork" "$steps" "$unit" "$lines" "$e2e")")
done

{
  echo "verify-versions $(date -u +%FT%TZ) ($(go env GOVERSION), $(nproc) cores):"
  printf '  %s\n' "${summary[@]}"
} | tee "$summary_file"

if [ -z "${VERSIONS:-}" ]; then
  {
    verdicts=""
    for line in "${summary[@]}"; do
      verdicts+="${verdicts:+, }$(awk '{print $1}' <<< "$line") $(grep -oE '\b(PASS|FAIL)\b' <<< "$line" | head -n1)"
    done
    echo "\`make verify-versions\` of $(date -u '+%Y-%m-%d %H:%M UTC') ($(go env GOVERSION), $(nproc) cores; times with the Go caches as they were): $verdicts."
    echo
    echo "| minor | pinned release | upstream's | series | patches | patch by patch | non-test lines: in upstream's files, in new files | kubelet build | upstream tests, gate on + off | the fork's tests | e2e suite on a local cluster (latest \`make test-e2e K8S_VERSION=X.Y\`) |"
    echo "| --- | --- | --- | --- | ---: | --- | --- | ---: | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
  } | record_result verify-versions "make verify-versions"
  log "wrote docs/results/verify-versions.md, the table of supported versions"
fi
exit "$failed"
