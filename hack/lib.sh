# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# The one library of the hack/ scripts: every script sources this file, and
# nothing else. Source it; do not run it. Its parts for one area each are in
# hack/lib/, sourced at the end: node.sh (a node's containerd and kubelet:
# the local cluster's and the node e2e suite's), cluster.sh (the local
# cluster; its scripts call cluster_settings), kind.sh (kind's files, configs,
# engine and kubelet restarts). Building the kind node image is Go
# (hack/tools/nodeimage), as is everything with more logic than glue.
#
# K8S_VERSION picks the upstream release (without the leading "v"); the patch
# series is the folder of its minor under patches/. Each series folder records
# the release it is pinned to in one place, patches/vX.Y/UPSTREAM_VERSION: a
# release X.Y.Z, or a pre-release X.Y.Z-pre (X.Y.0-alpha.N, -beta.N, -rc.N)
# for a minor upstream has not released yet. K8S_VERSION may be:
#   unset       the default: the pinned release of the newest minor pinned to
#               a release (a series pinned to a pre-release is supported, but
#               never the default: make up, make test and CI stay on a release)
#   X.Y         the pinned release of that minor (1.36: what patches/v1.36/UPSTREAM_VERSION says)
#   X.Y.Z       that release exactly (e.g. a new patch release to rebase onto)
#   X.Y.Z-pre   that pre-release exactly
# K8S_VERSION_SET is "1" when the caller chose the version, "" for the default.

# Let set -e reach into $(...) too, so that a failing command there stops
# the script instead of yielding an empty or wrong value.
shopt -s inherit_errexit

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PATCHES_DIR="$ROOT/patches"

# RELEASE_RE matches an upstream release without its v: X.Y.Z, or X.Y.Z-pre
# with a semver pre-release (dot-separated [0-9A-Za-z-] identifiers:
# alpha.0, beta.1, rc.2). hack/tools/internal/release has the same pattern.
RELEASE_RE='^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
# is_prerelease RELEASE succeeds for X.Y.Z-pre, fails for X.Y.Z.
is_prerelease() { [[ "$1" == *-* ]]; }

# semver_lt A B succeeds when version A is below version B (X.Y.Z or
# X.Y.Z-pre, with or without a v): a release is above its pre-releases,
# which compare as sort -V orders them (alpha.0 < alpha.2 < beta.0 < rc.1).
semver_lt() {
  local a="${1#v}" b="${2#v}"
  local ac="${a%%-*}" bc="${b%%-*}"
  if [ "$ac" != "$bc" ]; then
    [ "$(printf '%s\n' "$ac" "$bc" | sort -V | head -n1)" = "$ac" ]
    return
  fi
  [ "$a" != "$b" ] && is_prerelease "$a" || return 1
  is_prerelease "$b" || return 0
  [ "$(printf '%s\n' "${a#*-}" "${b#*-}" | sort -V | head -n1)" = "${a#*-}" ]
}

# pinned_version MINOR prints the release the series of MINOR (X.Y) is pinned
# to: X.Y.Z, or X.Y.Z-pre.
pinned_version() {
  local f="$PATCHES_DIR/v$1/UPSTREAM_VERSION" v
  [ -f "$f" ] || return 1
  v="$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$f" | grep -v '^$' | head -n1)"
  v="${v#v}"
  { [[ "$v" =~ $RELEASE_RE ]] && [[ "$v" == "$1".* ]]; } ||
    { printf 'error: %s says "%s", not a v%s.Z release or v%s.Z-pre pre-release\n' "$f" "$v" "$1" "$1" >&2; return 1; }
  echo "$v"
}
# supported_minors prints the minors that have a series folder, oldest first.
supported_minors() {
  local d
  for d in "$PATCHES_DIR"/v*/; do
    if [ ! -f "$d/series" ] || [ ! -f "$d/UPSTREAM_VERSION" ]; then continue; fi
    d="${d%/}"
    echo "${d##*/v}"
  done | sort -V
}
# default_minor prints the minor an unset K8S_VERSION resolves to: the newest
# one pinned to a release, or, while every series is pinned to a
# pre-release, the newest.
default_minor() {
  local m newest="" release=""
  for m in $(supported_minors); do
    newest="$m"
    is_prerelease "$(pinned_version "$m")" || release="$m"
  done
  [ -n "$newest" ] || return 1
  echo "${release:-$newest}"
}

OUTPUT="${OUTPUT:-$ROOT/_output}"
# A script that only acts on a running local cluster (kubelet-restart,
# test-e2e) sets CLUSTER_FOLLOWS_RECORDED_VERSION=1: without an explicit
# K8S_VERSION it then takes the release the cluster runs (hack/lib/cluster.sh).
if [ -z "${K8S_VERSION:-}" ] && [ "${CLUSTER_FOLLOWS_RECORDED_VERSION:-}" = 1 ] && [ -s "$OUTPUT/cluster/k8s-version" ]; then
  K8S_VERSION="$(cat "$OUTPUT/cluster/k8s-version")"
fi
K8S_VERSION_SET="${K8S_VERSION:+1}"
K8S_VERSION="${K8S_VERSION:-}"
K8S_VERSION="${K8S_VERSION#v}"
if [ -z "$K8S_VERSION" ]; then
  default="$(default_minor)" || { echo "error: no series folder with an UPSTREAM_VERSION under $PATCHES_DIR" >&2; exit 1; }
  K8S_VERSION="$(pinned_version "$default")" || exit 1
elif [[ "$K8S_VERSION" =~ ^[0-9]+\.[0-9]+$ ]]; then
  pinned="$(pinned_version "$K8S_VERSION")" ||
    { echo "error: K8S_VERSION=$K8S_VERSION: no patches/v$K8S_VERSION/UPSTREAM_VERSION (supported: $(supported_minors | paste -sd' '))" >&2; exit 1; }
  K8S_VERSION="$pinned"
fi
[[ "$K8S_VERSION" =~ $RELEASE_RE ]] ||
  { echo "error: K8S_VERSION=$K8S_VERSION is not X.Y, X.Y.Z or X.Y.Z-pre (a pre-release: X.Y.0-alpha.N, -beta.N, -rc.N)" >&2; exit 1; }
K8S_MINOR="$(echo "$K8S_VERSION" | cut -d. -f1,2)"
# Staging modules (k8s.io/api, ...) are published as v0.<minor>.<patch>
# (v0.<minor>.<patch>-pre for a pre-release).
STAGING_VERSION="v0.${K8S_VERSION#*.}"

SERIES_DIR="${SERIES_DIR:-$PATCHES_DIR/v$K8S_MINOR}"
SERIES_FILE="$SERIES_DIR/series"
# The files the fork adds to upstream's tree are files of this repository,
# not the "+" lines of patches: kubernetes/<path> holds each as the default
# minor has it (the newest minor pinned to a release), and a minor that
# needs its own version has $SERIES_DIR/files/<path>.diff, a unified diff
# from the shared file, or $SERIES_DIR/files/<path> for a file the default
# minor lacks. A patch names the files it adds in its "Fork-File: <path>"
# trailers; import-patches.sh lays them into the commit, export-patches.sh
# writes them back (fork_file_*). The patches themselves change upstream's
# files only.
FORK_FILES_DIR="${FORK_FILES_DIR:-$ROOT/kubernetes}"
SERIES_FILES_DIR="$SERIES_DIR/files"
# The build module: requires k8s.io/kubernetes (replaced by the work tree) and
# this repository (for kubelet/), and pins every staging module.
BUILD_DIR="$OUTPUT/v$K8S_VERSION"
# The upstream work tree, a git repository: the tag "upstream" marks the
# pristine release, the branch "patches" carries the series as commits.
# PATCH_TREE= points the patch scripts at another clone of it (the round-trip
# check of hack/patches/check-patch-roundtrip.sh), whose import stamp then lives in
# that clone's .git.
TREE="${PATCH_TREE:-$BUILD_DIR/kubernetes}"
APPLIED_STAMP="$BUILD_DIR/applied.stamp"
[ -z "${PATCH_TREE:-}" ] || APPLIED_STAMP="$PATCH_TREE/.git/sidecar-kubelet-applied.stamp"
# The Kubernetes binaries (kubelet, kube-apiserver, ..., kubectl) of this
# release, beside its work tree, so that versions never overwrite each other
# and the local cluster runs one release throughout. BIN_DIR holds the tools
# that do not depend on the release (containerd, hack/tools).
K8S_BIN_DIR="$BUILD_DIR/bin"
# Upstream's node e2e suite of this release (e2e_node.test, ginkgo) and its
# test images, built by hack/e2e-node/build-*.sh for hack/e2e-node/run.sh.
E2E_NODE_BIN_DIR="$BUILD_DIR/e2e-node/bin"
E2E_NODE_IMAGES_DIR="$BUILD_DIR/e2e-node/images"
BIN_DIR="$OUTPUT/bin"
# The containerd that the local cluster and the kind node image build from
# the Go module proxy, pinned.
CONTAINERD_VERSION="v2.4.2"   # github.com/containerd/containerd/v2
CONTAINERD_TAGS="no_btrfs"

OWN_MODULE="github.com/sidecar-kubelet/sidecar-kubelet"
UPSTREAM_TAG="upstream"
PATCH_BRANCH="patches"

# Deterministic identities for the commits the scripts make, so that the same
# inputs give the same work tree and the same exported patches.
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-sidecar-kubelet}"
export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-sidecar-kubelet@users.noreply.invalid}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME}"
export GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}"

log() { printf '==> %s\n' "$*" >&2; }

# with_progress WHAT CMD...: runs CMD and says every 30 s (PROGRESS_EVERY)
# that WHAT is still under way: a cold kubelet build compiles for minutes
# without a word. Returns CMD's status; the ticker goes with it.
with_progress() {
  local what="$1" start=$SECONDS ticker rc=0
  shift
  (
    trap 'kill "$s" 2> /dev/null; exit 0' TERM
    while :; do
      sleep "${PROGRESS_EVERY:-30}" & s=$!
      wait "$s"
      log "still $what ($((SECONDS - start))s)"
    done
  ) &
  ticker=$!
  "$@" || rc=$?
  kill "$ticker" 2> /dev/null || true
  wait "$ticker" 2> /dev/null || true
  return "$rc"
}

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# install_debian_deps ITEM... installs, with apt-get, the Debian packages of
# the ITEMs ("command-or-path:package") whose command or path this machine
# lacks: what the local cluster, the node e2e run and its images need of the
# host, so that each target works on a fresh machine by itself (as root;
# otherwise it says what to install).
install_debian_deps() {
  local item what missing=()
  for item in "$@"; do
    what="${item%%:*}"
    if [[ "$what" == /* ]]; then [ -e "$what" ]; else command -v "$what" > /dev/null; fi ||
      missing+=("${item#*:}")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || die "missing ${missing[*]}: install them (apt-get install ${missing[*]})"
  log "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}

# --- processes and mounts (the local cluster, the node e2e, the kind engine) --

# pid_gone PID succeeds once PID has exited (or is a zombie).
pid_gone() { ! [ -d "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# kill_leftovers kills (SIGKILL) the processes that the caller's leftovers
# function prints and waits for them to exit: what a teardown finds still
# running after it stopped its own processes by pid.
kill_leftovers() {
  local pids
  mapfile -t pids < <(leftovers | sort -un)
  [ "${#pids[@]}" -gt 0 ] || return 0
  log "killing leftover processes: ${pids[*]}"
  kill -KILL "${pids[@]}" 2> /dev/null || true
  no_leftovers() { [ -z "$(leftovers)" ]; }
  wait_for "the leftover processes to exit" 20 no_leftovers || log "some processes are left: $(leftovers | tr '\n' ' ')"
}

# mounts_under DIR prints the mount points at or under DIR, deepest first.
mounts_under() { findmnt -rn -o TARGET | awk -v d="$1" 'index($0, d "/") == 1 || $0 == d' | awk '{print length, $0}' | sort -rn | cut -d' ' -f2-; }

# unmount_under DIR unmounts everything at or under DIR (a kubelet's root
# bind-mounted onto itself, pods' volumes, containerd's overlay, shm and netns
# mounts), deepest first, lazily as a last resort. Fails, saying what, if
# anything is left.
unmount_under() {
  local dir="$1" m mounts
  for _ in 1 2 3 4 5; do
    mapfile -t mounts < <(mounts_under "$dir")
    [ "${#mounts[@]}" -gt 0 ] || return 0
    log "unmounting ${#mounts[@]} mounts under $dir"
    for m in "${mounts[@]}"; do
      m="$(printf %b "$m")" # findmnt -r escapes blanks as \x20
      umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || log "cannot unmount $m"
    done
  done
  [ -z "$(mounts_under "$dir")" ] || { log "mounts are left under $dir: $(mounts_under "$dir" | tr '\n' ' ')"; return 1; }
}

# wait_for WHAT TIMEOUT CMD... runs CMD every half second until it succeeds;
# says what it waits for, and fails after TIMEOUT seconds.
wait_for() {
  local what="$1" timeout="$2" start=$SECONDS next=10
  shift 2
  "$@" > /dev/null 2>&1 && return 0
  log "waiting for $what (up to ${timeout}s)"
  while ! "$@" > /dev/null 2>&1; do
    if ((SECONDS - start >= timeout)); then
      printf '==> gave up waiting for %s after %ss\n' "$what" "$timeout" >&2
      return 1
    fi
    if ((SECONDS - start >= next)); then
      printf '==>   still waiting for %s (%ss)\n' "$what" "$((SECONDS - start))" >&2
      next=$((next + 10))
    fi
    sleep 0.5
  done
}

# ADMISSION_POLICY is contract rule 16's admission policy: a
# ValidatingAdmissionPolicy and its binding that refuse a pod whose sidecar
# annotations are malformed (deploy/README.md).
ADMISSION_POLICY="$ROOT/deploy/sidecar-annotation-policy.yaml"

# apply_admission_policy KUBECTL... applies ADMISSION_POLICY with that
# kubectl command (a function, or a command with its kubeconfig), which
# changes nothing when it is there already, and waits until the API server
# enforces it: its policy informer syncs in a moment, and the check's dry
# run needs the namespace default's ServiceAccount.
apply_admission_policy() {
  local out
  out="$("$@" apply -f "$ADMISSION_POLICY" 2>&1)" || { printf '%s\n' "$out" >&2; return 1; }
  case "$out" in *created* | *configured*) log "admission policy: $(tr '\n' ' ' <<< "$out")" ;; esac
  wait_for "the API server to enforce the admission policy" 60 admission_policy_enforced "$@"
}

# admission_policy_enforced KUBECTL... succeeds when a server-side dry run
# of a pod whose annotation names no container of it is refused by the
# policy, with the kubelet's text.
admission_policy_enforced() {
  local out
  out="$("$@" -n default create --dry-run=server -o name -f - 2>&1 << 'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: admission-policy-check
  annotations:
    sidecar-kubelet.io/sidecars: nosuch
spec:
  containers:
  - name: app
    image: sidecar-kubelet.local/none:1
EOF
)" && return 1
  grep -qF 'denied request: sidecar-kubelet.io/sidecars: "nosuch" is not a container of the pod' <<< "$out"
}

# doc_has_block FILE NAME succeeds if FILE (relative to the repository) has
# the line "<!-- NAME:begin".
doc_has_block() { grep -q "^<!-- $2:begin" "$ROOT/$1"; }

# write_doc_block FILE NAME puts its standard input between FILE's lines
# "<!-- NAME:begin ..." and "<!-- NAME:end ...", in place of what stood
# there: figures that change per run are written by the command that
# measured them. A block of docs/ outside docs/results and docs/bench then
# gets its note again (build_notes), which says which build of the fork's
# kubelet the run was of; a command that writes several blocks exports
# DOC_NOTES_LATER=1 and runs build_notes once after the last (the blocks
# are written in pipes, whose subshells share nothing else with it).
write_doc_block() {
  local file="$1" name="$2" tmp
  doc_has_block "$file" "$name" || die "$file has no <!-- $name:begin --> line"
  tmp="$(mktemp -d)"
  cat > "$tmp/block"
  awk -v block="$tmp/block" -v name="$name" '
    index($0, "<!-- " name ":begin") == 1 { print; while ((getline line < block) > 0) print line; skip = 1; next }
    index($0, "<!-- " name ":end") == 1 { skip = 0 }
    !skip' "$ROOT/$file" > "$tmp/doc"
  cp "$tmp/doc" "$ROOT/$file"
  rm -rf "$tmp"
  case "$file" in
    docs/results/* | docs/bench/*) ;;
    docs/*) [ "${DOC_NOTES_LATER:-}" = 1 ] || build_notes > /dev/null ;;
  esac
}

# readme_has_block NAME and write_readme_block NAME: the same, of README.md.
readme_has_block() { doc_has_block README.md "$1"; }
write_readme_block() { write_doc_block README.md "$1"; }

# record_result NAME COMMAND keeps the result of a run, read from standard
# input (its first line a one-line summary, any further lines detail), in
# docs/results/NAME.md: one file per command, series, kubelet and
# configuration (e.g. kind-v<release>-1-node, e2e-node-v<release>-patched-gate-off),
# so that no run overwrites another's figures and every figure the docs
# cite is a committed file written by the command that measured it. Then
# the README's results table is written again from every such file.
record_result() {
  local name="$1" command="$2" file="docs/results/$1.md"
  [[ "$name" =~ ^[a-z0-9][a-z0-9.-]*$ ]] || die "record_result: bad result name '$name'"
  mkdir -p "$ROOT/docs/results"
  if [ ! -f "$ROOT/$file" ] || ! doc_has_block "$file" result; then
    printf '<!-- result:begin (written by %s; do not edit) -->\n<!-- result:end -->\n' "$command" > "$ROOT/$file"
  fi
  write_doc_block "$file" result
  write_results_table
}

# results_table prints the README's results block: one row per file of
# docs/results, its name (a link), its summary line, and whether the fork's
# kubelet it names is a build of the series as they are now (the release's
# patches, its files and the fork's packages: build_hash) or of an earlier
# state.
results_table() {
  local f name summary build release hash now
  declare -A current=()
  echo "| run | latest result (written by the command that ran it) | its kubelet |"
  echo "| --- | --- | --- |"
  for f in "$ROOT"/docs/results/*.md; do
    [ -e "$f" ] || continue
    name="$(basename "$f" .md)"
    summary="$(sed -n '/^<!-- result:begin/{n;p;q}' "$f")"
    [ -n "$summary" ] || continue
    now="—"
    build="$(grep -oE 'v[0-9]+\.[0-9]+\.[0-9]+(-[a-z]+\.[0-9]+)?-sidecar-kubelet\+[0-9a-f]{12}' <<< "$summary" | head -n1 || true)"
    if [ -n "$build" ]; then
      release="${build%%-sidecar-kubelet+*}" hash="${build##*+}"
      release="${release#v}"
      if [ -z "${current[$release]:-}" ]; then
        current[$release]="$(build_hash_of "$release" 2> /dev/null || true)"
        [ -n "${current[$release]}" ] || current[$release]="unsupported"
      fi
      if [ "${current[$release]}" = "$hash" ]; then
        now="the series as they are"
      elif [ "${current[$release]}" = unsupported ]; then
        now="a release no longer supported"
      else
        now="an earlier build of the series"
      fi
    fi
    summary="${summary//|/\\|}" # a table cell
    printf '| [%s](docs/results/%s.md) | %s | %s |\n' "$name" "$name" "$summary" "$now"
  done
}

# write_results_table writes results_table into the README (make
# docs-results; every command that records a result). make test-docs fails
# while the README's table is not what results_table prints now: a change
# of the series makes the recorded runs earlier builds, and the table says
# so once written again.
write_results_table() {
  readme_has_block results || return 0
  results_table | write_readme_block results
}

# build_hash_of RELEASE prints the build hash (build_hash, its first 12
# digits, as kubelet versions carry it) of RELEASE's series as they are now,
# in a shell of its own, since K8S_VERSION fixes the series a shell works on.
build_hash_of() {
  K8S_VERSION="$1" SERIES_DIR='' bash -c 'source "$1/hack/lib.sh" && build_hash' _ "$ROOT" | cut -c1-12
}

# build_notes [-check] writes (or, with -check, checks) the notes under
# the generated blocks of docs/ that say whether the fork's kubelet each
# block names is a build of the series as they are now (hack/tools/buildnotes):
# the README's results table says as much of every file of docs/results.
build_notes() {
  local m release args=()
  for m in $(supported_minors); do
    release="$(pinned_version "$m")" || die "no pinned release for v$m"
    args+=(-current "$release=$(build_hash_of "$release")")
  done
  (cd "$ROOT/hack/tools" && go run ./buildnotes "$@" "${args[@]}" "$ROOT")
}

# tree_git runs git in the upstream work tree.
tree_git() { git -C "$TREE" "$@"; }

# tree_busy succeeds while a git am, rebase, merge or cherry-pick is under way
# in the work tree.
tree_busy() {
  local d
  for d in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
    [ ! -e "$(tree_git rev-parse --path-format=absolute --git-path "$d")" ] || return 0
  done
  return 1
}

# ginkgo_plain prints ginkgo's output in the file $1 without its colours.
ginkgo_plain() {
  sed 's/\x1b\[[0-9;]*m//g' "$1"
}
# ginkgo_summary prints the last "Ran N of M Specs in S seconds" and
# "SUCCESS!|FAIL! -- ..." lines of ginkgo's output in the file $1 on one
# line, colours removed; GINKGO_SUMMARY_RE matches it, its groups: specs
# run, specs in all, seconds, passed, failed, pending, skipped.
ginkgo_summary() {
  ginkgo_plain "$1" | grep -E '^Ran [0-9]+ of [0-9]+ Specs|^(SUCCESS|FAIL)! -- ' | tail -n2 | tr '\n' ' '
}
# ginkgo_counts prints the counts of ginkgo_summary's line $1 as the
# results pages word them, "R of A specs ran: P passed, F failed, S
# skipped", or nothing when it is not a summary (a suite that did not
# start, or one that was interrupted: the counts of what it ran before are
# not the suite's result). It takes the line, not the log, since its
# callers have read the summary already.
ginkgo_counts() {
  [[ "$1" =~ $GINKGO_SUMMARY_RE ]] || return 0
  printf '%s of %s specs ran: %s passed, %s failed, %s skipped' \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]}" "${BASH_REMATCH[5]}" "${BASH_REMATCH[7]}"
}
# ginkgo_failed_specs prints the specs that ginkgo's output in the file $1
# reports failed, one "- <spec>" line each, colours removed, sorted.
ginkgo_failed_specs() {
  ginkgo_plain "$1" | grep -E '^ *\[FAIL\] ' | sed 's/^ *\[FAIL\] /- /' | sort -u || true
}
# ginkgo_failure_messages prints the message of each failure in ginkgo's
# output in the file $1, one line each, colours removed, cut at 600
# characters: the "[FAILED] <message>" lines, not their "[FAILED] in [It]"
# locations.
ginkgo_failure_messages() {
  ginkgo_plain "$1" | grep -E '^ *\[FAILED\] ' | grep -vE '^ *\[FAILED\] in \[' |
    sed 's/^ *\[FAILED\] /- /' | cut -c1-600 || true
}

# gates_result_suffix prints what KUBELET_FEATURE_GATES adds to the name of
# a run's record in docs/results: "-gate-off" for the fork's gate off,
# "-gate-on" for it on, the other gates lower-cased; nothing without gates.
gates_result_suffix() {
  [ -n "${KUBELET_FEATURE_GATES:-}" ] || return 0
  echo "-$(tr 'A-Z' 'a-z' <<< "$KUBELET_FEATURE_GATES" | sed 's/sidecarcontainerordering=false/gate-off/; s/sidecarcontainerordering=true/gate-on/; s/[^a-z0-9-]\{1,\}/-/g')"
}
GINKGO_SUMMARY_RE='Ran ([0-9]+) of ([0-9]+) Specs in ([0-9.]+) seconds.*-- ([0-9]+) Passed \| ([0-9]+) Failed \| ([0-9]+) Pending \| ([0-9]+) Skipped'

# fork_test_files TREE FROM TO prints the test files the series adds
# between the commits FROM and TO of the work tree TREE that hold Test or
# Fuzz functions, one per line. Only their packages may be tested by name:
# node-e2e-specs.patch adds a file of none to test/e2e_node, whose TestMain
# ignores -run and would start the whole node e2e suite.
fork_test_files() {
  git -C "$1" diff --name-only --diff-filter=A "$2" "$3" -- '*_test.go' |
    (cd "$1" && xargs -r grep -l '^func \(Test\|Fuzz\)[A-Za-z0-9_]*(') || true
}

# go_packages_of prints the import paths of the packages of the work tree's
# files on stdin, once each.
go_packages_of() { xargs -r -n1 dirname | sort -u | sed 's|^|k8s.io/kubernetes/|'; }

# series_patches prints the patch files of the series in order, skipping
# blank lines and comments.
series_patches() {
  [ -f "$SERIES_FILE" ] || die "no series file at $SERIES_FILE (is K8S_VERSION=$K8S_VERSION supported?)"
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$SERIES_FILE" | grep -v '^$' || true
}

# series_hash fingerprints the series: the list and every patch's content.
# It dies (rather than hashing garbage) if the series is incomplete; note that
# die in a $(...) only ends that subshell, so the checks run here, outside the
# pipeline.
series_hash() {
  [ -f "$SERIES_FILE" ] || die "no series file at $SERIES_FILE (is K8S_VERSION=$K8S_VERSION supported?)"
  local p patches
  patches="$(series_patches)"
  for p in $patches; do
    [ -f "$SERIES_DIR/$p" ] || die "series lists $p, but $SERIES_DIR/$p does not exist"
  done
  {
    echo "$K8S_VERSION"
    cat "$SERIES_FILE"
    for p in $patches; do cat "$SERIES_DIR/$p"; done
    # The files the patches name (Fork-File), as this minor has them.
    for p in $patches; do fork_files_of_patch "$SERIES_DIR/$p"; done | while read -r f; do
      echo "$f"
      fork_file_content "$f"
    done
  } | sha256sum | cut -d' ' -f1
}

# build_hash is what the kubelet's version stamp names: the series
# (series_hash, what the import applies and its stamp records) and the
# fork's own packages under kubelet/, which the build takes from this
# repository and which are as much the kubelet as the patches are. The
# import ignores kubelet/, so that editing it beside unexported work in the
# tree does not make the import refuse.
build_hash() {
  {
    series_hash
    (cd "$ROOT" && find kubelet -name '*.go' ! -name '*_test.go' -type f | LC_ALL=C sort | xargs cat)
  } | sha256sum | cut -d' ' -f1
}

# fork_files_of_patch PATCH prints the paths its Fork-File trailers name.
fork_files_of_patch() { sed -n '/^diff --git /q; s/^Fork-File: //p' "$1"; }

# fork_file_content PATH prints the file the fork adds at PATH of upstream's
# tree, as this minor has it: its own ($SERIES_FILES_DIR/PATH), the shared
# one with this minor's diff applied ($SERIES_FILES_DIR/PATH.diff), or the
# shared one ($FORK_FILES_DIR/PATH).
fork_file_content() {
  local path="$1" tmp
  if [ -f "$SERIES_FILES_DIR/$path" ]; then
    cat "$SERIES_FILES_DIR/$path"
  elif [ -f "$SERIES_FILES_DIR/$path.diff" ]; then
    [ -f "$FORK_FILES_DIR/$path" ] || die "$SERIES_FILES_DIR/$path.diff changes kubernetes/$path, which does not exist"
    tmp="$(mktemp -d)"
    cp "$FORK_FILES_DIR/$path" "$tmp/file"
    patch -s --no-backup-if-mismatch -p1 -d "$tmp" -o "$tmp/out" "$tmp/file" < "$SERIES_FILES_DIR/$path.diff" > /dev/null ||
      { rm -rf "$tmp"; die "$SERIES_FILES_DIR/$path.diff does not apply to kubernetes/$path"; }
    cat "$tmp/out"
    rm -rf "$tmp"
  elif [ -f "$FORK_FILES_DIR/$path" ]; then
    cat "$FORK_FILES_DIR/$path"
  else
    die "a patch of $SERIES_DIR names Fork-File $path, but neither kubernetes/$path nor $SERIES_FILES_DIR/$path exists"
  fi
}

# full_patch PATCH prints the patch whole, as git format-patch would give
# it: its changes to upstream's files, then a new-file diff for each file
# it names in a Fork-File trailer (fork_file_content). git am takes it as
# it took the series before the fork's files left the patches, so that a
# rebase's git am session stops and continues as any other.
full_patch() {
  local patch="$1" tmp f
  cat "$patch"
  tmp="$(mktemp -d)"
  while read -r f; do
    [ -n "$f" ] || continue
    mkdir -p "$(dirname "$tmp/$f")"
    fork_file_content "$f" > "$tmp/$f"
    # --no-index diffs /dev/null against the file by its path relative to
    # $tmp, which is its path in upstream's tree.
    (cd "$tmp" && git -c core.quotePath=false diff --no-index --full-index --no-color --no-ext-diff \
      --src-prefix=a/ --dst-prefix=b/ -- /dev/null "$f") || true
  done < <(fork_files_of_patch "$patch")
  rm -rf "$tmp"
}

# write_fork_file PATH SOURCE keeps SOURCE as this minor's file at PATH of
# upstream's tree: as the shared file on the default minor, else as a diff
# from the shared file (nothing when they are equal), or whole when no
# shared file exists. It prints where it went when that changed.
write_fork_file() {
  local path="$1" src="$2" tmp
  if [ "$K8S_MINOR" = "$(default_minor)" ]; then
    rm -f "$SERIES_FILES_DIR/$path" "$SERIES_FILES_DIR/$path.diff"
    if ! cmp -s "$src" "$FORK_FILES_DIR/$path"; then
      mkdir -p "$(dirname "$FORK_FILES_DIR/$path")"
      cp "$src" "$FORK_FILES_DIR/$path"
      echo "kubernetes/$path"
    fi
    return 0
  fi
  if [ ! -f "$FORK_FILES_DIR/$path" ]; then
    rm -f "$SERIES_FILES_DIR/$path.diff"
    if ! cmp -s "$src" "$SERIES_FILES_DIR/$path"; then
      mkdir -p "$(dirname "$SERIES_FILES_DIR/$path")"
      cp "$src" "$SERIES_FILES_DIR/$path"
      echo "${SERIES_FILES_DIR#"$ROOT"/}/$path"
    fi
    return 0
  fi
  rm -f "$SERIES_FILES_DIR/$path"
  if cmp -s "$src" "$FORK_FILES_DIR/$path"; then
    [ ! -f "$SERIES_FILES_DIR/$path.diff" ] || { rm -f "$SERIES_FILES_DIR/$path.diff"; echo "${SERIES_FILES_DIR#"$ROOT"/}/$path.diff (removed)"; }
    return 0
  fi
  tmp="$(mktemp)"
  diff -u --label "a/$path" --label "b/$path" "$FORK_FILES_DIR/$path" "$src" > "$tmp" || true
  if ! cmp -s "$tmp" "$SERIES_FILES_DIR/$path.diff"; then
    mkdir -p "$(dirname "$SERIES_FILES_DIR/$path")"
    cp "$tmp" "$SERIES_FILES_DIR/$path.diff"
    echo "${SERIES_FILES_DIR#"$ROOT"/}/$path.diff"
  fi
  rm -f "$tmp"
}


# version_stamp sets VERSION (v<release>-sidecar-kubelet+<series hash>),
# TREE_COMMIT, TREE_STATUS, TREE_STATE, TREE_EDITS (a hash of the
# uncommitted edits, for fingerprints) and VERSION_LDFLAGS, the -X flags that
# stamp it into a Kubernetes binary the way upstream's hack/lib/version.sh
# does (buildDate is left to the caller: add_version_ldflag buildDate ...).
version_stamp() {
  VERSION="v$K8S_VERSION-sidecar-kubelet+$(build_hash | cut -c1-12)"
  TREE_COMMIT="$(tree_git rev-parse HEAD)"
  TREE_STATUS="$(tree_git status --porcelain)"
  TREE_STATE=clean TREE_EDITS=""
  if [ -n "$TREE_STATUS" ]; then
    TREE_STATE=dirty
    # What the uncommitted edits are, not only which files they touch: a
    # second edit of a file already modified must rebuild too.
    TREE_EDITS="$({ tree_git diff HEAD --binary; tree_git ls-files -o --exclude-standard -z | (cd "$TREE" && xargs -0 -r sha256sum); } | sha256sum | cut -d' ' -f1)"
  fi
  [[ "$VERSION" =~ ^v([0-9]+)\.([0-9]+)(\.[0-9]+)?(-[^+]*)?(\+.*)?$ ]] || die "bad version $VERSION"
  VERSION_LDFLAGS=()
  add_version_ldflag gitVersion "$VERSION"
  add_version_ldflag gitMajor "${BASH_REMATCH[1]}"
  # Same rule as upstream: a pre-release suffix adds "+" to the minor.
  add_version_ldflag gitMinor "${BASH_REMATCH[2]}${BASH_REMATCH[4]:++}"
  add_version_ldflag gitCommit "$TREE_COMMIT"
  add_version_ldflag gitTreeState "$TREE_STATE"
}
add_version_ldflag() {
  VERSION_LDFLAGS+=("-X k8s.io/client-go/pkg/version.$1=$2" "-X k8s.io/component-base/version.$1=$2")
}

# --- the build cache: one stamp per output, for every build step -----------------
# A build step keeps the key of the inputs its output was built from in a
# stamp beside it (<output>.fingerprint, or a group's stamp). The step lists
# its inputs as text (its own fingerprint function: which inputs matter is
# the step's knowledge), cache_key digests that text, and the step builds
# only when cache_fresh says the stamp holds another key. The stamp is
# forgotten before the output is replaced and recorded after, so that an
# interrupted step builds again.

# cache_key digests the inputs' description read on stdin.
cache_key() { sha256sum | cut -d' ' -f1; }

# cache_hash_files DIR PATH... [TEST...] prints one sha256sum line per
# regular file that find selects from the PATHs under DIR (a test with -o
# goes in parentheses), sorted by its path relative to DIR.
cache_hash_files() {
  local dir="$1"
  shift
  (cd "$dir" && find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# cache_hash_fork_module prints the inputs of this repository's Go module
# that a kubelet build links (kubelet/): every .go file the compiler would
# see, tracked or not (tests cannot change a binary), and go.mod, go.sum.
cache_hash_fork_module() (
  cd "$ROOT"
  cache_hash_files . kubelet -name '*.go' ! -name '*_test.go'
  sha256sum go.mod
  [ ! -f go.sum ] || sha256sum go.sum
)

# cache_fresh STAMP KEY [OUTPUT...] succeeds when every OUTPUT exists and
# STAMP holds KEY.
cache_fresh() {
  local stamp="$1" key="$2" f
  shift 2
  for f in "$@"; do [ -e "$f" ] || return 1; done
  [ "$(cat "$stamp" 2> /dev/null || true)" = "$key" ]
}

# cache_record STAMP KEY writes STAMP, once the output is in place.
cache_record() { echo "$2" > "$1.tmp" && mv "$1.tmp" "$1"; }

# cache_forget STAMP, before the output is replaced.
cache_forget() { rm -f "$1"; }

# build_kubelet WHAT OUT VERSION FINGERPRINT MODULE_DIR LDFLAGS builds
# k8s.io/kubernetes/cmd/kubelet of the build module MODULE_DIR into OUT,
# linked with LDFLAGS, unless OUT is there and OUT.fingerprint holds
# FINGERPRINT (a digest of every input, which the caller knows: a no-op go
# build of the kubelet still takes tens of seconds to check and relink).
# The new binary must report VERSION (a mistyped -X is silently ignored by
# the linker); it replaces OUT only then, and its fingerprint after it.
# WHAT names it in the log ("the kubelet vX.Y.Z-...").
build_kubelet() (
  set -e
  local what="$1" out="$2" version="$3" fingerprint="$4" module_dir="$5" ldflags="$6" tmp got start=$SECONDS
  if cache_fresh "$out.fingerprint" "$fingerprint" "$out"; then
    log "up to date: $out"
    return 0
  fi
  mkdir -p "$(dirname "$out")"
  tmp="$(mktemp "$(dirname "$out")/.$(basename "$out").XXXXXX")"
  trap 'rm -f "$tmp"' EXIT
  log "building $what"
  go_build() { (cd "$module_dir" && GOFLAGS=-mod=mod go build -o "$tmp" -ldflags "$ldflags" k8s.io/kubernetes/cmd/kubelet); }
  with_progress "building $what" go_build
  got="$("$tmp" --version 2>&1 || true)"
  [ "$got" = "Kubernetes $version" ] || die "the built kubelet reports '$got', expected 'Kubernetes $version'"
  cache_forget "$out.fingerprint"
  mv "$tmp" "$out"
  cache_record "$out.fingerprint" "$fingerprint"
  log "built $out ($version) in $((SECONDS - start))s"
)

# build_tool NAME builds hack/tools/NAME into $BIN_DIR/NAME (go's build
# cache makes that quick when nothing changed).
build_tool() {
  mkdir -p "$BIN_DIR"
  (cd "$ROOT/hack/tools" && go build -o "$BIN_DIR/$1" "./$1") || die "cannot build hack/tools/$1"
}

# clusterconfig runs hack/tools/clusterconfig, which writes the node's
# configuration files from typed values and knows the kubelet's default
# gates by release (the local cluster's and kind's). It is built the first
# time a script calls it, so that a config is never written by a stale
# binary.
clusterconfig() {
  if [ "${_clusterconfig_built:-}" != "$BIN_DIR/clusterconfig" ]; then
    build_tool clusterconfig
    _clusterconfig_built="$BIN_DIR/clusterconfig"
  fi
  "$BIN_DIR/clusterconfig" "$@"
}

# --- the parts -----------------------------------------------------------------------
source "$ROOT/hack/lib/node.sh"
source "$ROOT/hack/lib/cluster.sh"
source "$ROOT/hack/lib/kind.sh"
