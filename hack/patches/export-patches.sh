#!/usr/bin/env bash
# Turn the commits upstream..patches of the work tree into the patch series
# (like Electron's git-export-patches): one file per commit, listed in commit
# order in $SERIES_FILE. A file is named after its commit's subject, whole,
# or after the commit's "Patch-Filename: NAME.patch" trailer, which keeps a
# name when its subject changes. Patch files that are no longer listed are
# deleted. The output is byte-stable: exporting twice in a row gives no diff,
# and import then export gives the series back (hack/patches/check-patch-roundtrip.sh).
#
# Afterwards the import stamp is updated, so that the next import-patches sees
# the tree as built from the new series and leaves it alone.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

STAMP="$APPLIED_STAMP"

[ -d "$TREE/.git" ] || die "no work tree at $TREE: run 'make import-patches' first"
! tree_busy ||
  die "a git am, rebase, merge or cherry-pick is under way in $TREE: finish it (--continue) or abort it first"
[ "$(tree_git symbolic-ref -q HEAD || true)" = "refs/heads/$PATCH_BRANCH" ] ||
  die "the work tree $TREE is not on branch $PATCH_BRANCH: check it out ('git -C $TREE checkout $PATCH_BRANCH') and export again"
if [ -n "$(tree_git status --porcelain)" ]; then
  tree_git status --short >&2
  die "the work tree $TREE has uncommitted changes: commit them first ('git -C $TREE commit -a'), then export again"
fi
tree_git merge-base --is-ancestor "$UPSTREAM_TAG" HEAD ||
  die "branch $PATCH_BRANCH in $TREE does not build on the tag $UPSTREAM_TAG: rebase it onto $UPSTREAM_TAG"
[ -z "$(tree_git rev-list --merges "$UPSTREAM_TAG..HEAD")" ] ||
  die "branch $PATCH_BRANCH in $TREE has merge commits, which a patch series cannot hold: rebase them away"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Pin every setting that changes format-patch output, so that the patches do
# not depend on who exports them.
format_patch=(
  git -C "$TREE"
  -c diff.noprefix=false -c diff.mnemonicPrefix=false -c diff.renames=true
  -c diff.algorithm=default -c diff.relative=false -c diff.context=3
  -c diff.suppressBlankEmpty=false -c format.headers= -c format.coverLetter=false
  format-patch --stdout --zero-commit --no-signature --no-stat --full-index
  --keep-subject --no-numbered --no-thread --no-notes --no-signoff --no-attach
  --no-color --src-prefix=a/ --dst-prefix=b/ --no-relative
)

names=()
for c in $(tree_git rev-list --reverse "$UPSTREAM_TAG..HEAD"); do
  subject="$(tree_git log -1 --format=%s "$c")"
  # An empty commit becomes an empty patch, which git am rejects.
  ! tree_git diff --quiet "$c^" "$c" ||
    die "commit ${c:0:12} '$subject' changes nothing: drop it (git -C $TREE rebase -i $UPSTREAM_TAG)"
  # patch(1)'s leftovers of a fuzzy apply must not ride along in a patch.
  leftovers="$(tree_git diff --name-only --diff-filter=A "$c^" "$c" -- '*.orig' '*.rej')"
  [ -z "$leftovers" ] ||
    die "commit ${c:0:12} '$subject' adds $(echo "$leftovers" | paste -sd' '): remove them from the commit (git rm --cached, then amend)"
  trailer="$(tree_git log -1 --format='%(trailers:key=Patch-Filename,valueonly,separator=%x2C)' "$c")"
  if [ -n "$trailer" ]; then
    [[ "$trailer" =~ ^[a-z0-9][a-z0-9.-]*\.patch$ ]] ||
      die "commit ${c:0:12} '$subject': Patch-Filename '$trailer' is not one name of lower-case letters, digits, '-' and '.', ending in .patch"
    slug="${trailer%.patch}"
  else
    slug="$(printf '%s' "$subject" | LC_ALL=C tr '[:upper:]' '[:lower:]' |
      LC_ALL=C sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-*$//')"
  fi
  [ -n "$slug" ] || slug="patch"
  name="$slug.patch"
  i=2
  while [ -e "$tmp/$name" ]; do name="$slug-$i.patch"; i=$((i + 1)); done
  # --no-signature already drops the "-- " + git version trailer, which would
  # make the output depend on the git that exported it; strip it if one slips
  # through (format.signature set in a config file).
  # The files the commit adds go to the repository (write_fork_file: the
  # shared kubernetes/<path>, or this minor's diff from it); the patch keeps
  # the changes to upstream's files and names the files it adds in
  # Fork-File trailers, after its other trailers, sorted.
  tree_git diff --name-only --diff-filter=A "$c^" "$c" | LC_ALL=C sort > "$tmp/added"
  while read -r f; do
    [ -n "$f" ] || continue
    tree_git show "$c:$f" > "$tmp/file"
    written="$(write_fork_file "$f" "$tmp/file")"
    [ -z "$written" ] || log "wrote $written"
    echo "$f" >> "$tmp/all-added"
  done < "$tmp/added"
  "${format_patch[@]}" -1 "$c" |
    awk '{ l[NR] = $0 } END { n = NR
           if (n >= 3 && l[n] == "" && l[n-2] == "-- ") n -= 3
           for (i = 1; i <= n; i++) print l[i] }' |
    awk -v added="$tmp/added" '
      BEGIN { while ((getline f < added) > 0) if (f != "") { add[f] = 1; order[++k] = f } }
      # the message: everything before the first diff
      !indiff && /^diff --git / { indiff = 1; flush() }
      !indiff { if ($0 !~ /^Fork-File: /) msg[++m] = $0; next }
      /^diff --git / { split($0, w, " "); p = substr(w[3], 3); skip = (p in add) }
      !skip { print }
      END { if (!indiff) flush() }
      function flush(   i) {
        while (m > 0 && msg[m] == "") m--
        for (i = 1; i <= m; i++) print msg[i]
        if (k > 0 && msg[m] !~ /^[A-Za-z-]+: /) print ""
        for (i = 1; i <= k; i++) print "Fork-File: " order[i]
        if (indiff) print ""
      }' > "$tmp/$name"
  names+=("$name")
done
{
  echo "# Patches against upstream Kubernetes v$K8S_MINOR, applied in this order by"
  echo "# hack/patches/import-patches.sh. Written by hack/patches/export-patches.sh"
  echo "# from the commits of the work tree: change the commits there, then run"
  echo "# 'make export-patches'."
  [ "${#names[@]}" -eq 0 ] || printf '%s\n' "${names[@]}"
} > "$tmp/series"

mkdir -p "$SERIES_DIR"
changed=0
for f in series ${names[@]+"${names[@]}"}; do
  if ! cmp -s "$tmp/$f" "$SERIES_DIR/$f"; then
    if [ -e "$SERIES_DIR/$f" ]; then log "updated $f"; else log "added $f"; fi
    cp "$tmp/$f" "$SERIES_DIR/$f"
    changed=$((changed + 1))
  fi
done
for f in "$SERIES_DIR"/*.patch; do
  [ -e "$f" ] || continue
  if [ ! -e "$tmp/$(basename "$f")" ]; then
    log "removed $(basename "$f")"
    rm -f "$f"
    changed=$((changed + 1))
  fi
done
# This minor's own files that no commit adds any more.
if [ -d "$SERIES_FILES_DIR" ]; then
  touch "$tmp/all-added"
  while read -r f; do
    rel="${f#"$SERIES_FILES_DIR"/}"
    rel="${rel%.diff}"
    if ! grep -qxF "$rel" "$tmp/all-added"; then
      log "removed ${f#"$ROOT"/}"
      rm -f "$f"
    fi
  done < <(find "$SERIES_FILES_DIR" -type f | LC_ALL=C sort)
  find "$SERIES_FILES_DIR" -depth -type d -empty -delete
fi

# The tree now is what the series describes.
printf 'series_hash %s\ncommit %s\n' "$(series_hash)" "$(tree_git rev-parse HEAD)" > "$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
log "exported ${#names[@]} patch(es) to $SERIES_DIR ($changed file(s) changed)"
