#!/usr/bin/env bash
# Apply the patch series onto the upstream work tree, one git commit per patch
# (like Electron's git-import-patches), each patch whole: its changes to
# upstream's files and the files it adds, which the repository keeps as
# files (Fork-File trailers; hack/lib.sh's full_patch):
#
#   upstream ── patch 1 ── patch 2 ── ...   (branch "patches" in $TREE)
#
# A stamp records which series the tree was built from, so a second run with
# the same series is a no-op. Work that was made in the tree but not yet
# exported with `make export-patches` is never thrown away unless FORCE=1:
# while the series is unchanged, that work is simply built and tested as it
# is (the prototyping loop); once the series changed, the import refuses.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# (A PATCH_TREE= clone is made from the fetched work tree.)
[ -n "${PATCH_TREE:-}" ] || "$ROOT/hack/patches/fetch-upstream.sh"

STAMP="$APPLIED_STAMP"
want_hash="$(series_hash)"
patches="$(series_patches)"
upstream="$(tree_git rev-parse "$UPSTREAM_TAG^{commit}")"
head="$(tree_git rev-parse HEAD)"
branch_tip="$(tree_git rev-parse -q --verify "refs/heads/$PATCH_BRANCH" || true)"
stamp_hash="$(sed -n 's/^series_hash //p' "$STAMP" 2>/dev/null || true)"
stamp_commit="$(sed -n 's/^commit //p' "$STAMP" 2>/dev/null || true)"
dirty="$(tree_git status --porcelain)"
busy=""
! tree_busy || busy=1

if [ "$stamp_hash" = "$want_hash" ] && [ "$head" = "$stamp_commit" ] &&
   [ -z "$dirty" ] && [ -z "$busy" ]; then
  log "patches up to date ($TREE at ${head:0:12})"
  exit 0
fi

# A commit is safe to replace if the import made it, or it is pristine upstream.
safe() { [ -z "$1" ] || [ "$1" = "$upstream" ] || [ "$1" = "$stamp_commit" ]; }
problems=()
[ -z "$dirty" ] || problems+=("it has uncommitted changes:"$'\n'"$(printf '%s\n' "$dirty" | head -n 20 | sed 's/^/      /')")
[ -z "$busy" ] || problems+=("a git am, rebase, merge or cherry-pick is under way")
safe "$head" || problems+=("HEAD ($(tree_git log -1 --format='%h %s' HEAD)) has commits that were not exported")
[ "$branch_tip" = "$head" ] || safe "$branch_tip" ||
  problems+=("branch $PATCH_BRANCH ($(tree_git log -1 --format='%h %s' "$branch_tip")) has commits that were not exported")
if [ "${#problems[@]}" -gt 0 ] && [ -z "$busy" ] && [ "$stamp_hash" = "$want_hash" ] &&
   [ "${FORCE:-}" != 1 ]; then
  # The series has not changed since it was applied, so the tree holds the
  # series plus the developer's edits (new commits, fixups, uncommitted
  # changes): the edit-build-test loop of docs/prototyping.md.
  # Build and test that work as it is; make export-patches keeps it.
  log "the work tree holds work not yet exported, on top of the series; using it as it is:"
  printf '  - %s\n' "${problems[@]}" >&2
  exit 0
fi
if [ "${#problems[@]}" -gt 0 ]; then
  if [ "${FORCE:-}" != 1 ]; then
    {
      echo "error: refusing to re-apply the series: the work tree $TREE holds work that would be lost:"
      printf '  - %s\n' "${problems[@]}"
      echo "Commit it there and run 'make export-patches' to keep it,"
      echo "or run again with FORCE=1 to discard it."
    } >&2
    exit 1
  fi
  log "FORCE=1: discarding the work in $TREE"
fi

# Until the series is fully applied there is no valid stamp, and a run that
# stops half way (failed patch, Ctrl-C) leaves pristine upstream, which the
# next run may safely replace.
rm -f "$STAMP"
log_file="$(mktemp)"
finished=0
to_upstream() {
  local op
  for op in am rebase merge cherry-pick; do
    ! tree_busy || tree_git "$op" --abort >/dev/null 2>&1 || true
  done
  tree_git checkout -q -f -B "$PATCH_BRANCH" "$UPSTREAM_TAG"
  tree_git clean -q -fd
}
trap 'rm -f "$log_file"; [ "$finished" = 1 ] || to_upstream' EXIT
trap 'exit 130' INT TERM   # so that the EXIT trap runs on Ctrl-C too
to_upstream

# Each patch whole, in $BUILD_DIR/full-patches (kept for a git am session
# left to resolve by hand).
full_dir="$(dirname "$STAMP")/full-patches"
rm -rf "$full_dir"
mkdir -p "$full_dir"
for p in $patches; do full_patch "$SERIES_DIR/$p" > "$full_dir/$p"; done

n=0
for p in $patches; do
  n=$((n + 1))
  # git am takes the author and author date from the patch, the committer
  # from lib.sh; pinning the committer date to the patch's date too makes the
  # resulting commit ids depend on the series alone.
  log "applying $p"
  date="$(sed -n '/^$/q; s/^Date: //p' "$SERIES_DIR/$p" | head -n1)"
  if GIT_COMMITTER_DATE="${date:-2000-01-01T00:00:00Z}" \
       tree_git am --3way --keep-cr --keep-non-patch --whitespace=nowarn \
       "$full_dir/$p" >"$log_file" 2>&1; then
    continue
  fi
  conflicted="$(tree_git diff --name-only --diff-filter=U)"
  # Without a 3-way merge (e.g. the file or its base blob is missing) git
  # names the paths only in its error lines.
  failed="$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
    -e "s/^error: invalid object [0-7]* [0-9a-f]* for '\(.*\)'$/\1/p" \
    -e 's/^error: \(.*\): \(does not exist in index\|does not match index\|already exists in index\|already exists in working directory\|patch does not apply\)$/\1/p' \
    "$log_file" | sort -u)"
  {
    echo
    echo "################################################################"
    echo "PATCH FAILED TO APPLY: $p  (#$n in $SERIES_FILE)"
    echo "################################################################"
    # Drop git's advice to --continue/--skip: this script aborts instead.
    grep -v -e '^hint: ' -e '^Patch failed at ' -e '^When you have resolved' \
      -e '^If you prefer to skip' -e '^To restore the original' "$log_file" | sed 's/^/  git am: /' || true
    if [ -n "$conflicted" ]; then
      echo "Conflicting files:"
      printf '%s\n' "$conflicted" | sed 's/^/  /'
    fi
    if [ -n "$failed" ]; then
      echo "Files that did not apply:"
      printf '%s\n' "$failed" | sed 's/^/  /'
    fi
    if [ -z "$conflicted$failed" ]; then
      echo "Files in the patch:"
      tree_git apply --numstat "$full_dir/$p" 2>/dev/null | cut -f3- | sed 's/^/  /' || true
    fi
    echo
    if [ "${KEEP_FAILED_AM:-}" = 1 ]; then
      echo "The git am session is left in place for you to resolve (hack/patches/rebase.sh):"
      echo "  cd $TREE"
      echo "  # edit the conflicting files, then: git add <files>; git am --continue"
      echo "  # repeat until every patch is applied, then, in $ROOT:"
      echo "  make export-patches K8S_VERSION=$K8S_VERSION && make test K8S_VERSION=$K8S_VERSION"
      finished=1
      exit 1
    fi
    echo "The work tree is back at upstream. To rebase the series by hand:"
    echo "  cd $TREE"
    echo "  git am -3 --keep-cr --keep-non-patch$(for q in $patches; do printf ' %s' "$full_dir/$q"; done)"
    echo "  # resolve, git add, git am --continue; repeat until all are applied"
    echo "  make export-patches"
  } >&2
  exit 1
done
finished=1

head="$(tree_git rev-parse HEAD)"
printf 'series_hash %s\ncommit %s\n' "$want_hash" "$head" > "$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
log "applied $n patch(es) from $SERIES_FILE: $TREE at ${head:0:12}"
