#!/usr/bin/env bash
# make docs-prototyping: run the prototyping loop of docs/prototyping.md for
# real and write its transcript into that page, between its lines
# "<!-- prototyping-example:begin" and "<!-- prototyping-example:end".
#
# It works in a throwaway clone of this repository's HEAD (git clone
# --shared into a temporary folder), with the clone's own _output: the
# developer's work tree (_output/vX.Y.Z/kubernetes) and checkout are never
# touched, and only docs/prototyping.md is written here. In the clone it
# runs, as a developer would:
#
#   make import-patches                  the work tree: upstream, the series as commits
#   make kubelet                         the clone's first build (cold for its paths)
#   an edit in the work tree, committed  a small real change (below)
#   make kubelet                         the incremental build of the loop
#   make export-patches                  the commit becomes a named patch
#   git status, git diff, cat            the new patch file and the series' diff
#   make kubelet                         the exported series names the version
#
# and records each command, its output (trimmed; paths of the clone as
# $PWD, of the Go caches as $(go env ...)) and its time. The transcript is
# checked for machine paths (hack/tools/mdlinks -paths) before it is
# written. The steps that need a running cluster (make kubelet-restart,
# make e2e) are not run: the page describes them.
#
# The change: kuberuntime's killContainer logs how long the runtime took to
# stop a container. It is made with two anchored edits of upstream's
# pkg/kubelet/kuberuntime/kuberuntime_container.go; when a new release or
# series moves those lines, the script stops and says so.
#
# Env: K8S_VERSION (the release, as for every target), WAIT_WHILE=FILE
#      (before each build, wait while FILE exists, polling every 30 s: for
#      a machine where another run measures and must not be disturbed),
#      KEEP=1 (keep the clone, and say where).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

doc=docs/prototyping.md
block_name=prototyping-example
doc_has_block "$doc" "$block_name" || die "$doc has no <!-- $block_name:begin --> line"
command -v setsid > /dev/null || die "setsid (util-linux) is needed"

tmp="$(mktemp -d)"
clone="$tmp/sidecar-kubelet"
child=""
cleanup() {
  local rc=$?
  if [ -n "$child" ] && ! pid_gone "$child"; then
    log "stopping the step under way (process group $child)"
    kill -TERM -- "-$child" 2> /dev/null || true
    wait "$child" 2> /dev/null || true
  fi
  if [ "${KEEP:-}" = 1 ]; then
    log "the clone stays at $clone (KEEP=1)"
  else
    rm -rf "$tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_quiet() {
  [ -n "${WAIT_WHILE:-}" ] || return 0
  while [ -e "$WAIT_WHILE" ]; do
    log "$WAIT_WHILE exists: another run is measuring; waiting (checking every 30 s)"
    sleep 30
  done
}

# The clone's commands get the environment of a developer's shell: none of
# the variables that would point them at this checkout or another build.
clean_env=(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEOVERRIDES -u PATCH_TREE -u SERIES_DIR
  -u KUBELET_BIN -u LDFLAGS -u SIDECAR_ORDERING_DEFAULT -u FORCE -u CLUSTER_INSTANCE -u KUBECONFIG
  "OUTPUT=$clone/_output" "K8S_VERSION=$K8S_VERSION")

# run DIR CMD... runs CMD in DIR of the clone, its own process group, its
# output in $tmp/out; sets took (seconds, one decimal). A failure ends the
# script with the output.
run() {
  local dir="$1" t0 rc=0
  shift
  t0="$(date +%s.%N)"
  (cd "$clone/$dir" && exec setsid "${clean_env[@]}" "$@") > "$tmp/out" 2>&1 &
  child=$!
  wait "$child" || rc=$?
  child=""
  took="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
  if [ "$rc" != 0 ]; then
    cat "$tmp/out" >&2
    die "'$*' failed in the clone ($rc)"
  fi
}

# human SECONDS: "4.2 s", "57 s", "9 min 12 s".
human() {
  awk -v s="$1" 'BEGIN {
    if (s < 10) printf "%.1f s", s
    else if (s < 60) printf "%d s", s + 0.5
    else printf "%d min %d s", int((s + 0.5) / 60), int(s + 0.5) % 60 }'
}

# shown: $tmp/out as the transcript shows it: no progress ticks, at most
# 14 lines (the first 7 and the last 6 around a count of the rest).
shown() {
  grep -v '^==> still ' "$tmp/out" | awk '{ l[NR] = $0 } END {
    if (NR <= 14) { for (i = 1; i <= NR; i++) print l[i]; exit }
    for (i = 1; i <= 7; i++) print l[i]
    printf "[... %d lines ...]\n", NR - 13
    for (i = NR - 5; i <= NR; i++) print l[i] }'
}

# transcript CMD: the command as typed and its output, as a code block.
transcript() {
  printf '```\n$ %s\n' "$1"
  shown
  printf '```\n'
}

started_at="$(date -u '+%Y-%m-%d %H:%M UTC')"
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"

log "cloning $ROOT (HEAD) into a throwaway folder"
git clone -q --shared "$ROOT" "$clone"
commit="$(git -C "$clone" rev-parse --short=12 HEAD)"
series="patches/v$K8S_MINOR/series"
tree="_output/v$K8S_VERSION/kubernetes"
kubelet="_output/v$K8S_VERSION/bin/kubelet"
count_patches() { grep -cv '^[[:space:]]*\(#\|$\)' "$clone/$series"; }
patches_before="$(count_patches)"
out="$tmp/block"
: > "$out"

# --- the work tree and the first build ---------------------------------------------
wait_quiet
log "make import-patches (in the clone)"
run . make import-patches
t_import="$took"
transcript "make import-patches" > "$tmp/import.md"

wait_quiet
log "make kubelet: the clone's first build"
run . make kubelet
t_first="$took"
transcript "make kubelet" > "$tmp/first.md"
size_mb="$(du -m "$clone/$kubelet" | cut -f1)"

run "$tree" git log --oneline upstream..patches
transcript "git log --oneline upstream..patches" > "$tmp/log.md"

# --- the change ---------------------------------------------------------------------
file=pkg/kubelet/kuberuntime/kuberuntime_container.go
log "editing $file in the work tree"
awk '
  $0 == "\terr := m.runtimeService.StopContainer(ctx, containerID.ID, gracePeriod)" { print "\tstopStarted := time.Now()"; stop++ }
  exited && $0 == "\t\t\"containerName\", containerName, \"containerID\", containerID.String())" {
    $0 = "\t\t\"containerName\", containerName, \"containerID\", containerID.String(), \"stopDuration\", time.Since(stopStarted))"
    logged++
  }
  { exited = index($0, "logger.V(3).Info(\"Container exited normally\"") > 0; print }
  END { exit !(stop == 1 && logged == 1) }' "$clone/$tree/$file" > "$tmp/edited.go" ||
  die "the example's two lines are not in $file of v$K8S_VERSION with the series (StopContainer's call, the \"Container exited normally\" log): update the change in $0"
grep -q '^	"time"$' "$tmp/edited.go" || die "$file does not import time any more: update the change in $0"
cp "$tmp/edited.go" "$clone/$tree/$file"
[ -z "$(gofmt -l "$clone/$tree/$file")" ] || die "the example's edit of $file is not gofmt'ed"
run "$tree" git diff
{
  printf '```diff\n$ git diff\n'
  cat "$tmp/out"
  printf '```\n'
} > "$tmp/diff.md"
subject="Log how long the runtime took to stop a container"
body="killContainer logs that a container exited after StopContainer, but not
how long the runtime took to stop it, the first question about a slow
termination. Log it in that line (V(3)), as stopDuration.

Upstream could take it as it is: one more field in a V(3) line."
run "$tree" git commit -q -a -m "$subject" -m "$body"
run "$tree" git log --oneline -1
{
  printf '```\n$ git commit -q -a -m "%s" -m "killContainer logs that ..."\n$ git log --oneline -1\n' "$subject"
  cat "$tmp/out"
  printf '```\n'
} > "$tmp/commit.md"

# --- the loop ---------------------------------------------------------------------
wait_quiet
log "make kubelet: the incremental build"
run . make kubelet
t_incr="$took"
transcript "make kubelet" > "$tmp/incr.md"

log "make export-patches"
run . make export-patches
t_export="$took"
transcript "make export-patches" > "$tmp/export.md"
patches_after="$(count_patches)"
new_patch="$(git -C "$clone" status --porcelain -- "patches/v$K8S_MINOR" | sed -n 's/^?? //p' | head -n1)"
[ -n "$new_patch" ] || die "make export-patches wrote no new patch file"

run . git status --short patches
transcript "git status --short patches" > "$tmp/status.md"
run . git diff "$series"
{
  printf '```diff\n$ git diff %s\n' "$series"
  cat "$tmp/out"
  printf '```\n'
} > "$tmp/series.md"
run . cat "$new_patch"
{
  printf '```diff\n$ cat %s\n' "$new_patch"
  cat "$tmp/out"
  printf '```\n'
} > "$tmp/patch.md"

wait_quiet
log "make kubelet: after the export"
run . make kubelet
t_after="$took"
transcript "make kubelet" > "$tmp/after.md"
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- the block ----------------------------------------------------------------------
{
  echo "Run by \`make docs-prototyping\` (hack/docs/prototyping-example.sh) on $started_at: $(nproc) cores, $(go env GOVERSION), load average $load_start at the start and $load_end at the end; in a fresh clone of commit $commit, whose top is \`\$PWD\` below, on v$K8S_VERSION with the series of $patches_before patches. The change is an example: it is not part of the series."
  echo
  echo "**1. The work tree.** \`make import-patches\` lays upstream's release out as a git work tree, \`$tree\`, and applies the series as commits; \`make kubelet\` then builds the clone's first kubelet (cold for a new checkout's paths, with the Go build cache as it was: not part of the loop)."
  echo
  cat "$tmp/import.md"
  echo
  cat "$tmp/first.md"
  echo
  echo "In the work tree the series is one commit per patch:"
  echo
  printf '```\n$ cd %s\n```\n\n' "$tree"
  cat "$tmp/log.md"
  echo
  echo "**2. The change, committed in the work tree.** killContainer logs how long the runtime took to stop a container:"
  echo
  cat "$tmp/diff.md"
  echo
  cat "$tmp/commit.md"
  echo
  echo "**3. The incremental build**, back at the top (\`cd -\`): the import sees the new commit and builds the work tree as it is; only \`pkg/kubelet/kuberuntime\`, what imports it, and the link run again."
  echo
  cat "$tmp/incr.md"
  echo
  echo "**4. Export.** The commit becomes a patch named after its subject, appended to the series:"
  echo
  cat "$tmp/export.md"
  echo
  cat "$tmp/status.md"
  echo
  cat "$tmp/series.md"
  echo
  cat "$tmp/patch.md"
  echo
  echo "**5. The kubelet of the new series.** Its version carries the series' hash, which the export changed: the next build links again with the new stamp."
  echo
  cat "$tmp/after.md"
  echo
  echo "| step | time |"
  echo "| --- | --- |"
  echo "| \`make import-patches\`: fetch upstream, apply $patches_before patches | $(human "$t_import") |"
  echo "| \`make kubelet\`, the clone's first build (not part of the loop) | $(human "$t_first") |"
  echo "| \`make kubelet\` after the change: the import's check, kuberuntime and its dependents, the link of a kubelet of $size_mb MB | **$(human "$t_incr")** |"
  echo "| \`make export-patches\`: $patches_before patches and the new one, $patches_after in the series | $(human "$t_export") |"
  echo "| \`make kubelet\` after the export: the new version stamp, a link | $(human "$t_after") |"
} > "$out"

# Paths of the clone and of the Go caches, as a reader's shell names them.
CLONE="$clone" TMPD="$tmp" GOMODCACHE_DIR="$(go env GOMODCACHE)" GOCACHE_DIR="$(go env GOCACHE)" perl -pi -e '
  s/\Q$ENV{CLONE}\E/\$PWD/g;
  s/\Q$ENV{TMPD}\E/\$TMPDIR/g;
  s/\Q$ENV{GOMODCACHE_DIR}\E/\$(go env GOMODCACHE)/g;
  s/\Q$ENV{GOCACHE_DIR}\E/\$(go env GOCACHE)/g;' "$out"
(cd "$ROOT/hack/tools" && go run ./mdlinks -paths "$ROOT" "$out") ||
  die "the transcript holds paths of this machine (above): add their rewrite to $0"
write_doc_block "$doc" "$block_name" < "$out"
log "wrote the transcript into $doc: make kubelet after the change $(human "$t_incr"), the export $(human "$t_export")"
