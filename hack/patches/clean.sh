#!/usr/bin/env bash
# Remove $OUTPUT (work trees, build modules, binaries). A work tree may hold
# commits or edits that were never exported to the series; refuse to delete
# those unless FORCE=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -e "$OUTPUT" ] || exit 0
unsaved=()
for tree in "$OUTPUT"/v*/kubernetes; do
  [ -d "$tree/.git" ] || continue
  # What the last import or export recorded; pristine upstream is safe too.
  recorded="$(sed -n 's/^commit //p' "$(dirname "$tree")/applied.stamp" 2>/dev/null || true)"
  upstream="$(git -C "$tree" rev-parse -q --verify "$UPSTREAM_TAG^{commit}" || true)"
  head="$(git -C "$tree" rev-parse -q --verify HEAD || true)"
  for ref in HEAD "refs/heads/$PATCH_BRANCH"; do
    c="$(git -C "$tree" rev-parse -q --verify "$ref^{commit}" || true)"
    [ "$ref" = HEAD ] || [ "$c" != "$head" ] || continue   # said already
    if [ -n "$c" ] && [ "$c" != "$recorded" ] && [ "$c" != "$upstream" ]; then
      unsaved+=("$tree: $ref ($(git -C "$tree" log -1 --format='%h %s' "$c")) was not exported")
    fi
  done
  [ -z "$(git -C "$tree" status --porcelain)" ] || unsaved+=("$tree: uncommitted changes")
done
if [ "${#unsaved[@]}" -gt 0 ] && [ "${FORCE:-}" != 1 ]; then
  {
    echo "error: refusing to delete $OUTPUT, it holds work that is not in the series:"
    printf '  - %s\n' "${unsaved[@]}"
    echo "Run 'make export-patches' to keep it, or 'make clean FORCE=1' to discard it."
  } >&2
  exit 1
fi
# A local cluster (make up) has processes and mounts under $OUTPUT/cluster:
# take it down first, so that rm never reaches through a mount.
[ ! -d "$OUTPUT/cluster" ] || "$ROOT/hack/cluster/down.sh"
log "removing $OUTPUT"
rm -rf "$OUTPUT"
