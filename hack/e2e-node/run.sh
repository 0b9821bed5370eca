#!/usr/bin/env bash
# Run upstream's node e2e suite (test/e2e_node of the pinned release) against
# the patched kubelet (KUBELET=patched, the default: _output/vX.Y.Z/bin/kubelet) or
# the unpatched one of the same release (KUBELET=upstream:
# _output/vX.Y.Z/bin/kubelet-upstream), on a containerd of its own. Needs root.
#
# The suite starts etcd and an API server in-process (an ephemeral etcd port;
# the API server on 127.0.0.1:6443) and launches the kubelet it is given
# (ports 10250, 10255 on the node IP below, healthz 127.0.0.1:10248). Beside
# a running local cluster (make up) nothing is shared: this script keeps all
# its state under _output/e2e-node:
#
#   containerd  its own root, state, socket, runc root, shim binary and
#               config (NRI off), the test images imported from
#               _output/vX.Y.Z/e2e-node/images (hack/e2e-node/build-images.sh)
#   network     the CNI bridge $CNI_BRIDGE, $POD_SUBNET; the bridge is
#               made first with the gateway $NODE_IP, which is the node's
#               IP: the API server reaches the kubelet there, never on the
#               machine's own addresses
#   kubelet     cgroup root $CGROUP_ROOT, root dir _output/e2e-node/kubelet,
#               no system/kubelet/runtime cgroups (the suite would move every
#               process of the machine into /system otherwise)
#   PATH        stand-ins for sudo and systemctl (hack/e2e-node/standin/), and the
#               usual folders mirrored without systemd-run (systemd is not
#               PID 1 here; the suite uses systemd-run when it finds it)
#
# Every process started is recorded and stopped by pid; the teardown (on
# exit, and before a run) removes the pods through the CRI, stops any kubelet
# the suite or the systemctl stand-in left, stops containerd, unmounts
# everything under _output/e2e-node and removes the bridge and the cgroups.
#
# Env: KUBELET=patched|upstream, FOCUS=regexp, SKIP=regexp, LABEL_FILTER=,
#      SMOKE_SPECS=regexp (instead of FOCUS: the default focus's specs whose
#      names it matches after the focus, make e2e-node-smoke's),
#      PROCS=N (ginkgo processes, default 4), TIMEOUT=ginkgo timeout (2h),
#      E2E_NODE_ARGS="..." (more flags for e2e_node.test),
#      E2E_NODE_POD_SUBNET=a.b.0.0/16 (default 10.199.0.0/16; node IP a.b.0.1).
#      `hack/e2e-node/run.sh down` only tears down.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# --- settings (every name differs from the local cluster's) -----------------------
E2E_DIR="$OUTPUT/e2e-node"
node_settings "$E2E_DIR" /sidecar-kubelet-e2e-node cni-ske2e0 "${E2E_NODE_POD_SUBNET:-10.199.0.0/16}"
NODE_IP="${POD_SUBNET%.*/*}.1" # the bridge's (the pods' gateway) and the node's address
# The builds are per release (hack/lib.sh); the run dirs are not.
E2E_BIN="$E2E_NODE_BIN_DIR"
E2E_IMAGES="$E2E_NODE_IMAGES_DIR"
CTRD_BIN="$E2E_DIR/containerd-bin" # our own copies: their paths tell our shims from the cluster's

KUBELET="${KUBELET:-patched}"
# The default focus takes upstream's native-sidecar specs and, beside them
# under the same name, the fork's own ("[sig-node] Containers Lifecycle
# [FeatureGate:SidecarContainerOrdering] ...", node-e2e-specs.patch), which
# fail on the unpatched kubelet by design. FOCUS='FeatureGate:SidecarContainerOrdering'
# runs the fork's alone; that pattern added to SKIP, upstream's alone.
# Up to v1.36 the framework writes upstream's labels into the name
# ("[sig-node] [NodeConformance] Containers Lifecycle ..."), from v1.37
# after it: the optional group takes both, else v1.35's and v1.36's runs
# would select the fork's specs alone.
DEFAULT_FOCUS='\[sig-node\] (\[NodeConformance\] )?Containers Lifecycle'
FORK_FOCUS='FeatureGate:SidecarContainerOrdering'
if [ -n "${SMOKE_SPECS:-}" ]; then
  [ -z "${FOCUS:-}" ] || die "FOCUS and SMOKE_SPECS exclude each other: SMOKE_SPECS picks specs of the default focus"
  FOCUS="$DEFAULT_FOCUS .*($SMOKE_SPECS)"
fi
FOCUS="${FOCUS:-$DEFAULT_FOCUS}"
# The default focus skips the Serial, Disruptive and Slow specs, as
# upstream's parallel node e2e job does. The fork's own specs run whole:
# its Serial, Disruptive ones (a kubelet restart) carry ginkgo's Serial
# decorator too, so ginkgo runs them alone, after the parallel ones.
DEFAULT_SKIP='\[Serial\]|\[Disruptive\]|\[Slow\]'
[ "$FOCUS" != "$FORK_FOCUS" ] || DEFAULT_SKIP='\[Slow\]'
SKIP="${SKIP:-$DEFAULT_SKIP}"
load_at_start="$(cut -d' ' -f1-3 /proc/loadavg)"
PROCS="${PROCS:-4}"
TIMEOUT="${TIMEOUT:-2h}"

[ "$(id -u)" = 0 ] || die "the node e2e suite runs as root"
mkdir -p "$E2E_DIR"
exec 8> "$E2E_DIR/.lock"
flock -n 8 || die "another hack/e2e-node/run.sh runs (lock $E2E_DIR/.lock)"

# --- teardown -------------------------------------------------------------------------
leftovers() { # processes of ours that should be gone: shims, a stray suite, whatever is in our pods' cgroups
  local p exe
  for p in /proc/[0-9]*; do
    exe="$(readlink "$p/exe" 2> /dev/null || true)"
    case "${exe% (deleted)}" in
      "$CTRD_BIN/containerd-shim-runc-v2" | "$E2E_BIN/e2e_node.test" | "$E2E_BIN/ginkgo") echo "${p#/proc/}" ;;
    esac
  done
  pod_cgroup_pids
}
teardown() {
  # A kubelet the suite left running, or one relaunched by the systemctl stand-in.
  stop_proc kubelet 30
  stop_proc imgserve 10
  sweep_pods
  stop_proc containerd 30
  kill_leftovers
  node_teardown || true
  rm -rf --one-file-system "$KUBELET_ROOT" "$E2E_DIR/containerd" "$E2E_DIR/work" "$E2E_DIR/pod-logs"
}
if [ "${1:-}" = down ]; then
  teardown
  log "e2e-node torn down"
  exit 0
fi

# --- build what the run needs -------------------------------------------------------------
case "$KUBELET" in
  patched) "$ROOT/hack/patches/build-kubelet.sh"; kubelet_bin="$K8S_BIN_DIR/kubelet" ;;
  upstream) "$ROOT/hack/patches/build-kubelet-upstream.sh"; kubelet_bin="$K8S_BIN_DIR/kubelet-upstream" ;;
  *) die "KUBELET must be patched or upstream, not '$KUBELET'" ;;
esac
for b in containerd containerd-shim-runc-v2 ctr crisweep; do
  [ -x "$BIN_DIR/$b" ] || { "$ROOT/hack/cluster/build-bins.sh"; break; }
done
"$ROOT/hack/e2e-node/build-suite.sh"
"$ROOT/hack/e2e-node/build-images.sh"
install_debian_deps runc:runc /usr/lib/cni/bridge:containernetworking-plugins iptables:iptables
{ ip -4 route show match "$POD_SUBNET"; ip -4 route show root "$POD_SUBNET"; } | grep -v '^default' | grep -qv " dev $CNI_BRIDGE " &&
  die "$POD_SUBNET clashes with a route of this machine; choose another with E2E_NODE_POD_SUBNET="

# The suite's fixed ports: the API server, the kubelet's (read-only) port and healthz.
for port in 6443 10250 10255 10248; do
  ! ss -Hltn "sport = :$port" | grep -q . || die "port $port is in use: upstream's node e2e suite needs it (ss -ltnp 'sport = :$port')"
done

log "cleaning up what a previous run may have left"
teardown
trap 'status=$?; trap - EXIT; log "tearing down"; teardown || true; exit $status' EXIT
trap 'exit 130' INT TERM

mkdir -p "$RUN_DIR" "$LOG_DIR" "$CONF_DIR" "$CTRD_BIN" "$E2E_DIR/work" "$KUBELET_ROOT" "$E2E_DIR/pod-logs"
record_host_state

# --- containerd -----------------------------------------------------------------------------
for b in containerd containerd-shim-runc-v2; do
  if ! cmp -s "$BIN_DIR/$b" "$CTRD_BIN/$b"; then
    cp "$BIN_DIR/$b" "$CTRD_BIN/$b.tmp"
    mv -f "$CTRD_BIN/$b.tmp" "$CTRD_BIN/$b"
  fi
done
pause_image="$(awk '$1 == "pause" {print $2}' "$E2E_IMAGES/names")"
write_cni_conflist "$E2E_DIR/cni/net.d/10-e2e-node.conflist" sidecar-kubelet-e2e-node "$NODE_IP"
write_containerd_config "$CONF_DIR/containerd.toml" "$pause_image" "$CONF_DIR/certs.d"
# A registry of our own on loopback serves the same images, as a mirror of
# their registry: specs that pull with imagePullPolicy Always get them there.
(cd "$ROOT/hack/tools" && go build -o "$E2E_BIN/imgserve" ./imgserve)
rm -f "$RUN_DIR/registry.addr"
start_proc imgserve "" "$E2E_BIN/imgserve" -addr 127.0.0.1:0 -addr-file "$RUN_DIR/registry.addr" \
  "$E2E_IMAGES/agnhost.tar" "$E2E_IMAGES/busybox.tar" "$E2E_IMAGES/pause.tar"
wait_for "the image registry" 60 test -s "$RUN_DIR/registry.addr" || die "imgserve did not start; see $LOG_DIR/imgserve.log"
registry_addr="$(cat "$RUN_DIR/registry.addr")"
rm -rf "$CONF_DIR/certs.d"
for host in $(awk '{print $2}' "$E2E_IMAGES/names" | cut -d/ -f1 | sort -u); do
  clusterconfig mirror -out "$CONF_DIR/certs.d/$host/hosts.toml" -host "$host" -mirror "http://$registry_addr"
done
PATH="$CTRD_BIN:$PATH" start_proc containerd "" "$CTRD_BIN/containerd" --config="$CONF_DIR/containerd.toml"
proc_pid containerd > "$RUN_DIR/containerd.pid.plain"
wait_for "containerd" 60 containerd_healthy || die "containerd did not start; see $LOG_DIR/containerd.log"
for name in pause busybox agnhost; do
  log "importing $(awk -v n="$name" '$1 == n {print $2}' "$E2E_IMAGES/names")"
  ctr -n k8s.io images import "$E2E_IMAGES/$name.tar" > /dev/null
done

# --- the node: bridge with the node IP, cgroup root ----------------------------------
ip link add "$CNI_BRIDGE" type bridge
ip addr add "$NODE_IP/${POD_SUBNET#*/}" dev "$CNI_BRIDGE"
ip link set "$CNI_BRIDGE" up
make_cgroup_root

# --- the kubelet it is given ----------------------------------------------------------------
# The base KubeletConfiguration (hack/tools/clusterconfig -node e2e-node):
# upstream's test/e2e_node/jenkins/default-kubelet-config.yaml with this
# machine's needs; the suite adds its own settings on top. Its eviction and
# image GC are the local cluster's (kubelet_disk_flags), not upstream's
# nodefs.available<10%: on this shared disk that evicted the specs' pods
# mid-run (their containers ended 137, their logs gone). The unpatched
# kubelet gets no feature gates at all.
kubelet_flags=(-node e2e-node -address "$NODE_IP" -cgroup-root "$CGROUP_ROOT" -pod-logs-dir "$E2E_DIR/pod-logs")
if [ "$KUBELET" = upstream ]; then kubelet_flags+=(-no-feature-gates); else kubelet_gate_flags kubelet_flags; fi
kubelet_disk_flags kubelet_flags
clusterconfig kubelet -out "$CONF_DIR/kubelet.yaml" "${kubelet_flags[@]}"
# The suite runs the "kubelet" beside its own binary: a folder with a link to
# e2e_node.test and the wrapper that records the real kubelet's pid.
suite_dir="$E2E_DIR/suite"
rm -rf "$suite_dir"
mkdir -p "$suite_dir"
ln -s "$E2E_BIN/e2e_node.test" "$suite_dir/e2e_node.test"
sed -e "s|@REAL_KUBELET@|$kubelet_bin|" -e "s|@RUN_DIR@|$RUN_DIR|" "$ROOT/hack/e2e-node/standin/kubelet" > "$suite_dir/kubelet"
chmod +x "$suite_dir/kubelet"
rm -f "$RUN_DIR"/kubelet.*

# --- PATH: the stand-ins, then the usual folders without systemd-run ------------------
path_dir="$E2E_DIR/path"
rm -rf "$path_dir"
mkdir -p "$path_dir/0"
cp "$ROOT/hack/e2e-node/standin/sudo" "$ROOT/hack/e2e-node/standin/systemctl" "$path_dir/0/"
suite_path="$path_dir/0"
i=1
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  if [ -e "$d/systemd-run" ]; then
    mkdir -p "$path_dir/$i"
    ln -s "$d"/* "$path_dir/$i/"
    rm "$path_dir/$i/systemd-run"
    d="$path_dir/$i"
    i=$((i + 1))
  fi
  suite_path="$suite_path:$d"
done
PATH="$suite_path" command -v systemd-run > /dev/null && die "systemd-run is still on the suite's PATH"

# --- run ------------------------------------------------------------------------------------
report="$E2E_DIR/report-$KUBELET"
rm -rf "$report"
mkdir -p "$report"
log "running the node e2e suite against the $KUBELET kubelet ($("$kubelet_bin" --version)), $PROCS processes"
log "  focus: $FOCUS"
log "  skip:  $SKIP"
log "  report: $report (kubelet.log, junit); the suite's output: $report/suite.log"
args=(
  --container-runtime-endpoint="unix://$CONTAINERD_SOCK"
  --container-runtime-process-name="$CTRD_BIN/containerd"
  --container-runtime-pid-file="$RUN_DIR/containerd.pid.plain"
  --kubelet-config-file="$CONF_DIR/kubelet.yaml"
  --kubelet-flags="--root-dir=$KUBELET_ROOT --cert-dir=$KUBELET_ROOT/pki --node-ip=$NODE_IP --system-cgroups= --kubelet-cgroups= --runtime-cgroups="
  --prepull-images=false
  --report-dir="$report"
)
# shellcheck disable=SC2206  # E2E_NODE_ARGS is split on purpose
[ -z "${E2E_NODE_ARGS:-}" ] || args+=($E2E_NODE_ARGS)
ginkgo_args=(--procs="$PROCS" --timeout="$TIMEOUT" --no-color -v --focus="$FOCUS")
[ -z "$SKIP" ] || ginkgo_args+=(--skip="$SKIP")
[ -z "${LABEL_FILTER:-}" ] || ginkgo_args+=(--label-filter="$LABEL_FILTER")
started=$SECONDS
set +e
(
  cd "$E2E_DIR/work"
  PATH="$suite_path" E2E_NODE_RUN_DIR="$RUN_DIR" E2E_NODE_KUBELET_LOG="$report/kubelet.log" \
    "$E2E_BIN/ginkgo" "${ginkgo_args[@]}" "$suite_dir/e2e_node.test" -- "${args[@]}" 8>&-
) 2>&1 | tee "$report/suite.log" | grep --line-buffered -E '^(Ran |PASS|FAIL|SUCCESS|Summarizing|Test Suite)|\[FAIL\]'
status="${PIPESTATUS[0]}"
set -e
elapsed=$((SECONDS - started))
summary="$(ginkgo_summary "$report/suite.log")"
printf '%s\n' "KUBELET=$KUBELET KUBELET_FEATURE_GATES=${KUBELET_FEATURE_GATES:-} $("$kubelet_bin" --version) elapsed=${elapsed}s exit=$status $summary" | tee "$report/summary" >&2

# Every run of the default focus is kept in docs/results, one file per
# series, kubelet and feature gates (e2e-node-v<release>-patched,
# e2e-node-v<release>-patched-gate-off, ...), with the specs that failed:
# "exactly as the unpatched kubelet does" is read from two such files.
# So is every run of the fork's own specs alone (FORK_FOCUS: ...-fork-specs),
# which pass on the patched kubelet and fail on the unpatched one.
focus_suffix="" focus_words="the default focus"
[ "$FOCUS" != "$FORK_FOCUS" ] || focus_suffix="-fork-specs" focus_words="FOCUS='$FORK_FOCUS', the fork's own specs"
if { [ "$FOCUS" = "$DEFAULT_FOCUS" ] || [ "$FOCUS" = "$FORK_FOCUS" ]; } && [ "$SKIP" = "$DEFAULT_SKIP" ] &&
  [ -z "${LABEL_FILTER:-}${E2E_NODE_ARGS:-}" ] && [[ "$summary" =~ $GINKGO_SUMMARY_RE ]]; then
  {
    echo "\`make e2e-node K8S_VERSION=$K8S_VERSION KUBELET=$KUBELET${KUBELET_FEATURE_GATES:+ KUBELET_FEATURE_GATES=$KUBELET_FEATURE_GATES}\` ($focus_words, $PROCS ginkgo processes) of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, kubelet \`$("$kubelet_bin" --version | cut -d' ' -f2)\`: $(ginkgo_counts "$summary"), in ${BASH_REMATCH[3]%.*} s (load average at the start $load_at_start)."
    failed_specs="$(ginkgo_failed_specs "$report/suite.log")"
    if [ -n "$failed_specs" ]; then
      echo
      echo "The specs that failed:"
      echo
      echo "$failed_specs"
    fi
  } | record_result "e2e-node-v$K8S_VERSION-$KUBELET$(gates_result_suffix)$focus_suffix" "make e2e-node"
fi

# A run of the default focus on the default series, with the kubelet's
# default feature gates, is the one docs/prototyping.md reports: its row
# (one per kubelet, the latest run) goes into the page's results block,
# written here, never by hand. A run with KUBELET_FEATURE_GATES (the gate
# off, say) keeps its figures in its report's summary only.
if [ "$FOCUS" = "$DEFAULT_FOCUS" ] && [ "$SKIP" = "$DEFAULT_SKIP" ] && [ -z "${LABEL_FILTER:-}${E2E_NODE_ARGS:-}${KUBELET_FEATURE_GATES:-}" ] &&
  [ "$K8S_VERSION" = "$(pinned_version "$(default_minor)")" ] &&
  [[ "$summary" =~ $GINKGO_SUMMARY_RE ]]; then
  specs_s="${BASH_REMATCH[3]%.*}"
  printf '| %s, `%s` | %s | %s | %s | %s of %s | %dm%02ds | %dm%02ds | %s | %s |\n' \
    "$KUBELET" "$("$kubelet_bin" --version | cut -d' ' -f2)" "${BASH_REMATCH[4]}" "${BASH_REMATCH[5]}" "${BASH_REMATCH[7]}" \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" $((specs_s / 60)) $((specs_s % 60)) $((SECONDS / 60)) $((SECONDS % 60)) \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$load_at_start" > "$E2E_DIR/result-$KUBELET.row"
  if doc_has_block docs/prototyping.md e2e-node-results; then
    {
      echo "From \`make e2e-node\` (the default focus, $PROCS ginkgo processes) on $(nproc) cores, the latest run of each kubelet:"
      echo
      echo "| kubelet | passed | failed | skipped | specs run | specs' time | \`make e2e-node\` wall time | run | load average at the start |"
      echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |"
      # The other kubelet's row: from its run's row file, or, when a
      # clean-up removed that, as the page has it.
      for k in patched upstream; do
        if [ -f "$E2E_DIR/result-$k.row" ]; then
          cat "$E2E_DIR/result-$k.row"
        else
          sed -n '/^<!-- e2e-node-results:begin/,/^<!-- e2e-node-results:end/p' "$ROOT/docs/prototyping.md" | grep "^| $k, " || true
        fi
      done
    } | write_doc_block docs/prototyping.md e2e-node-results
    log "wrote the results block of docs/prototyping.md"
  fi
fi
exit "$status"
