#!/usr/bin/env bash
# make format-patches: the whole series of $K8S_VERSION's minor as git
# format-patch writes it, the files each patch adds included, one file per
# patch, numbered, in OUT (default _output/v<release>/format-patches): for a
# KEP prototype, or anyone who wants the series as patches alone. It imports
# the series first (import-patches.sh), so it gives the series as
# patches/vX.Y and kubernetes/ have it, plus any unexported work of the tree.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

out="${OUT:-$BUILD_DIR/format-patches}"
"$ROOT/hack/patches/import-patches.sh"
rm -rf "$out"
mkdir -p "$out"
tree_git -c diff.noprefix=false -c diff.renames=true -c format.coverLetter=false \
  format-patch --quiet --zero-commit --no-signature --full-index --no-notes -o "$out" "$UPSTREAM_TAG..HEAD"
log "wrote $(find "$out" -name '*.patch' | wc -l) patch(es) of v$K8S_VERSION, files included, to ${out#"$ROOT"/}"
