#!/usr/bin/env bash
# make test-patch-roundtrip: the series of $K8S_VERSION's minor survives the
# patch workflow byte for byte. It imports patches/vX.Y into a throwaway clone
# of the upstream work tree (import-patches.sh, as a developer would), exports
# it again (export-patches.sh) into a throwaway folder, and compares the two
# folders. A difference means that editing any patch through the work tree
# would also rewrite patches nobody touched: the check prints the diff. It
# also fails when a Go file the series adds or changes is not gofmt'ed, and
# when a patch changes a line that an earlier patch added
# (check-series-lines.sh): each patch is one concern in its final form.
#
# The work tree itself ($TREE, with its branch and stamp) is left alone; the
# clone shares its objects (git clone --shared) and goes at the end.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -d "$TREE/.git" ] || "$ROOT/hack/patches/fetch-upstream.sh"
git -C "$TREE" rev-parse -q --verify "refs/tags/$UPSTREAM_TAG" > /dev/null ||
  die "no tag $UPSTREAM_TAG in $TREE: run 'make fetch-upstream'"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git -c advice.detachedHead=false clone -q --shared --branch "$UPSTREAM_TAG" "$TREE" "$tmp/tree"
mkdir "$tmp/series"
# What the export does not write (the pinned release) is not its to check.
find "$SERIES_DIR" -maxdepth 1 -type f ! -name '*.patch' ! -name series -exec cp {} "$tmp/series/" \;

log "importing patches/v$K8S_MINOR into a throwaway clone of the work tree"
PATCH_TREE="$tmp/tree" "$ROOT/hack/patches/import-patches.sh" > "$tmp/import.log" 2>&1 ||
  { cat "$tmp/import.log" >&2; die "the series of v$K8S_MINOR does not import onto v$K8S_VERSION"; }
log "exporting it again"
PATCH_TREE="$tmp/tree" SERIES_DIR="$tmp/series" "$ROOT/hack/patches/export-patches.sh" > "$tmp/export.log" 2>&1 ||
  { cat "$tmp/export.log" >&2; die "the imported series does not export"; }

# The Go files the series adds or changes are as gofmt writes them.
unformatted="$(cd "$tmp/tree" && git diff --name-only --diff-filter=AM "$UPSTREAM_TAG" HEAD -- '*.go' | xargs -r gofmt -l)"
[ -z "$unformatted" ] ||
  die "patches/v$K8S_MINOR leaves Go files gofmt would change: $(echo "$unformatted" | paste -sd' ') (gofmt -w them in the work tree, commit as a fixup)"

# No patch rewrites another's lines.
"$ROOT/hack/patches/check-series-lines.sh" "$tmp/tree" "$UPSTREAM_TAG" > "$tmp/lines.log" ||
  die "patches/v$K8S_MINOR: a patch changes lines an earlier patch added (above)"

if ! diff -r "$SERIES_DIR" "$tmp/series" > "$tmp/diff"; then
  cat "$tmp/diff" >&2
  die "patches/v$K8S_MINOR does not round-trip: import then export changes the files above (export them from the work tree: make export-patches)"
fi
log "patches/v$K8S_MINOR round-trips: $(grep -cv '^#' "$SERIES_FILE") patches, import then export gives them back byte for byte; $(cat "$tmp/lines.log")"
