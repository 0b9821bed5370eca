#!/usr/bin/env bash
# make bench: sidecar ordering measured on the local cluster (make up first),
# the fork against native sidecars, the postStart-hook workaround and the
# unpatched kubelet of the same release, plus the computePodActions Go
# benchmark of the patched tree against the pristine one. See bench/ and the
# README's Benchmarks section.
#
#   1. the fork's kubelet (make kubelet-restart): the fork/* ways
#   2. the unpatched kubelet (KUBELET_BIN=_output/vX.Y.Z/bin/kubelet-upstream):
#      the upstream/* ways
#   3. the fork's kubelet again (also when the run fails or is interrupted)
#   4. after the ways of each kubelet, bench probe-rate: N pods at once, each
#      with one sidecar that never turns ready, and the kubelet's probe runs
#      per second (periodic and extra) while they all wait
#   5. then bench density: for each N of BENCH_DENSITY, N pods at once, each
#      with one sidecar its app waits for (ready after 0.5 to 3 s): the time
#      to all Ready, a', the kubelet's and containerd's CPU per pod, the
#      probe runs per second; every run's pods gone before the next
#   6. then bench chain: pods of 20 sidecars started one after another,
#      each waited on through an exec probe at periodSeconds 10, one pod at
#      a time; and bench never-ready: sidecars that stay not ready for
#      their first minute, and a few that turn ready late meanwhile
#   7. BenchmarkComputePodActions, both trees, runs interleaved
#   8. bench report: report.md, goals.md, samples.json, probe-rates.json,
#      density.json, timeline-*.svg, aprime.svg, density-*.svg
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
#   BENCH_WAYS=...   comma-separated ways (default: all, see bench/pods.go;
#                    none: only the probe-rate, density, chain and
#                    never-ready runs)
#   BENCH_FORK_KUBELET=path  the fork's kubelet to measure (default the
#                    built one, _output/vX.Y.Z/bin/kubelet), e.g. a build
#                    of an earlier series; the cluster gets the built one
#                    back at the end
#   BENCH_PROBE_RATE_PODS=N  waiting sidecars of the probe-rate runs (default
#                    50; 0 skips them); BENCH_PROBE_RATE_WAYS=... their ways
#                    (default fork/annotated, fork/native-wait-ready,
#                    fork/no-sidecars, upstream/native-startup)
#   BENCH_DENSITY=N,...  pods created at once in the density runs (default
#                    10,30; 10,30,100 is the full list; 0 or empty skips
#                    them). Each way runs BENCH_DENSITY_RUNS times (default
#                    3) at each N, the ways taking turns; the default list
#                    adds about 8 minutes on 2 cores (30 runs of 10 or 30
#                    pods, each the pods' start, their deletion and 2 s for
#                    the kubelet's clean-up, plus a warm-up run and 8 s of
#                    idle per kubelet); 100 pods add about as much again per
#                    way. BENCH_DENSITY_WAYS=... their ways (default
#                    fork/annotated, fork/native-wait-ready, fork/poststart,
#                    fork/no-sidecars, upstream/native-startup: the goals
#                    compare these); BENCH_DENSITY_SEED=S the seed of the
#                    sidecars' ready delays (default 28: every run the same)
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
#                    and 2 s more; BENCH_NEVER_READY_WAYS=... (default
#                    fork/annotated-p10, fork/native-wait-ready-p10,
#                    upstream/native-startup)
#   BENCH_GO=0       skip the Go benchmark; BENCH_GO_COUNT=N runs of it (5)
#   BENCH_OUT=dir    where the report goes (default docs/bench)
#   BENCH_REPORT_FROM=_output/bench/<time>  measure nothing: write that
#                    run's report again from its raw files, with the
#                    bench program as it is now (a fix of the report's code)
#   CLUSTER_INSTANCE=N  the cluster to run on (hack/cluster/lib.sh)
#   BENCH_EVICTION_HARD the kubelet's hard eviction thresholds while it
#                    measures (default: memory 100Mi, disks 2%, so that a
#                    disk shared with builds does not taint the node; image
#                    garbage collection is off too, since the test image
#                    cannot be pulled again; the last restart brings the
#                    cluster's own settings back)
# The raw files of every run stay in _output/bench/<time>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"
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
go_count="${BENCH_GO_COUNT:-5}"
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
[ "$rate_pods" != 0 ] || rate_ways=""
density="${BENCH_DENSITY-10,30}" # set and empty: no density runs
[[ "$density" =~ ^(0|[1-9][0-9]*(,[1-9][0-9]*)*)?$ ]] || die "BENCH_DENSITY must be a comma-separated list of pod counts (or 0), not '$density'"
[ "$density" != 0 ] || density=""
[ -z "$(tr ',' '\n' <<< "$density" | sort | uniq -d)" ] || die "BENCH_DENSITY names a pod count twice: '$density'"
density_runs="${BENCH_DENSITY_RUNS:-3}"
[[ "$density_runs" =~ ^[1-9][0-9]*$ ]] || die "BENCH_DENSITY_RUNS must be a positive integer, not '$density_runs'"
density_seed="${BENCH_DENSITY_SEED:-28}"
[[ "$density_seed" =~ ^[0-9]+$ ]] || die "BENCH_DENSITY_SEED must be a number, not '$density_seed'"
density_ways="${BENCH_DENSITY_WAYS:-fork/annotated,fork/native-wait-ready,fork/poststart,fork/no-sidecars,upstream/native-startup}"
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
never_ways="${BENCH_NEVER_READY_WAYS:-fork/annotated-p10,fork/native-wait-ready-p10,upstream/native-startup}"
[ "$never_ready" != 0 ] || never_ways=""
fork_ways="$(tr ',' '\n' <<< "$ways" | grep '^fork/' | paste -sd, || true)"
upstream_ways="$(tr ',' '\n' <<< "$ways" | grep '^upstream/' | paste -sd, || true)"
fork_rate_ways="$(tr ',' '\n' <<< "$rate_ways" | grep '^fork/' | paste -sd, || true)"
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

fork_kubelet="${BENCH_FORK_KUBELET:-$K8S_BIN_DIR/kubelet}"
[ -x "$fork_kubelet" ] || die "BENCH_FORK_KUBELET: no kubelet at $fork_kubelet"
upstream_kubelet="$K8S_BIN_DIR/kubelet-upstream"
eviction="${BENCH_EVICTION_HARD:-$SHARED_DISK_EVICTION_HARD}"
restart_kubelet() { # BINARY
  log "running the kubelet $("$1" --version | cut -d' ' -f2)"
  KUBELET_IMAGE_GC_HIGH=100 KUBELET_EVICTION_HARD="$eviction" KUBELET_BIN="$1" "$ROOT/hack/cluster/kubelet-restart.sh" > "$work/kubelet-restart.log" 2>&1 ||
    { cat "$work/kubelet-restart.log" >&2; die "kubelet-restart.sh failed"; }
  # "... (Kubernetes vX, pid N, feature gates: A:true,B:true) in Ns"
  echo "Feature gates of the kubelet $("$1" --version | cut -d' ' -f2): $(sed -n 's/.*feature gates: \(.*\)) in [0-9]*s$/\1/p' "$work/kubelet-restart.log" | tail -1)." >> "$work/meta.md"
}
current_kubelet=""
gobench_file=""
cleanup() {
  local rc=$?
  [ -z "$gobench_file" ] || rm -f "$gobench_file"
  if [ -n "$current_kubelet" ]; then
    log "back to the fork's kubelet with the cluster's own settings"
    KUBELET_BIN="$K8S_BIN_DIR/kubelet" "$ROOT/hack/cluster/kubelet-restart.sh" > "$work/kubelet-restart.log" 2>&1 ||
      log "could not restart the fork's kubelet: see $work/kubelet-restart.log"
  fi
  kctl delete namespace sk-bench --wait=false > /dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), \`make bench\` with BENCH_REPEAT=$repeat, BENCH_PARALLEL=$parallel and BENCH_DENSITY=${density:-0}, on $(nproc) cores"
  echo "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)),"
  echo "Linux $(uname -r), containerd $CONTAINERD_VERSION, runc $(runc --version | awk 'NR==1 {print $3}'), cgroup v1/v2 hybrid."
  echo "Kubelets: fork $("$fork_kubelet" --version | cut -d' ' -f2), upstream $("$upstream_kubelet" --version 2> /dev/null | cut -d' ' -f2 || echo -)."
  echo "Load average (1, 5, 15 min) at the start: $(load); $(pgrep -c -x compile || true) Go compiler processes of other builds were running."
} > "$work/meta.md"

samples="$work/samples.jsonl"
segments="$work/segments.jsonl"
rates="$work/probe-rates.jsonl"
densities="$work/density.jsonl"
chains="$work/chain.jsonl"
never_runs="$work/never-ready.jsonl"
touch "$samples" "$segments" # BENCH_WAYS=none: no run of the ways, none of their files
# The kubelet's probe counts come from its own endpoint and its log (--v >= 1
# logs every failed probe run), its CPU time from /proc/<pid>/stat; a kubelet
# restarted by someone else during the run stops it (run again).
run_ways() { # WAYS
  local pid
  pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  "$work/bench" run -kubeconfig "$ADMIN_KUBECONFIG" -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" \
    -ways "$1" -repeat "$repeat" -parallel "$parallel" -out "$samples" -segments "$segments" \
    -kubelet-url "https://127.0.0.1:$KUBELET_PORT" -kubelet-pid "$pid" -kubelet-log "$LOG_DIR/kubelet.log"
}
probe_rate() { # WAYS
  local pid
  pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  log "probe runs with $rate_pods sidecars waiting: $1"
  "$work/bench" probe-rate -kubeconfig "$ADMIN_KUBECONFIG" -kubelet-url "https://127.0.0.1:$KUBELET_PORT" \
    -kubelet-pid "$pid" -ways "$1" -pods "$rate_pods" -out "$rates"
}
# The density runs read the CRI (the containers' start times), the pods'
# logs (the sidecars' ready times) and both processes' CPU time.
run_density() { # WAYS
  local kubelet_pid containerd_pid
  kubelet_pid="$(proc_pid kubelet)" || die "the kubelet is not running"
  containerd_pid="$(proc_pid containerd)" || die "containerd is not running"
  log "density runs with $density pods at once, $density_runs runs: $1"
  "$work/bench" density -kubeconfig "$ADMIN_KUBECONFIG" -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" \
    -kubelet-url "https://127.0.0.1:$KUBELET_PORT" -kubelet-pid "$kubelet_pid" -containerd-pid "$containerd_pid" \
    -ways "$1" -n "$density" -runs "$density_runs" -seed "$density_seed" -out "$densities"
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
  log "$never_pods never-ready sidecars a way, and late ones after ${never_late:-none}: $1"
  "$work/bench" never-ready -kubeconfig "$ADMIN_KUBECONFIG" -kubelet-url "https://127.0.0.1:$KUBELET_PORT" \
    -cri "unix://$CONTAINERD_SOCK" -pod-logs "$CLUSTER_DIR/pod-logs" -ways "$1" -pods "$never_pods" -late "$never_late" -out "$never_runs"
}
if [ -n "$fork_ways$fork_rate_ways$fork_density_ways$fork_chain_ways$fork_never_ways" ]; then
  current_kubelet="$fork_kubelet"
  restart_kubelet "$fork_kubelet"
  if [ -n "$fork_ways" ]; then
    log "measuring $fork_ways ($repeat repeats, $parallel lanes)"
    run_ways "$fork_ways"
  fi
  [ -z "$fork_rate_ways" ] || probe_rate "$fork_rate_ways"
  [ -z "$fork_density_ways" ] || run_density "$fork_density_ways"
  [ -z "$fork_chain_ways" ] || run_chain "$fork_chain_ways"
  [ -z "$fork_never_ways" ] || run_never_ready "$fork_never_ways"
fi
if [ -n "$upstream_ways$upstream_rate_ways$upstream_density_ways$upstream_chain_ways$upstream_never_ways" ]; then
  current_kubelet="$upstream_kubelet"
  restart_kubelet "$upstream_kubelet"
  if [ -n "$upstream_ways" ]; then
    log "measuring $upstream_ways ($repeat repeats, $parallel lanes)"
    run_ways "$upstream_ways"
  fi
  [ -z "$upstream_rate_ways" ] || probe_rate "$upstream_rate_ways"
  [ -z "$upstream_density_ways" ] || run_density "$upstream_density_ways"
  [ -z "$upstream_chain_ways" ] || run_chain "$upstream_chain_ways"
  [ -z "$upstream_never_ways" ] || run_never_ready "$upstream_never_ways"
fi
echo "Load average at the end of the pods' runs: $(load)." >> "$work/meta.md"

# --- BenchmarkComputePodActions, patched against upstream -----------------------
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
  log "writing the report of the run in $work again"
fi
took="$(cat "$work/took" 2> /dev/null || echo "time not recorded")"
[ -z "$report_from" ] || took+="; its report written again from its raw files on $(date -u '+%Y-%m-%d %H:%M UTC')"

rate_args=()
[ ! -s "$rates" ] || rate_args=(-probe-rates "$rates")
density_args=()
[ ! -s "$densities" ] || density_args=(-density "$densities")
# A run without them (skipped, or from before them): "not measured".
chain_args=()
[ ! -s "$chains" ] || chain_args+=(-chain "$chains")
[ ! -s "$never_runs" ] || chain_args+=(-never-ready "$never_runs")
"$work/bench" report -samples "$samples" -segments "$segments" "${rate_args[@]}" "${density_args[@]}" "${chain_args[@]}" -meta "$work/meta.md" "${gobench_args[@]}" -out "$work/report"
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
# The README's verdicts are those of the run in docs/bench, written here
# between its markers, never by hand.
if [ "$out" = "$ROOT/docs/bench" ] && readme_has_block bench-goals; then
  {
    echo "From \`make bench\` of $(sed -n 's/^Run on \(.*UTC\), .*/\1/p' "$work/meta.md") (BENCH_REPEAT=$repeat, BENCH_PARALLEL=$parallel, BENCH_DENSITY=${density:-0}, $took; [docs/bench/report.md](docs/bench/report.md)):"
    echo
    cat "$work/report/goals.md"
  } | write_readme_block bench-goals
fi
log "report in $out/report.md (raw files in $work) after $((SECONDS - started))s"
