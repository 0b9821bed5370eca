#!/usr/bin/env bash
# make bench: sidecar ordering measured on the local cluster (make up first),
# the fork against native sidecars, the postStart-hook workaround and the
# unpatched kubelet of the same release, plus the computePodActions Go
# benchmark of the patched tree against the pristine one. See bench/ and the
# README's Benchmarks section.
#
#   1. BenchmarkComputePodActions, both trees, runs interleaved: built
#      first, run once the machine is quiet, before any pod
#   2. the fork's kubelet (make kubelet-restart): the fork/* ways
#   3. the unpatched kubelet (KUBELET_BIN=_output/vX.Y.Z/bin/kubelet-upstream):
#      the upstream/* ways
#   4. the fork's kubelet again (also when the run fails or is interrupted)
#   5. after the ways of each kubelet, bench probe-rate: N pods at once, each
#      with one sidecar that never turns ready, and the kubelet's probe runs
#      per second (periodic and extra) while they all wait; then bench
#      chain: pods of 20 sidecars started one after another, each waited on
#      through an exec probe at periodSeconds 10, one pod at a time; and
#      bench never-ready: sidecars that stay not ready for their first
#      minute, a few that turn ready late, and fresh pods created meanwhile
#      whose sidecars must still be seen ready promptly
#   6. then bench density, the kubelets taking turns N by N (fork,
#      upstream, upstream, fork, ...: bench density-turns), each restarted
#      for its turn: for each N of BENCH_DENSITY, N pods at once, each
#      with one sidecar its app waits for (ready after 0.5 to 3 s): the time
#      to all Ready, a', the probe runs per second, and what the whole node
#      spends per pod: the CPU of the kubelet, containerd with its shims and
#      runc, kube-apiserver and etcd (each from the cpuacct cgroup up.sh
#      starts it in, SERVE_CGROUP in hack/lib/cluster.sh), the host's
#      TIME_WAIT sockets and the API server's requests; every run's pods
#      gone, and their stopped containers and sandboxes removed (the
#      benchmark does at once what the kubelet's garbage collection does
#      once a minute), before the next
#   7. BENCH_GATES: the ways again on both kubelets with those gates
#   8. bench report: report.md, goals.md, samples.json, probe-rates.json,
#      density.json, timeline-*.svg, aprime.svg, density-*.svg; into
#      docs/bench only, bench figures: the figures docs/benchmarks.md
#      quotes, into its generated blocks (hack/bench/docs-figures.sh)
#
# Env:
#   BENCH_REPEAT=N   repeats of every pod of every way (default 2; 8 gives
#                    32 samples for b, d and e). Each repeat of a way runs
#                    BENCH_PARALLEL lanes, each a Job pod and service pods
#                    with 1, 3 and 5 sidecars, then a pod whose container
#                    the benchmark stops itself (c's floor, under the same
#                    load). n per way = BENCH_REPEAT x BENCH_PARALLEL for b,
#                    d, e and c's floor, x 4 for a, a1 and a', x 3 for c.
#                    The default run's time is in docs/bench/report.md.
#   BENCH_PARALLEL=P lanes of a way that run at once (default 4, for 8
#                    samples of every scenario in one default run). The
#                    lanes share the 2 cores: every way's figures are a bit
#                    longer than one pod at a time gives (2026-11-23: a'
#                    p95 70 to 90 ms, a1's and c's p95 20 to 60 ms longer
#                    with 4 lanes than with 1), alike for all ways, which
#                    run one after the other; BENCH_PARALLEL=1 measures one
#                    pod at a time
#   BENCH_WAYS=...   comma-separated ways (default: all, see
#                    bench/results/ways.go; none: only the probe-rate,
#                    density, chain and never-ready runs)
#   BENCH_FORK_KUBELET=path  the fork's kubelet to measure (default the
#                    built one, _output/vX.Y.Z/bin/kubelet), e.g. a build
#                    of an earlier series; the cluster gets the built one
#                    back at the end
#   BENCH_PROBE_RATE_PODS=N  waiting sidecars of the probe-rate runs (default
#                    50; 0 skips them); BENCH_PROBE_RATE_WAYS=... their ways
#                    (default fork/annotated, fork/native-wait-ready,
#                    fork/no-sidecars, upstream/native-startup);
#                    BENCH_PROBE_RATE_EXEC_WAYS=... the ways that run again
#                    with exec probes asking the same /ready (default
#                    fork/annotated, fork/no-sidecars: the report divides
#                    the CPU the extra checks add by their number, what
#                    one extra exec check costs the kubelet and the
#                    runtime; "" skips them); BENCH_PROBE_RATE_EXEC_PODS=N
#                    their waiting sidecars (default 20: 50 sidecars'
#                    periodic exec probes, one a second each, saturated
#                    the 2-core node until the kubelet's /metrics timed
#                    out)
#   BENCH_DENSITY=N,...  pods created at once in the density runs (default
#                    10,30; 10,30,100,110 is the full list: 110 is the
#                    node's maxPods, the kubelet's default, and the local
#                    cluster runs no other pod; bench density refuses an N
#                    the node has no room for; 0 or empty skips them).
#                    Each way runs BENCH_DENSITY_RUNS times (default 3) at
#                    each N, the ways taking turns, the kubelets N by N
#                    (bench density-turns); the default list adds about 15
#                    minutes on 2 cores (42 runs of 10 or 30 pods, each the
#                    pods' start, their deletion, the removal of their
#                    containers and the node's settling, plus a restart, a
#                    warm-up run and 8 s of idle per kubelet's turn, nine
#                    turns for three runs of two N); 100 pods add about as
#                    much again per way.
#                    On a slower 2-core machine (the runtime 2 s of CPU a
#                    pod) 110 pods took 225 s to be Ready and over 3
#                    minutes to go: bench density waits 4 s a pod for
#                    each, at least 4 minutes (its -timeout).
#                    BENCH_DENSITY_WAYS=... their ways (default
#                    fork/annotated, fork/annotated-p10,
#                    fork/native-wait-ready, fork/native-wait-ready-p10,
#                    fork/poststart, fork/no-sidecars,
#                    upstream/native-startup: the goals
#                    compare these); BENCH_DENSITY_SEED=S the seed of the
#                    sidecars' ready delays (default 28: every run the same)
#   BENCH_RECLAIM=1  before each density run, drop the host's page cache
#                    (drop_caches 3; needs root, and touches the whole
#                    host, so off by default): each run of pods leaves
#                    hundreds of dying memory cgroups, held by the page
#                    cache charged to them, and a host with thousands
#                    starts containers slower, so a long run drifts from
#                    its first runs to its last and the paired ratios read
#                    the drift. It drops it too before each kubelet's
#                    turn of the ways (a to e, and again with BENCH_GATES),
#                    which follow runs of pods as well. The reference runs
#                    set it; the report gives the memory cgroups at the
#                    density runs' starts either way
#   BENCH_GATES=Gate=bool,...  a second configuration of both kubelets,
#                    e.g. EventedPLEG=true (alpha, off by default): the
#                    ways (a, b, c, e) run again with these gates added,
#                    after the runs on upstream's defaults, and the goals
#                    table gets a column beside the defaults' (never the
#                    headline: the defaults are what users run). The
#                    probe-rate and density runs are on the defaults only.
#                    Doubles the ways' time
#   BENCH_SCRATCH=1  measure even on a busy machine. Before measuring, make
#                    bench waits up to BENCH_QUIET_WAIT seconds (600) for
#                    the 1- and 5-minute load averages to fall to 1.5 or
#                    below with no compiler or linker of another build
#                    running, and
#                    watches for such processes until the pods' runs end;
#                    a busy machine makes the run a scratch run, which may
#                    not write the committed report (docs/bench, the
#                    README's verdicts): without BENCH_SCRATCH=1 it stops
#                    at once, with it (and BENCH_OUT elsewhere) its report
#                    says it is a scratch run. BENCH_REPORT_FROM writes
#                    docs/bench only from a run recorded as quiet
#   BENCH_CHAIN=0    skip the exec chains (bench chain): pods of
#                    BENCH_CHAIN_SIDECARS sidecars (default 20) and one app,
#                    each sidecar ready 0.5 s after its start and waited on
#                    through an exec probe left at periodSeconds 10, one pod
#                    at a time, BENCH_CHAIN_REPEAT pods a way (default 2);
#                    BENCH_CHAIN_WAYS=... (default fork/annotated,
#                    fork/native-wait-ready, fork/poststart,
#                    upstream/native-startup). Upstream's native sidecars
#                    wait for their startup probe's period, 10 s, per
#                    sidecar: over 3 minutes a pod of 20
#   BENCH_NEVER_READY=0  skip the never-ready runs (bench never-ready): per
#                    way, BENCH_NEVER_READY_PODS pods (default 10) whose
#                    sidecar never turns ready, and one more for each delay
#                    of BENCH_NEVER_READY_LATE (default 15s,30s,45s; "":
#                    none) whose sidecar turns ready after it, all created
#                    at once and followed for the sidecars' first minute
#                    and 2 s more; meanwhile one fresh pod at each time of
#                    BENCH_NEVER_READY_FRESH (default 15s,30s,45s after the
#                    others), whose sidecar turns ready 1 s after its start:
#                    the goal's a′; BENCH_NEVER_READY_WAYS=... (default
#                    fork/annotated-p10, fork/native-wait-ready-p10,
#                    upstream/native-startup)
#   BENCH_GO=0       skip the Go benchmark; BENCH_GO_COUNT=N runs of it per
#                    tree (default 10, as benchstat advises: the trees are
#                    compared by the Mann-Whitney U test,
#                    bench/report/gostats.go)
#   BENCH_OUT=dir    where the report goes (default docs/bench)
#   BENCH_REPORT_FROM=_output/bench/<time>  measure nothing: write that
#                    run's report again from its raw files, with the
#                    bench program as it is now (a fix of the report's code)
#   CLUSTER_INSTANCE=N  the cluster to run on (hack/lib/cluster.sh)
#   BENCH_EVICTION_HARD the kubelet's hard eviction thresholds while it
#                    measures (default: memory 100Mi, disks 2%, so that a
#                    disk shared with builds does not taint the node; image
#                    garbage collection is off too, since the test image
#                    cannot be pulled again; the last restart brings the
#                    cluster's own settings back)
# The raw files of every run stay in _output/bench/<time>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster_settings
started=$SECONDS

# BENCH_REPORT_FROM=DIR: measure nothing; write the report of the run whose
# raw files are in DIR (_output/bench/<time>) again, with the bench program
# as it is now, into BENCH_OUT and the README, as that run did.
report_from="${BENCH_REPORT_FROM:-}"
if [ -z "$report_from" ]; then
  [ "$(id -u)" = 0 ] || die "the local cluster runs as root"
  for c in kube-apiserver containerd kubelet; do
    proc_pid "$c" > /dev/null || die "the local cluster is not up ($c is not running): run make up${CLUSTER_SUFFIX:+ CLUSTER_INSTANCE=$CLUSTER_INSTANCE}"
  done
fi
repeat="${BENCH_REPEAT:-2}"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive integer, not '$repeat'"
go_count="${BENCH_GO_COUNT:-10}"
[[ "$go_count" =~ ^[1-9][0-9]*$ ]] || die "BENCH_GO_COUNT must be a positive integer, not '$go_count'"
out="${BENCH_OUT:-$ROOT/docs/bench}"
parallel="${BENCH_PARALLEL:-4}"
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || die "BENCH_PARALLEL must be a positive integer, not '$parallel'"
all_ways="fork/annotated,fork/annotated-p10,fork/native-startup,fork/native-wait-ready,fork/native-wait-ready-p10"
all_ways+=",fork/poststart,fork/poststart-p10,fork/no-sidecars,upstream/native-startup,upstream/no-sidecars"
ways="${BENCH_WAYS:-$all_ways}"
[ "$ways" != none ] || ways="" # BENCH_WAYS=none: only the probe-rate and density runs
rate_pods="${BENCH_PROBE_RATE_PODS:-50}"
[[ "$rate_pods" =~ ^[0-9]+$ ]] || die "BENCH_PROBE_RATE_PODS must be a number, not '$rate_pods'"
rate_ways="${BENCH_PROBE_RATE_WAYS:-fork/annotated,fork/native-wait-ready,fork/no-sidecars,upstream/native-startup}"
rate_exec_ways="${BENCH_PROBE_RATE_EXEC_WAYS-fork/annotated,fork/no-sidecars}"
rate_exec_pods="${BENCH_PROBE_RATE_EXEC_PODS:-20}"
[[ "$rate_exec_pods" =~ ^[0-9]+$ ]] || die "BENCH_PROBE_RATE_EXEC_PODS must be a number, not '$rate_exec_pods'"
[ "$rate_pods" != 0 ] || rate_ways="" rate_exec_ways=""
[ "$rate_exec_pods" != 0 ] || rate_exec_ways=""
density="${BENCH_DENSITY-10,30}" # set and empty: no density runs
[[ "$density" =~ ^(0|[1-9][0-9]*(,[1-9][0-9]*)*)?$ ]] || die "BENCH_DENSITY must be a comma-separated list of pod counts (or 0), not '$density'"
[ "$density" != 0 ] || density=""
[ -z "$(tr ',' '\n' <<< "$density" | sort | uniq -d)" ] || die "BENCH_DENSITY names a pod count twice: '$density'"
density_runs="${BENCH_DENSITY_RUNS:-3}"
[[ "$density_runs" =~ ^[1-9][0-9]*$ ]] || die "BENCH_DENSITY_RUNS must be a positive integer, not '$density_runs'"
density_seed="${BENCH_DENSITY_SEED:-28}"
[[ "$density_seed" =~ ^[0-9]+$ ]] || die "BENCH_DENSITY_SEED must be a number, not '$density_seed'"
bench_gates="${BENCH_GATES:-}"
[[ -z "$bench_gates" || "$bench_gates" =~ ^[A-Za-z0-9]+=(true|false)(,[A-Za-z0-9]+=(true|false))*$ ]] ||
  die "BENCH_GATES must be Gate=true|false,..., not '$bench_gates'"
scratch="${BENCH_SCRATCH:-0}"
[[ "$scratch" =~ ^[01]$ ]] || die "BENCH_SCRATCH must be 0 or 1, not '$scratch'"
reclaim="${BENCH_RECLAIM:-0}"
[[ "$reclaim" =~ ^[01]$ ]] || die "BENCH_RECLAIM must be 0 or 1, not '$reclaim'"
[ "$reclaim" = 0 ] || [ "$(id -u)" = 0 ] || die "BENCH_RECLAIM=1 drops the host's page cache, which needs root"
quiet_wait="${BENCH_QUIET_WAIT:-600}"
[[ "$quiet_wait" =~ ^[0-9]+$ ]] || die "BENCH_QUIET_WAIT must be a number of seconds, not '$quiet_wait'"
committed=0
[ "$out" != "$ROOT/docs/bench" ] || committed=1
density_ways="${BENCH_DENSITY_WAYS:-fork/annotated,fork/annotated-p10,fork/native-wait-ready,fork/native-wait-ready-p10,fork/poststart,fork/no-sidecars,upstream/native-startup}"
[ -n "$density" ] || density_ways=""
chain="${BENCH_CHAIN:-1}"
chain_sidecars="${BENCH_CHAIN_SIDECARS:-20}"
[[ "$chain_sidecars" =~ ^[1-9][0-9]?$ ]] || die "BENCH_CHAIN_SIDECARS must be 1 to 99, not '$chain_sidecars'"
chain_repeat="${BENCH_CHAIN_REPEAT:-2}"
[[ "$chain_repeat" =~ ^[1-9][0-9]*$ ]] || die "BENCH_CHAIN_REPEAT must be a positive integer, not '$chain_repeat'"
chain_ways="${BENCH_CHAIN_WAYS:-fork/annotated,fork/native-wait-ready,fork/poststart,upstream/native-startup}"
[ "$chain" != 0 ] || chain_ways=""
never_ready="${BENCH_NEVER_READY:-1}"
never_pods="${BENCH_NEVER_READY_PODS:-10}"
[[ "$never_pods" =~ ^[1-9][0-9]*$ ]] || die "BENCH_NEVER_READY_PODS must be a positive integer, not '$never_pods'"
never_late="${BENCH_NEVER_READY_LATE-15s,30s,45s}"
never_fresh="${BENCH_NEVER_READY_FRESH-15s,30s,45s}"
never_ways="${BENCH_NEVER_READY_WAYS:-fork/annotated-p10,fork/native-wait-ready-p10,upstream/native-startup}"
[ "$never_ready" != 0 ] || never_ways=""
fork_ways="$(tr ',' '\n' <<< "$ways" | grep '^fork/' | paste -sd, || true)"
upstream_ways="$(tr ',' '\n' <<< "$ways" | grep '^upstream/' | paste -sd, || true)"
fork_rate_ways="$(tr ',' '\n' <<< "$rate_ways" | grep '^fork/' | paste -sd, || true)"
fork_rate_exec_ways="$(tr ',' '\n' <<< "$rate_exec_ways" | grep '^fork/' | paste -sd, || true)"
[ "$fork_rate_exec_ways" = "$rate_exec_ways" ] || die "BENCH_PROBE_RATE_EXEC_WAYS=$rate_exec_ways: only fork/ ways (what an extra check costs is the fork's)"
upstream_rate_ways="$(tr ',' '\n' <<< "$rate_ways" | grep '^upstream/' | paste -sd, || true)"
fork_density_ways="$(tr ',' '\n' <<< "$density_ways" | grep '^fork/' | paste -sd, || true)"
upstream_density_ways="$(tr ',' '\n' <<< "$density_ways" | grep '^upstream/' | paste -sd, || true)"
fork_chain_ways="$(tr ',' '\n' <<< "$chain_ways" | grep '^fork/' | paste -sd, || true)"
upstream_chain_ways="$(tr ',' '\n' <<< "$chain_ways" | grep '^upstream/' | paste -sd, || true)"
fork_never_ways="$(tr ',' '\n' <<< "$never_ways" | grep '^fork/' | paste -sd, || true)"
upstream_never_ways="$(tr ',' '\n' <<< "$never_ways" | grep '^upstream/' | paste -sd, || true)"

if [ -z "$report_from" ]; then # the measuring, to the report below
# What it needs: both kubelets, the test server image, the bench program.
"$ROOT/hack/patches/build-kubelet.sh"
[ -z "$upstream_ways$upstream_rate_ways$upstream_density_ways$upstream_chain_ways$upstream_never_ways" ] || "$ROOT/hack/patches/build-kubelet-upstream.sh"
"$ROOT/hack/images/build.sh"
work="$OUTPUT/bench/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$work"
(cd "$ROOT" && go build -o "$work/bench" ./bench)
# A changed image is imported by cluster/up.sh, which leaves the rest alone.
"$ROOT/hack/cluster/up.sh" > "$work/cluster-up.log" 2>&1 || { cat "$work/cluster-up.log" >&2; die "hack/cluster/up.sh failed"; }

# An image garbage-collected by a kubelet (disk use over 85%) is gone for
# good (no registry), while cluster/up.sh's stamp says it was imported.
# (The list is read whole first: grep -q quitting early would make ctr die
# of SIGPIPE, which pipefail reports as a missing image.)
images="$(ctr -n k8s.io images ls -q)"
for image in testserver pause; do
  grep -qx "sidecar-kubelet.local/$image:1" <<< "$images" ||
    { log "importing $image again"; ctr -n k8s.io images import "$IMAGES_DIR/$image.tar" > /dev/null; }
done

# --- BenchmarkComputePodActions, patched against upstream -----------------------
# Its test binaries are built here, before the wait for a quiet machine (a
# build of its own would be taken for another's), and run right after it,
# before any pod: a microbenchmark run after the pods' runs ran while the
# node still worked off their load (2026-11-28: +15.7% at a 15-minute load
# of 36.9, where a quiet run found no difference).
gobench_args=()
if [ "${BENCH_GO:-1}" != 0 ]; then
  up_tree="$BUILD_DIR/upstream/kubernetes"
  [ -d "$up_tree" ] || "$ROOT/hack/patches/build-kubelet-upstream.sh"
  # The benchmark is in the start patch's tests, with the two helpers it
  # takes from the minor's harness seam; the pristine tree gets the same
  # functions in a file of its own while its test binary is built.
  src="$TREE/pkg/kubelet/kuberuntime/kuberuntime_sidecar_start_test.go"
  seam="$TREE/pkg/kubelet/kuberuntime/kuberuntime_sidecar_harness_test.go"
  grep -q '^func BenchmarkComputePodActions' "$src" || die "no BenchmarkComputePodActions in $src"
  for f in newBenchmarkRuntimeManager initializeActuatedPod; do
    grep -q "^func $f(" "$seam" || die "no $f in $seam"
  done
  gobench_file="$up_tree/pkg/kubelet/kuberuntime/zz_bench_computepodactions_test.go"
  {
    sed -n '1,/^\*\/$/p' "$src"
    cat << 'EOF'

package kuberuntime

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

EOF
    sed -n '/^\/\/ BenchmarkComputePodActions/,/^}/p' "$src"
    echo
    sed -n '/^\/\/ newBenchmarkRuntimeManager/,/^}/p' "$seam"
    echo
    sed -n '/^\/\/ initializeActuatedPod/,/^}/p' "$seam"
  } > "$gobench_file"
  log "building the computePodActions benchmark of both trees"
  (cd "$BUILD_DIR" && GOFLAGS=-mod=mod go test -c -o "$work/kuberuntime-patched.test" k8s.io/kubernetes/pkg/kubelet/kuberuntime)
  (cd "$BUILD_DIR/upstream" && GOFLAGS=-mod=mod go test -c -o "$work/kuberuntime-upstream.test" k8s.io/kubernetes/pkg/kubelet/kuberuntime)
  rm -f "$gobench_file"
  gobench_file=""
fi

fork_kubelet="${BENCH_FORK_KUBELET:-$K8S_BIN_DIR/kubelet}"
[ -x "$fork_kubelet" ] || die "BENCH_FORK_KUBELET: no kubelet at $fork_kubelet"
upstream_kubelet="$K8S_BIN_DIR/kubelet-upstream"
eviction="${BENCH_EVICTION_HARD:-$SHARED_DISK_EVICTION_HARD}"
restart_kubelet() { # BINARY
  log "running the kubelet $("$1" --version | cut -d' ' -f2)"
  KUBELET_IMAGE_GC_HIGH=100 KUBELET_EVICTION_HARD="$eviction" KUBELET_BIN="$1" "$ROOT/hack/kubelet-restart.sh" > "$work/kubelet-restart.log" 2>&1 ||
    { cat "$work/kubelet-restart.log" >&2; die "kubelet-restart.sh failed"; }
  # "... (Kubernetes vX, pid N, feature gates: A:true,B:true) in Ns"; the
  # density runs restart each kubelet for every turn: one line per
  # kubelet and configuration.
  local gates
  gates="$(sed -n 's/.*feature gates: \(.*\)) in [0-9]*s$/\1/p' "$work/kubelet-restart.log" | tail -1)"
  [ -n "$gates" ] || gates="upstream's defaults"
  gates="Feature gates of the kubelet $("$1" --version | cut -d' ' -f2): $gates."
  grep -qxF "$gates" "$work/meta.md" 2> /dev/null || echo "$gates" >> "$work/meta.md"
}
current_kubelet=""
gobench_file=""
busy_watcher=""
cleanup() {
  local rc=$?
  [ -z "$busy_watcher" ] || kill "$busy_watcher" 2> /dev/null || true
  [ -z "$gobench_file" ] || rm -f "$gobench_file"
  if [ -n "$current_kubelet" ]; then
    log "back to the fork's kubelet with the cluster's own settings"
    KUBELET_BIN="$K8S_BIN_DIR/kubelet" "$ROOT/hack/kubelet-restart.sh" > "$work/kubelet-restart.log" 2>&1 ||
      log "could not restart the fork's kubelet: see $work/kubelet-restart.log"
  fi
  kctl delete namespace sk-bench --wait=false > /dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
# The host's memory cgroups: a removed container's stays, dead, while page
# cache is charged to it (cgroup v1), thousands after a day of runs; a
# condition of the machine that the meta records beside the load, read by
# the parser bench density records its runs' counts with.
memory_cgroups() { "$work/bench" memory-cgroups 2> /dev/null || echo "?"; }
# build_pids prints the pids of compilers and linkers running, comma-
# separated (pgrep matches a name of at most 15 characters, so one name at
# a time).
build_pids() {
  local n
  for n in compile link asm cgo cc1 cc1plus ld; do pgrep -x "$n" || true; done | paste -sd,
}
# busy_reason prints why the machine is not quiet enough for reference
# figures, or nothing: the 1-minute load average over 1.5 (with 2 cores,
# most of one core taken by something else), the 5-minute one over 1.5 (the
# machine is still settling from work that just ended: a build, or the pods
# of a run before: docs/bench/full-node-yield-look started at 1-minute load
# 1.44 and 5-minute 5.55, and both its ways were later than on a settled
# machine), or a compiler or linker of another build (the pods' runs start
# none of their own).
busy_reason() {
  local load1 load5 builds
  read -r load1 load5 _ < /proc/loadavg
  builds="$(build_pids)"
  if [ -n "$builds" ]; then
    echo "compiler or linker processes of another build are running (pids $builds)"
  elif awk -v l="$load1" 'BEGIN { exit !(l > 1.5) }'; then
    echo "the 1-minute load average is $load1 (over 1.5)"
  elif awk -v l="$load5" 'BEGIN { exit !(l > 1.5) }'; then
    echo "the 5-minute load average is $load5 (over 1.5): the machine is still settling from earlier work"
  fi
}
busy=""
if [ -z "$report_from" ]; then
  waited=0
  while busy="$(busy_reason)" && [ -n "$busy" ] && [ "$waited" -lt "$quiet_wait" ]; do
    [ "$waited" != 0 ] || log "waiting up to ${quiet_wait}s for a quiet machine: $busy"
    sleep 5
    waited=$((waited + 5))
  done
  if [ -n "$busy" ]; then
    [ "$committed" = 0 ] || [ "$scratch" = 1 ] || die "the machine is busy: $busy. Reference figures come only from a quiet machine: stop the other work and run again, or BENCH_SCRATCH=1 BENCH_OUT=dir for a scratch run"
    [ "$committed" = 0 ] || die "BENCH_SCRATCH=1 writes no committed report: give it BENCH_OUT=dir"
    log "a scratch run: $busy"
  fi
fi
{
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), \`make bench\` with BENCH_REPEAT=$repeat, BENCH_PARALLEL=$parallel and BENCH_DENSITY=${density:-0}, on $(nproc) cores"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)),"
  echo "Linux $(uname -r), containerd $CONTAINERD_VERSION, runc $(runc --version | awk 'NR==1 {print $3}'), cgroup v1/v2 hybrid."
  echo "Kubelets: fork $("$fork_kubelet" --version | cut -d' ' -f2), upstream $("$upstream_kubelet" --version 2> /dev/null | cut -d' ' -f2 || echo -)."
  echo "Load average (1, 5, 15 min) at the start: $(load); $(pgrep -c -x compile || true) Go compiler processes of other builds were running; $(memory_cgroups) memory cgroups on the host."
  [ "$reclaim" = 0 ] || echo "The host's page cache was dropped before each kubelet's turn of the ways and before each density run (BENCH_RECLAIM=1)."
  if [ -n "$busy" ]; then
    echo "**A scratch run on a busy machine ($busy): not a reference.**"
  else
    echo "The machine was quiet at the start (load ≤ 1.5 over 1 and 5 minutes, no other build)."
  fi
} > "$work/meta.md"
# --- BenchmarkComputePodActions: both trees' binaries, runs interleaved ---------
if [ "${BENCH_GO:-1}" != 0 ]; then
  echo "Load average (1, 5, 15 min) when BenchmarkComputePodActions started: $(load)." >> "$work/meta.md"
  log "running it $go_count times per tree, interleaved"
  for _ in $(seq "$go_count"); do
    for tree in patched upstream; do
      (cd "$work" && "./kuberuntime-$tree.test" -test.run '^$' -test.bench BenchmarkComputePodActions \
        -test.benchtime 20000x -test.benchmem) | sed "s/^/$tree\t/" >> "$work/gobench.txt"
    done
  done
  rm -f "$work"/kuberuntime-*.test
  gobench_args=(-gobench "$work/gobench.txt")
fi

# Another build starting during the pods' runs makes the run a scratch
# run too: a watcher notes the first one it sees.
busy_file="$work/busy-during-run"
rm -f "$busy_file"
(
  while :; do
    b="$(build_pids)"
    [ -z "$b" ] || { echo "compiler or linker processes of another build ran during the pods' runs (pids $b)" > "$busy_file"; exit 0; }
    sleep 2
  done
) &
busy_watcher=$!

samples="$work/samples.jsonl"
segments="$work/segments.jsonl"
rates="$work/probe-rates.jsonl"
densities="$work/density.jsonl"
chains="$work/chain.jsonl"
never_runs="$work/never-ready.jsonl"
touch "$samples" "$segments" # BENCH_WAYS=none: no run of the ways, none of their files
# The kubelet's probe counts come from its own endpoint and its log (--v >= 1
# logs every failed probe run), its CPU time from /proc/<pid>/stat; a kubelet
# restarted by someone else during the run stops it (run again). containerd's
# log says when each StopContainer came and returned (c's parts).
run_ways() { # WAYS [SAMPLES SEGMENTS]
  local pid
  pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  "$work/bench" run -kubeconfig "$ADMIN_KUBECONFIG" -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" \
    -ways "$1" -repeat "$repeat" -parallel "$parallel" -out "${2:-$samples}" -segments "${3:-$segments}" \
    -kubelet-url "https://127.0.0.1:$KUBELET_PORT" -kubelet-pid "$pid" -kubelet-log "$LOG_DIR/kubelet.log" \
    -containerd-log "$LOG_DIR/containerd.log"
}
probe_rate() { # WAYS [HANDLER: http, exec] [PODS]
  local pid handler="${2:-http}" pods="${3:-$rate_pods}" serve_args=()
  pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  mapfile -t serve_args < <(serve_cgroup_args kubelet "$pid")
  log "probe runs with $pods sidecars waiting ($handler probes): $1"
  "$work/bench" probe-rate -kubeconfig "$ADMIN_KUBECONFIG" -kubelet-url "https://127.0.0.1:$KUBELET_PORT" \
    -kubelet-pid "$pid" "${serve_args[@]}" -handler "$handler" -ways "$1" -pods "$pods" -out "$rates"
}
# reclaim_turn drops the host's page cache before a kubelet's turn of the
# ways when BENCH_RECLAIM=1 (bench reclaim), as bench density -reclaim does
# before each of its runs, and logs the memory cgroups it freed.
reclaim_turn() {
  [ "$reclaim" = 1 ] || return 0
  local counts before after
  counts="$("$work/bench" reclaim)" || die "bench reclaim failed"
  read -r before after <<< "$counts"
  log "dropped the host's page cache (BENCH_RECLAIM=1): memory cgroups $before → $after"
}
# The density runs read the CRI (the containers' start times), the pods'
# logs (the sidecars' ready times), the kubelet's and containerd's CPU time
# and, when the components run in their serve cgroups (a cluster started by
# an older up.sh does not: make up restarts them there), every serving
# group's CPU from those.
run_density() { # WAYS RUN NS
  local kubelet_pid containerd_pid serve_args=() reclaim_args=()
  kubelet_pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  containerd_pid="$(proc_pid containerd)" || die "containerd is not running"
  mapfile -t serve_args < <(serve_cgroup_args containerd "$containerd_pid")
  if [ "${#serve_args[@]}" = 0 ]; then
    log "containerd runs outside a serve cgroup: the density runs measure the kubelet and containerd's daemon alone (make up puts them in)"
  fi
  log "density runs with $3 pods at once, run $(($2 + 1)) of $density_runs: $1"
  [ "$reclaim" = 0 ] || reclaim_args=(-reclaim)
  "$work/bench" density -kubeconfig "$ADMIN_KUBECONFIG" -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" \
    -kubelet-url "https://127.0.0.1:$KUBELET_PORT" -kubelet-pid "$kubelet_pid" -containerd-pid "$containerd_pid" "${serve_args[@]}" "${reclaim_args[@]}" \
    -ways "$1" -n "$3" -first-run "$2" -runs 1 -seed "$density_seed" -out "$densities"
}
# The exec chains (one pod at a time, each sidecar after the previous one's
# readiness) and the never-ready sidecars (their first minute): the CRI's
# times and the sidecars' logs, and for the latter the kubelet's counters.
run_chain() { # WAYS
  log "exec chains of $chain_sidecars sidecars, $chain_repeat pods a way: $1"
  "$work/bench" chain -kubeconfig "$ADMIN_KUBECONFIG" -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" \
    -ways "$1" -sidecars "$chain_sidecars" -repeat "$chain_repeat" -out "$chains"
}
run_never_ready() { # WAYS
  log "$never_pods never-ready sidecars a way, late ones after ${never_late:-none}, fresh pods at ${never_fresh:-none}: $1"
  "$work/bench" never-ready -kubeconfig "$ADMIN_KUBECONFIG" -kubelet-url "https://127.0.0.1:$KUBELET_PORT" \
    -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" -ways "$1" -pods "$never_pods" -late "$never_late" -fresh "$never_fresh" -out "$never_runs"
}
if [ -n "$fork_ways$fork_rate_ways$fork_rate_exec_ways$fork_chain_ways$fork_never_ways" ]; then
  reclaim_turn
  current_kubelet="$fork_kubelet"
  restart_kubelet "$fork_kubelet"
  if [ -n "$fork_ways" ]; then
    log "measuring $fork_ways ($repeat repeats, $parallel lanes)"
    run_ways "$fork_ways"
  fi
  [ -z "$fork_rate_ways" ] || probe_rate "$fork_rate_ways"
  [ -z "$fork_rate_exec_ways" ] || probe_rate "$fork_rate_exec_ways" exec "$rate_exec_pods"
  [ -z "$fork_chain_ways" ] || run_chain "$fork_chain_ways"
  [ -z "$fork_never_ways" ] || run_never_ready "$fork_never_ways"
fi
if [ -n "$upstream_ways$upstream_rate_ways$upstream_chain_ways$upstream_never_ways" ]; then
  reclaim_turn
  current_kubelet="$upstream_kubelet"
  restart_kubelet "$upstream_kubelet"
  if [ -n "$upstream_ways" ]; then
    log "measuring $upstream_ways ($repeat repeats, $parallel lanes)"
    run_ways "$upstream_ways"
  fi
  [ -z "$upstream_rate_ways" ] || probe_rate "$upstream_rate_ways"
  [ -z "$upstream_chain_ways" ] || run_chain "$upstream_chain_ways"
  [ -z "$upstream_never_ways" ] || run_never_ready "$upstream_never_ways"
fi
# The density runs take turns between the kubelets, every way of one run at
# one N at a time, the kubelets' order reversed from one N to the next (bench
# density-turns): the goals compare the kubelets' runs of one index and N,
# and turns of a whole run put them up to half an hour apart.
if [ -n "$fork_density_ways$upstream_density_ways" ]; then
  kubelets=()
  [ -z "$fork_density_ways" ] || kubelets+=(fork)
  [ -z "$upstream_density_ways" ] || kubelets+=(upstream)
  mapfile -t turns < <("$work/bench" density-turns -runs "$density_runs" -kubelets "$(IFS=,; echo "${kubelets[*]}")" -n "$density")
  [ "${#turns[@]}" -gt 0 ] || die "bench density-turns gave no turn"
  for turn in "${turns[@]}"; do
    read -r k run ns <<< "$turn"
    w="$fork_density_ways" bin="$fork_kubelet"
    [ "$k" = fork ] || w="$upstream_density_ways" bin="$upstream_kubelet"
    current_kubelet="$bin"
    restart_kubelet "$bin"
    run_density "$w" "$run" "$ns"
  done
fi
# The second configuration (BENCH_GATES): the ways again, both kubelets
# with the gates added to the cluster's own, into beside/.
if [ -n "$bench_gates" ] && [ -n "$fork_ways$upstream_ways" ]; then
  mkdir -p "$work/beside"
  touch "$work/beside/samples.jsonl" "$work/beside/segments.jsonl"
  echo "$bench_gates" > "$work/beside/label"
  echo "Beside upstream's defaults, the ways ran again with $bench_gates added to both kubelets' gates:" >> "$work/meta.md"
  for k in fork upstream; do
    w="$fork_ways" bin="$fork_kubelet"
    [ "$k" = fork ] || w="$upstream_ways" bin="$upstream_kubelet"
    [ -n "$w" ] || continue
    reclaim_turn
    current_kubelet="$bin"
    KUBELET_FEATURE_GATES="${KUBELET_FEATURE_GATES:+$KUBELET_FEATURE_GATES,}$bench_gates" restart_kubelet "$bin"
    log "measuring $w with $bench_gates ($repeat repeats, $parallel lanes)"
    run_ways "$w" "$work/beside/samples.jsonl" "$work/beside/segments.jsonl"
  done
fi
echo "Load average at the end of the pods' runs: $(load); $(memory_cgroups) memory cgroups on the host." >> "$work/meta.md"
kill "$busy_watcher" 2> /dev/null || true
wait "$busy_watcher" 2> /dev/null || true
busy_watcher=""
if [ -s "$busy_file" ]; then
  busy="$(cat "$busy_file")"
  echo "**A scratch run: $busy. Not a reference.**" >> "$work/meta.md"
  [ "$committed" = 0 ] || [ "$scratch" = 1 ] || die "$busy: the committed report is not written (raw files in $work; BENCH_SCRATCH=1 BENCH_REPORT_FROM=$work BENCH_OUT=dir writes a scratch report)"
  [ "$committed" = 0 ] || die "$busy: BENCH_SCRATCH=1 writes no committed report: give it BENCH_OUT=dir"
fi

echo "$((SECONDS - started)) s" > "$work/took"
else
  work="$(cd "$report_from" && pwd)"
  [ -f "$work/samples.jsonl" ] && [ -f "$work/meta.md" ] || die "BENCH_REPORT_FROM=$report_from: no run of make bench there (samples.jsonl, meta.md)"
  (cd "$ROOT" && go build -o "$work/bench" ./bench)
  samples="$work/samples.jsonl" segments="$work/segments.jsonl" rates="$work/probe-rates.jsonl" densities="$work/density.jsonl"
  chains="$work/chain.jsonl" never_runs="$work/never-ready.jsonl"
  gobench_args=()
  [ ! -s "$work/gobench.txt" ] || gobench_args=(-gobench "$work/gobench.txt")
  # The run's settings, as its meta.md recorded them.
  repeat="$(sed -n 's/.*BENCH_REPEAT=\([0-9]*\).*/\1/p' "$work/meta.md" | head -n1)"
  parallel="$(sed -n 's/.*BENCH_PARALLEL=\([0-9]*\).*/\1/p' "$work/meta.md" | head -n1)"
  density="$(sed -n 's/.*BENCH_DENSITY=\([0-9][0-9]*\(,[0-9][0-9]*\)*\).*/\1/p' "$work/meta.md" | head -n1)"
  if [ "$committed" = 1 ] && ! grep -q '^The machine was quiet at the start' "$work/meta.md"; then
    die "BENCH_REPORT_FROM=$report_from: that run is not recorded as quiet; the committed report comes only from quiet runs (BENCH_OUT=dir for another place)"
  fi
  if [ "$committed" = 1 ] && grep -q '^\*\*A scratch run' "$work/meta.md"; then
    die "BENCH_REPORT_FROM=$report_from: a scratch run; the committed report comes only from quiet runs (BENCH_OUT=dir for another place)"
  fi
  log "writing the report of the run in $work again"
fi
took="$(cat "$work/took" 2> /dev/null || echo "time not recorded")"
[ -z "$report_from" ] || took+="; its report written again from its raw files on $(date -u '+%Y-%m-%d %H:%M UTC')"

rate_args=()
[ ! -s "$rates" ] || rate_args=(-probe-rates "$rates")
density_args=()
[ ! -s "$densities" ] || density_args=(-density "$densities")
beside_args=()
[ ! -s "$work/beside/samples.jsonl" ] || beside_args=(-beside-samples "$work/beside/samples.jsonl" -beside-label "$(cat "$work/beside/label")")
# A run without them (skipped, or from before them): "not measured".
chain_args=()
[ ! -s "$chains" ] || chain_args+=(-chain "$chains")
[ ! -s "$never_runs" ] || chain_args+=(-never-ready "$never_runs")
"$work/bench" report -samples "$samples" -segments "$segments" "${rate_args[@]}" "${density_args[@]}" "${beside_args[@]}" "${chain_args[@]}" -meta "$work/meta.md" "${gobench_args[@]}" -out "$work/report"
# The samples keep the errors of the run as they were, and those may name
# files of this checkout (the kubelet's log, the CRI socket): the report
# names them relative to the repository, as docs/ must (make test-docs).
for f in "$work/report"/*; do
  case "$f" in *.md | *.json | *.svg) ;; *) continue ;; esac
  if [ "$OUTPUT" != "$ROOT/_output" ]; then
    OUTPUT_DIR="$OUTPUT/" perl -pi -e 's/\Q$ENV{OUTPUT_DIR}\E/_output\//g' "$f"
  fi
  ROOT_DIR="$ROOT/" perl -pi -e 's/\Q$ENV{ROOT_DIR}\E//g' "$f"
done
mkdir -p "$out"
# What an earlier run wrote and this one may not (a stage skipped).
rm -f "$out"/timeline-*.svg "$out"/aprime.svg "$out"/density-*.svg "$out"/density.json "$out"/probe-rates.json
cp "$work/report"/* "$out/"
# The verdicts of the run in docs/bench go into docs/results/bench.md (and
# its summary into the README's results table), written here, never by
# hand: how many goals were met on upstream's defaults, and beside them in
# the second configuration, then the goals tables themselves.
if [ "$out" = "$ROOT/docs/bench" ]; then
  counts="$(cat "$work/report/goals-summary.txt")"
  quiet="a quiet machine"
  ! grep -q '^\*\*A scratch run' "$work/meta.md" || quiet="a busy machine (a scratch run)"
  {
    echo "\`make bench\` of $(sed -n 's/^Run on \(.*UTC\), .*/\1/p' "$work/meta.md") (BENCH_REPEAT=$repeat, BENCH_PARALLEL=$parallel, BENCH_DENSITY=${density:-0}, $took, on $quiet): $counts; the report is docs/bench/report.md."
    echo
    cat "$work/report/goals.md"
  } | record_result bench "make bench"
  # The figures docs/benchmarks.md quotes, into its generated blocks, each
  # naming this run: from the same raw files, a quiet run only (bench
  # figures checks meta.md too).
  "$work/bench" figures -samples "$samples" "${density_args[@]}" -meta "$work/meta.md" -took "$took" -out "$work/figures"
  "$ROOT/hack/bench/docs-figures.sh" "$work/figures"
fi
log "report in $out/report.md (raw files in $work) after $((SECONDS - started))s"
