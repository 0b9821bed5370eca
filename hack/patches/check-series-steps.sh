#!/usr/bin/env bash
# Every patch of the series builds, vets and passes its own tests alone: the
# tree at each commit of the work tree's branch (upstream plus the patches
# up to it) vets the packages the series touches (go vet builds them and
# their tests), and the fork's tests present at that commit pass. A reviewer
# can stop reading after any patch and hold a working kubelet.
#
# It checks out each commit of $PATCH_BRANCH in the work tree in turn
# (refusing a work tree with uncommitted changes) and goes back to the
# branch at the end, also when a step fails. Slow (a build per patch): run by
# make verify-versions, not by make test.
#
# Prints one line per patch; exits 1 when one fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -d "$TREE/.git" ] || die "no work tree at $TREE: run make import-patches"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
  die "the work tree $TREE has uncommitted changes: commit or export them first"
head="$(git -C "$TREE" symbolic-ref -q --short HEAD || git -C "$TREE" rev-parse HEAD)"
trap 'git -C "$TREE" checkout -q "$head"' EXIT

# The packages the whole series touches, each vetted at every step (a patch
# that breaks a package it does not touch would show there too).
mapfile -t pkgs < <(git -C "$TREE" diff --name-only "$UPSTREAM_TAG..$PATCH_BRANCH" -- '*.go' | go_packages_of)

failed=0 n=0
for c in $(git -C "$TREE" rev-list --reverse "$UPSTREAM_TAG..$PATCH_BRANCH"); do
  n=$((n + 1))
  git -C "$TREE" checkout -q "$c"
  subject="$(git -C "$TREE" log -1 --format=%s)"
  # Packages that do not exist yet at this commit are left out.
  present=()
  for p in "${pkgs[@]}"; do
    [ -d "$TREE/${p#k8s.io/kubernetes/}" ] && ls "$TREE/${p#k8s.io/kubernetes/}"/*.go > /dev/null 2>&1 && present+=("$p")
  done
  # The fork's tests so far, and the packages that hold them: only those
  # are tested (fork_test_files says why).
  added="$(fork_test_files "$TREE" "$UPSTREAM_TAG" HEAD)"
  names="$(cd "$TREE" && for f in $added; do sed -n 's/^func \(\(Test\|Fuzz\)[A-Za-z0-9_]*\)(.*/\1/p' "$f"; done | paste -sd'|')"
  mapfile -t tested < <(printf '%s\n' "$added" | go_packages_of)
  start=$SECONDS
  out="$(mktemp)"
  if ! (cd "$BUILD_DIR" && GOFLAGS=-mod=mod go vet "${present[@]}") > "$out" 2>&1; then
    echo "$n. FAIL (vet) $subject" >&2
    head -n 30 "$out" >&2
    failed=1
  elif [ -n "$names" ] && ! (cd "$BUILD_DIR" && GOFLAGS=-mod=mod go test -count=1 -run "^($names)\$" "${tested[@]}") > "$out" 2>&1; then
    echo "$n. FAIL (tests) $subject" >&2
    grep -v '^ok\|no test files' "$out" | head -n 40 >&2
    failed=1
  else
    echo "$n. ok $subject ($(echo "$names" | tr '|' '\n' | grep -c . || true) fork tests, $((SECONDS - start))s)"
  fi
  rm -f "$out"
done
[ "$failed" = 0 ] || die "a patch of patches/v$K8S_MINOR does not build, vet or pass its tests alone (above)"
log "each of the $n patches of patches/v$K8S_MINOR builds, vets and passes its tests alone"
