#!/usr/bin/env bash
# The series reads as a design, not as a diary: no patch changes or removes
# a line that an earlier patch of the same series added. Each patch is one
# concern in its final form; a later one may add lines next to an earlier
# one's, never rewrite them.
#
#   check-series-lines.sh TREE BASE [TIP]
#
# TREE is a git repository whose commits BASE..TIP (TIP: HEAD) are the series (the
# throwaway clone of check-patch-roundtrip.sh, say). For every commit, each
# line it removes (a changed line is removed and added) is blamed in its
# parent: a line that a series commit wrote is a violation, printed as
# "patch: file:line was added by earlier-patch". Lines of upstream's are the
# series' to change. Exits 1 on any violation.
set -euo pipefail

tree="$1" base="$2" tip="${3:-HEAD}"
g() { git -C "$tree" "$@"; }

mapfile -t commits < <(g rev-list --reverse --topo-order "$base..$tip")
declare -A in_series=()
for c in "${commits[@]}"; do in_series[$c]=1; done

violations=0
for c in "${commits[@]}"; do
  subject="$(g log -1 --format=%s "$c")"
  # The old side of every hunk that removes lines: "file start count".
  while read -r file start count; do
    while read -r owner line; do
      [ -n "${in_series[$owner]:-}" ] || continue
      echo "$subject: $file:$line was added by \"$(g log -1 --format=%s "$owner")\"" >&2
      violations=$((violations + 1))
    done < <(g blame --porcelain -L "$start,+$count" "$c^" -- "$file" |
      awk 'length($1) == 40 && $1 ~ /^[0-9a-f]+$/ && NF >= 3 { print $1, $2 }')
  done < <(g diff -U0 --no-color --no-renames "$c^" "$c" |
    awk '/^--- a\// { file = substr($0, 7) }
         /^--- \/dev\/null/ { file = "" }
         /^@@ / && file != "" {
           split($2, old, ",")
           start = substr(old[1], 2); count = (old[2] == "") ? 1 : old[2]
           if (count > 0) print file, start, count
         }')
done
if [ "$violations" -gt 0 ]; then
  echo "error: $violations line(s) of the series are rewritten by a later patch of it: fold each change into the patch that added the line" >&2
  exit 1
fi
echo "${#commits[@]} patches; none changes a line that an earlier one added"
