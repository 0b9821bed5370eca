#!/usr/bin/env bash
# Rebase a patch series onto a new upstream release, in one command:
#
#   hack/patches/rebase.sh X.Y.Z        (or: make rebase TO=X.Y.Z)
#
# X.Y.Z may be a pre-release, X.Y.Z-pre: a series pinned to one moves to the
# next pre-release, or to the release, the same way.
#
# Fetches the release into its own work tree, applies the series of its
# minor (patches/vX.Y) with a three-way merge, and then either
#   - stops at the first patch that conflicts, naming the patch, the files
#     and the hunks, with the git am session left in place to resolve and
#     the commands to continue; or
#   - exports the refreshed series back to patches/vX.Y (new blob ids and
#     context, same changes) and runs the unit tests and upstream's tests of
#     the touched packages against the new release (NO_TEST=1 skips them).
#
# On success it also pins the minor to the new release: it writes it to
# patches/vX.Y/UPSTREAM_VERSION, the one place hack/lib.sh reads each minor's
# release from (the default version is the pinned release of the newest
# minor pinned to a release: a series rebased onto a pre-release is not the
# default, one rebased from a pre-release onto its release may become it).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 <new upstream release X.Y.Z, or pre-release X.Y.Z-pre>" >&2; exit 2; }
export K8S_VERSION="${1#v}"
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

start=$SECONDS
log "rebasing $SERIES_DIR onto upstream v$K8S_VERSION"
if ! KEEP_FAILED_AM=1 "$ROOT/hack/patches/import-patches.sh"; then
  if tree_busy; then
    log "conflict: the hunks git could not merge:"
    tree_git diff --diff-filter=U | sed 's/^/  /' | head -n 200 >&2 || true
  fi
  exit 1
fi
"$ROOT/hack/patches/export-patches.sh"
echo "$K8S_VERSION" > "$SERIES_DIR/UPSTREAM_VERSION"
log "series rebased onto v$K8S_VERSION in $((SECONDS - start))s; changes to the patch files:"
git -C "$ROOT" diff --stat -- "$SERIES_DIR" >&2 2>/dev/null || true
if [ "${NO_TEST:-}" = 1 ]; then
  log "NO_TEST=1: tests skipped; run 'make test K8S_VERSION=$K8S_VERSION'"
  exit 0
fi
(cd "$ROOT" && go test -count=1 ./kubelet/...)
"$ROOT/hack/patches/test-upstream.sh"
log "rebase onto v$K8S_VERSION done and tested in $((SECONDS - start))s"
