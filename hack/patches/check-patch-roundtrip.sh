#!/usr/bin/env bash
# make test-patch-roundtrip: the series of $K8S_VERSION's minor survives the
# patch workflow byte for byte, the fork's files (kubernetes/ and
# patches/vX.Y/files) with it. It imports patches/vX.Y into a throwaway clone
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

# The patches change upstream's files only: what the fork adds is a file of
# the repository (Fork-File trailers; hack/lib.sh).
creators="$(grep -l '^new file mode' "$SERIES_DIR"/*.patch 2> /dev/null || true)"
[ -z "$creators" ] ||
  die "patches/v$K8S_MINOR: $(echo "$creators" | xargs -n1 basename | paste -sd' ') create files; the fork's files belong in kubernetes/ (or patches/v$K8S_MINOR/files), named by Fork-File trailers: export the series again (make export-patches)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The export writes the shared files too: into a copy, compared below.
cp -r "$FORK_FILES_DIR" "$tmp/kubernetes" 2> /dev/null || mkdir "$tmp/kubernetes"
git -c advice.detachedHead=false clone -q --shared --branch "$UPSTREAM_TAG" "$TREE" "$tmp/tree"
mkdir "$tmp/series"
# What the export does not write (the pinned release) is not its to check.
find "$SERIES_DIR" -maxdepth 1 -type f ! -name '*.patch' ! -name series -exec cp {} "$tmp/series/" \;

log "importing patches/v$K8S_MINOR into a throwaway clone of the work tree"
PATCH_TREE="$tmp/tree" "$ROOT/hack/patches/import-patches.sh" > "$tmp/import.log" 2>&1 ||
  { cat "$tmp/import.log" >&2; die "the series of v$K8S_MINOR does not import onto v$K8S_VERSION"; }
log "exporting it again"
PATCH_TREE="$tmp/tree" SERIES_DIR="$tmp/series" FORK_FILES_DIR="$tmp/kubernetes" "$ROOT/hack/patches/export-patches.sh" > "$tmp/export.log" 2>&1 ||
  { cat "$tmp/export.log" >&2; die "the imported series does not export"; }

# The Go files the series adds or changes are as gofmt writes them.
unformatted="$(cd "$tmp/tree" && git diff --name-only --diff-filter=AM "$UPSTREAM_TAG" HEAD -- '*.go' | xargs -r gofmt -l)"
[ -z "$unformatted" ] ||
  die "patches/v$K8S_MINOR leaves Go files gofmt would change: $(echo "$unformatted" | paste -sd' ') (gofmt -w them in the work tree, commit as a fixup)"

# No patch rewrites another's lines.
"$ROOT/hack/patches/check-series-lines.sh" "$tmp/tree" "$UPSTREAM_TAG" > "$tmp/lines.log" ||
  die "patches/v$K8S_MINOR: a patch changes lines an earlier patch added (above)"

# On the default minor, kubernetes/ holds exactly the files its series adds.
if [ "$K8S_MINOR" = "$(default_minor)" ]; then
  for p in $(series_patches); do fork_files_of_patch "$SERIES_DIR/$p"; done | LC_ALL=C sort > "$tmp/named"
  (cd "$FORK_FILES_DIR" && find . -type f ! -name go.mod ! -name README.md | sed 's|^\./||' | LC_ALL=C sort) > "$tmp/present"
  orphans="$(comm -13 "$tmp/named" "$tmp/present")"
  [ -z "$orphans" ] || die "kubernetes/ holds files no patch of the default series names (Fork-File): $(echo "$orphans" | paste -sd' ')"
fi
if ! diff -r "$FORK_FILES_DIR" "$tmp/kubernetes" > "$tmp/diff"; then
  cat "$tmp/diff" >&2
  die "kubernetes/ does not round-trip with patches/v$K8S_MINOR: import then export changes the files above (export them from the work tree: make export-patches)"
fi
if ! diff -r "$SERIES_DIR" "$tmp/series" > "$tmp/diff"; then
  cat "$tmp/diff" >&2
  die "patches/v$K8S_MINOR does not round-trip: import then export changes the files above (export them from the work tree: make export-patches)"
fi
log "patches/v$K8S_MINOR round-trips: $(grep -cv '^#' "$SERIES_FILE") patches, import then export gives them back byte for byte; $(cat "$tmp/lines.log")"
