# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# Shared settings and helpers of the local cluster (hack/cluster/up.sh,
# down.sh, kubelet-restart.sh, build-bins.sh). Source it.
#
# The cluster runs one Kubernetes release throughout: up.sh records
# it in _output/cluster/k8s-version when it creates the cluster's state, runs
# every component from that release's $K8S_BIN_DIR, and refuses to start
# another release's binaries on that state (make down first). Scripts that
# only act on a running cluster (kubelet-restart.sh, test-e2e.sh) set
# CLUSTER_FOLLOWS_RECORDED_VERSION=1 before sourcing this file: without an
# explicit K8S_VERSION they then use the recorded release, not the default.
_recorded_version_file="${OUTPUT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/_output}/cluster/k8s-version"
if [ -z "${K8S_VERSION:-}" ] && [ "${CLUSTER_FOLLOWS_RECORDED_VERSION:-}" = 1 ] && [ -s "$_recorded_version_file" ]; then
  K8S_VERSION="$(cat "$_recorded_version_file")"
fi
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# Pinned versions of what is built from the Go module proxy.
CONTAINERD_VERSION="v2.4.2"   # github.com/containerd/containerd/v2
CONTAINERD_TAGS="no_btrfs"
# Debian packages the cluster needs, as "command-or-path:package"; up.sh
# installs the missing ones.
DEBIAN_DEPS="etcd:etcd-server runc:runc /usr/lib/cni/bridge:containernetworking-plugins
  curl:curl openssl:openssl iptables:iptables"

# CLUSTER_INSTANCE=N (default 0) runs a second (third, ...) cluster beside
# the first on the same machine: instance N keeps its state in
# _output/cluster-N and shifts every port by N*100, the pod subnet to
# 10.(88+N).0.0/16, the service range to 10.(96+N).0.0/16, the bridge to
# cni-skN and the cgroup root to /sidecar-kubelet-N; its containerd (root,
# state, sockets, runc root) lives in _output/cluster-N too. The node keeps
# the machine's hostname (each API server has its own node object). Instance
# 0 is the cluster as it always was. What two kubelets on one machine still
# share: the device-plugin socket (a fixed path; no device plugins run here),
# the iptables chains the kubelet adds, /var/log/containers and containerd's
# shim socket folder /run/containerd/s.
CLUSTER_INSTANCE="${CLUSTER_INSTANCE:-0}"
[[ "$CLUSTER_INSTANCE" =~ ^[0-9]$ ]] || die "CLUSTER_INSTANCE must be a digit 0-9, not '$CLUSTER_INSTANCE'"
if [ "$CLUSTER_INSTANCE" = 0 ]; then
  CLUSTER_DIR="$OUTPUT/cluster"
  CLUSTER_SUFFIX=""
else
  CLUSTER_DIR="$OUTPUT/cluster-$CLUSTER_INSTANCE"
  CLUSTER_SUFFIX="-$CLUSTER_INSTANCE"
fi
port_offset=$((CLUSTER_INSTANCE * 100))
RUN_DIR="$CLUSTER_DIR/run"         # pid files, sockets, fingerprints of what runs
LOG_DIR="$CLUSTER_DIR/logs"
PKI_DIR="$CLUSTER_DIR/pki"
CONF_DIR="$CLUSTER_DIR/config"
IMAGES_DIR="$OUTPUT/images"        # every *.tar here is imported by up.sh
ADMIN_KUBECONFIG="$CLUSTER_DIR/kubeconfig"
CLUSTER_VERSION_FILE="$CLUSTER_DIR/k8s-version"   # the release the cluster runs

PAUSE_IMAGE="sidecar-kubelet.local/pause:1"
NODE_NAME="$(hostname | tr "[:upper:]" "[:lower:]")"
# Everything listens on 127.0.0.1, on ports away from the usual ones so that a
# node e2e run (which uses the defaults) can share the machine.
ETCD_PORT=$((23790 + port_offset))
ETCD_PEER_PORT=$((23800 + port_offset))
APISERVER_PORT=$((16443 + port_offset))
KCM_PORT=$((10357 + port_offset))
SCHEDULER_PORT=$((10359 + port_offset))
KUBELET_PORT=$((10350 + port_offset))
KUBELET_HEALTHZ_PORT=$((10348 + port_offset))
POD_SUBNET="10.$((88 + CLUSTER_INSTANCE)).0.0/16"
SERVICE_CIDR="10.$((96 + CLUSTER_INSTANCE)).0.0/16"
CNI_BRIDGE="cni-sk$CLUSTER_INSTANCE"
# Our own cgroup parent for the pods (in every cgroup hierarchy), so that
# they never mix with another kubelet's /kubepods, and teardown knows them.
CGROUP_ROOT="/sidecar-kubelet$CLUSTER_SUFFIX"
CONTAINERD_SOCK="$RUN_DIR/containerd.sock"
KUBELET_ROOT="$CLUSTER_DIR/kubelet"
# The kubelet binary the cluster runs: KUBELET_BIN=path (e.g.
# _output/vX.Y.Z/bin/kubelet-upstream, for make kubelet-restart) overrides it.
KUBELET_BIN="${KUBELET_BIN:-$K8S_BIN_DIR/kubelet}"
# The local cluster's node and the node e2e kubelet share their disk with
# builds, and nothing can pull an image back: the kubelet's default hard
# eviction (imagefs.available<15%) tainted the node with disk-pressure on a
# 252 GB disk with 40 GB free, upstream's node e2e config (nodefs.available<10%)
# evicted the suite's pods when the disk reached 91%, and
# image garbage collection (from 85% used) would remove the imported test
# images. So, by default, evict only when the disk is really nearly full, and
# collect no images. Set either to empty for the kubelet's own defaults.
SHARED_DISK_EVICTION_HARD="memory.available<100Mi,nodefs.available<2%,imagefs.available<2%"
KUBELET_EVICTION_HARD="${KUBELET_EVICTION_HARD-$SHARED_DISK_EVICTION_HARD}"
KUBELET_IMAGE_GC_HIGH="${KUBELET_IMAGE_GC_HIGH-100}"
# KUBELET_VERBOSITY=N is the kubelet's --v (4 shows every pod sync and the
# actions computePodActions chose).
KUBELET_VERBOSITY="${KUBELET_VERBOSITY:-2}"
[[ "$KUBELET_VERBOSITY" =~ ^[0-9]+$ ]] || die "KUBELET_VERBOSITY must be a number, not '$KUBELET_VERBOSITY'"

KUBECTL="$K8S_BIN_DIR/kubectl"

# check_cluster_version dies unless the cluster's recorded release (if any)
# is $K8S_VERSION: the kubelet must never run against another release's
# control plane, nor the control plane on another release's etcd data.
check_cluster_version() {
  local recorded
  recorded="$(cat "$CLUSTER_VERSION_FILE" 2>/dev/null || true)"
  [ -z "$recorded" ] || [ "$recorded" = "$K8S_VERSION" ] ||
    die "the local cluster runs v$recorded, not v$K8S_VERSION: use K8S_VERSION=$recorded, or make down first"
}

# The components, in start order (down.sh has its own order).
COMPONENTS="etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet"

# cluster_lock makes the scripts that change the cluster take turns.
cluster_lock() {
  mkdir -p "$OUTPUT"
  local lock="$OUTPUT/.cluster$CLUSTER_SUFFIX.lock"
  exec 9> "$lock"
  flock -n 9 && return 0
  log "waiting for another cluster script to finish (lock $lock)"
  flock -w 600 9 || die "another cluster script holds $lock"
}

# --- processes ---------------------------------------------------------------
# Each started process has $RUN_DIR/NAME.pid (its pid), NAME.exe (the binary
# it runs: a pid is trusted only while /proc/PID runs that binary, since pids
# are reused) and NAME.fingerprint (what it was started with).

# proc_pid NAME prints the pid of our running NAME, or fails.
proc_pid() {
  local name="$1" pid exe
  pid="$(cat "$RUN_DIR/$name.pid" 2>/dev/null)" || return 1
  exe="$(cat "$RUN_DIR/$name.exe" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  pid_runs "$pid" "$exe" || return 1
  echo "$pid"
}

# pid_runs PID EXE succeeds while PID is alive (not a zombie) and its argv[0]
# is EXE.
pid_runs() {
  local argv0
  [ -r "/proc/$1/cmdline" ] || return 1
  ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null || return 1
  argv0="$(tr '\0' '\n' < "/proc/$1/cmdline" 2>/dev/null | head -n1)" || return 1
  [ "$argv0" = "$2" ]
}

# start_proc NAME FINGERPRINT CMD... starts CMD in a session of its own, its
# output appended to $LOG_DIR/NAME.log, and records it.
start_proc() {
  local name="$1" fp="$2"
  shift 2
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  printf '\n==== %s start: %s\n' "$(date -u +%FT%TZ)" "$*" >> "$LOG_DIR/$name.log"
  # Run by a non-interactive shell, setsid is not a process group leader, so
  # it calls setsid(2) and execs CMD in place: $! is CMD's pid.
  # It must not inherit the lock (fd 9, see cluster_lock).
  setsid "$@" >> "$LOG_DIR/$name.log" 2>&1 < /dev/null 9>&- &
  local pid=$!
  echo "$pid" > "$RUN_DIR/$name.pid"
  echo "$1" > "$RUN_DIR/$name.exe"
  echo "$fp" > "$RUN_DIR/$name.fingerprint"
  log "started $name (pid $pid, log $LOG_DIR/$name.log)"
}

# stop_proc NAME [TIMEOUT] stops our NAME by its pid: SIGTERM, then SIGKILL
# after TIMEOUT seconds (default 30). Nothing to do if it is not running.
stop_proc() {
  local name="$1" timeout="${2:-30}" pid
  if pid="$(proc_pid "$name")"; then
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for "$name (pid $pid) to exit" "$timeout" pid_gone "$pid"; then
      log "$name (pid $pid) ignored SIGTERM for ${timeout}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      wait_for "$name (pid $pid) to exit after SIGKILL" 10 pid_gone "$pid" || die "cannot stop $name (pid $pid)"
    fi
  fi
  rm -f "$RUN_DIR/$name.pid" "$RUN_DIR/$name.exe" "$RUN_DIR/$name.fingerprint"
}

# make_cgroup_root creates the pods' cgroup parent $CGROUP_ROOT in every
# cgroup hierarchy (the kubelet wants it to exist), with the root's cpuset
# where the hierarchy has one, so that its children can run somewhere.
make_cgroup_root() {
  local h d
  for h in /sys/fs/cgroup/*/; do
    [ -f "$h/cgroup.procs" ] || continue
    d="$h${CGROUP_ROOT#/}"
    [ -d "$d" ] || mkdir "$d"
    if [ -f "$d/cpuset.cpus" ] && [ -z "$(cat "$d/cpuset.cpus")" ]; then
      cat "$h/cpuset.cpus" > "$d/cpuset.cpus"
      cat "$h/cpuset.mems" > "$d/cpuset.mems"
    fi
  done
}

# --- health checks -------------------------------------------------------------
kctl() { "$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }
https_ok() { # URL [curl args...]: GET URL with our CA and the admin cert
  curl -fsS --max-time 5 --cacert "$PKI_DIR/ca.crt" --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" "$@"
}
etcd_healthy() {
  curl -fsS --max-time 5 --cacert "$PKI_DIR/etcd-ca.crt" --cert "$PKI_DIR/apiserver-etcd-client.crt" \
    --key "$PKI_DIR/apiserver-etcd-client.key" "https://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'
}
# ctr on our containerd, without the warning every call prints on cgroup v1.
ctr() { "$BIN_DIR/ctr" --address "$CONTAINERD_SOCK" "$@" 2> >(grep -v 'DEPRECATION: The support for cgroup v1' >&2); }
containerd_healthy() { ctr version; }
apiserver_healthy() { https_ok "https://127.0.0.1:$APISERVER_PORT/readyz" | grep -qx ok; }
kcm_healthy() { https_ok "https://127.0.0.1:$KCM_PORT/healthz" | grep -qx ok; }
scheduler_healthy() { https_ok "https://127.0.0.1:$SCHEDULER_PORT/healthz" | grep -qx ok; }
kubelet_healthy() { curl -fsS --max-time 5 "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz" | grep -qx ok; }

# node_ready_since EPOCH succeeds when the node is Ready and its kubelet has
# posted that since EPOCH (a kubelet that is gone leaves Ready=True behind
# for the grace period, so a plain Ready check proves nothing after a restart).
node_ready_since() {
  local out status beat
  out="$(kctl get node "$NODE_NAME" -o jsonpath='{range .status.conditions[?(@.type=="Ready")]}{.status} {.lastHeartbeatTime}{end}')" || return 1
  read -r status beat <<< "$out"
  [ "$status" = True ] && [ "$(date -d "$beat" +%s)" -ge "$1" ]
}

# --- the kubelet ---------------------------------------------------------------
# kubelet_feature_gates prints the featureGates map of the KubeletConfiguration:
# SidecarContainerOrdering on; from v1.37 on, EventedPLEG on; then whatever
# KUBELET_FEATURE_GATES says ("Gate=true|false,..."), which wins.
# An unpatched kubelet (KUBELET_BIN=_output/vX.Y.Z/bin/kubelet-upstream) does not
# know SidecarContainerOrdering and would refuse to start: it gets no default.
# EventedPLEG: from v1.37 upstream's gate only watches the runtime's container
# events and asks for a relist of a pod when one of its containers stops, so
# the kubelet sees an exit at once instead of at the next relist (up to 1 s);
# docs/bench shows what it changes. Before v1.37 the gate is the older design
# that replaces the periodic relist, and stays off.
kubelet_feature_gates() {
  local -A gates=()
  kubelet_knows_ordering_gate && gates[SidecarContainerOrdering]=true
  evented_pleg_by_default && gates[EventedPLEG]=true
  local item k v
  local -a items
  IFS=',' read -r -a items <<< "${KUBELET_FEATURE_GATES:-}"
  for item in "${items[@]}"; do
    item="${item//[[:space:]]/}"
    [ -n "$item" ] || continue
    k="${item%%=*}" v="${item#*=}"
    [[ "$item" == *=* && "$k" =~ ^[A-Za-z0-9]+$ && "$v" =~ ^(true|false)$ ]] ||
      die "KUBELET_FEATURE_GATES: '$item' is not Gate=true or Gate=false"
    gates[$k]="$v"
  done
  for k in $(printf '%s\n' "${!gates[@]}" | LC_ALL=C sort); do
    echo "  $k: ${gates[$k]}"
  done
}


# kubelet_knows_ordering_gate succeeds when $KUBELET_BIN lists the fork's gate
# among its feature gates (the answer is kept per binary identity).
kubelet_knows_ordering_gate() {
  local id
  id="$(stat -Lc '%i %s %Y' "$KUBELET_BIN" 2> /dev/null)" || return 0
  if [ "${_ordering_gate_for:-}" != "$KUBELET_BIN $id" ]; then
    _ordering_gate_known=0
    # Not "| grep -q": under pipefail the kubelet's SIGPIPE, when grep stops
    # reading early, would make a kubelet that knows the gate look as if it
    # did not.
    local help
    help="$("$KUBELET_BIN" --help 2>&1 || true)"
    [[ "$help" != *SidecarContainerOrdering=* ]] || _ordering_gate_known=1
    _ordering_gate_for="$KUBELET_BIN $id"
  fi
  [ "$_ordering_gate_known" = 1 ]
}

# kubelet_disk_policy prints the KubeletConfiguration lines for hard eviction
# and image garbage collection, for the local cluster's kubelet and the node
# e2e kubelet alike: both share this machine's disk with builds, and neither
# can pull an image back (see KUBELET_EVICTION_HARD above).
kubelet_disk_policy() {
  # KUBELET_EVICTION_HARD="signal<value,..." sets the hard eviction thresholds.
  if [ -n "${KUBELET_EVICTION_HARD:-}" ]; then
    local item
    local -a items
    IFS=',' read -r -a items <<< "$KUBELET_EVICTION_HARD"
    echo "evictionHard:"
    for item in "${items[@]}"; do
      [[ "$item" =~ ^([a-z.]+)\<([0-9]+(%|Mi|Gi)?)$ ]] || die "KUBELET_EVICTION_HARD: '$item' is not signal<value"
      echo "  ${BASH_REMATCH[1]}: \"${BASH_REMATCH[2]}\""
    done
  fi
  # KUBELET_IMAGE_GC_HIGH=N (percent of disk use) sets when image garbage
  # collection starts (default 85); 100 turns it off, so that the images
  # imported from _output/images (no registry to pull them again) stay.
  if [ -n "${KUBELET_IMAGE_GC_HIGH:-}" ]; then
    [[ "$KUBELET_IMAGE_GC_HIGH" =~ ^([1-9][0-9]?|100)$ ]] || die "KUBELET_IMAGE_GC_HIGH must be a percentage 1-100"
    printf 'imageGCHighThresholdPercent: %s\nimageGCLowThresholdPercent: %s\n' \
      "$KUBELET_IMAGE_GC_HIGH" "$((KUBELET_IMAGE_GC_HIGH - 1))"
  fi
}

# write_kubelet_config writes $CONF_DIR/kubelet.yaml.
write_kubelet_config() {
  local gates
  gates="$(kubelet_feature_gates)"
  mkdir -p "$CONF_DIR"
  cat > "$CONF_DIR/kubelet.yaml.tmp" <<EOF
# Generated by hack/cluster/lib.sh (KUBELET_FEATURE_GATES=${KUBELET_FEATURE_GATES:-}, KUBELET_EVICTION_HARD=${KUBELET_EVICTION_HARD:-}, KUBELET_IMAGE_GC_HIGH=${KUBELET_IMAGE_GC_HIGH:-}).
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
tlsCertFile: $PKI_DIR/kubelet.crt
tlsPrivateKeyFile: $PKI_DIR/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI_DIR/ca.crt}
authorization:
  mode: Webhook
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
podLogsDir: $CLUSTER_DIR/pod-logs
clusterDomain: cluster.local
featureGates:
$gates
EOF
  kubelet_disk_policy >> "$CONF_DIR/kubelet.yaml.tmp"
  mv "$CONF_DIR/kubelet.yaml.tmp" "$CONF_DIR/kubelet.yaml"
}

# kubelet_cmd prints the kubelet's command line, one word a line.
kubelet_cmd() {
  printf '%s\n' "$KUBELET_BIN" \
    --config="$CONF_DIR/kubelet.yaml" \
    --kubeconfig="$CONF_DIR/kubelet.kubeconfig" \
    --root-dir="$KUBELET_ROOT" \
    --v="$KUBELET_VERBOSITY"
}

# fingerprint FILE... prints a digest of the given command words and, for each
# that is a file, its identity and content (binaries: inode, size, mtime,
# since they are replaced by mv and are large).
fingerprint() {
  local w
  for w in "$@"; do
    echo "arg $w"
    case "$w" in
      --*=/*) w="${w#*=}" ;;
    esac
    if [ -f "$w" ]; then
      if [ -x "$w" ]; then stat -Lc 'bin %i %s %Y' "$w"; else sha256sum "$w"; fi
    fi
  done | sha256sum | cut -d' ' -f1
}

# start_kubelet [force] starts the kubelet with the current config, unless it
# runs already with exactly that config and binary (or restarts it with
# force). Returns once it is healthy.
start_kubelet() {
  local force="${1:-}" fp
  check_cluster_version
  [ -x "$KUBELET_BIN" ] || die "KUBELET_BIN=$KUBELET_BIN is not an executable"
  KUBELET_BIN="$(realpath "$KUBELET_BIN")"
  write_kubelet_config
  local -a cmd
  mapfile -t cmd < <(kubelet_cmd)
  fp="$(fingerprint "${cmd[@]}")"
  if [ -z "$force" ] && proc_pid kubelet > /dev/null && [ "$(cat "$RUN_DIR/kubelet.fingerprint")" = "$fp" ]; then
    log "kubelet is running (pid $(proc_pid kubelet)), unchanged"
  else
    stop_proc kubelet
    mkdir -p "$KUBELET_ROOT" "$CLUSTER_DIR/pod-logs"
    record_host_state
    # Heartbeats have whole seconds: start in the next second, so that any
    # heartbeat from this second on is the new kubelet's, never the old one's.
    local now since
    now="$(date +%s.%N)"
    since=$((${now%.*} + 1))
    sleep "$(awk -v a="$since" -v b="$now" 'BEGIN { printf "%.3f", a - b }')"
    echo "$since" > "$RUN_DIR/kubelet.since"
    start_proc kubelet "$fp" "${cmd[@]}"
  fi
  wait_for "the kubelet's healthz" 120 kubelet_healthy || die "the kubelet is not healthy; see $LOG_DIR/kubelet.log"
}

# The kubelet leaves two things outside its --root-dir: the device plugins'
# socket (the path is fixed: /var/lib/kubelet/device-plugins/kubelet.sock)
# and its iptables chains (KUBE-IPTABLES-HINT, KUBE-KUBELET-CANARY,
# KUBE-FIREWALL). record_host_state notes, before our kubelet first starts,
# whether they were there already; teardown removes only what we added.
record_host_state() {
  [ ! -f "$RUN_DIR/host-state" ] || return 0
  {
    [ ! -e /var/lib/kubelet ] || echo var-lib-kubelet
    ! iptables -w 5 -t mangle -S KUBE-IPTABLES-HINT > /dev/null 2>&1 || echo iptables
  } > "$RUN_DIR/host-state"
}
clean_host_state() {
  [ -f "$RUN_DIR/host-state" ] || return 0
  if ! grep -qx var-lib-kubelet "$RUN_DIR/host-state"; then
    rm -f /var/lib/kubelet/device-plugins/kubelet.sock
    rmdir /var/lib/kubelet/device-plugins /var/lib/kubelet 2> /dev/null || true
  fi
  if ! grep -qx iptables "$RUN_DIR/host-state"; then
    local ipt tc
    for ipt in iptables ip6tables; do
      command -v "$ipt" > /dev/null || continue
      "$ipt" -w 5 -t filter -D INPUT -j KUBE-FIREWALL 2> /dev/null || true
      "$ipt" -w 5 -t filter -D OUTPUT -j KUBE-FIREWALL 2> /dev/null || true
      for tc in mangle:KUBE-IPTABLES-HINT mangle:KUBE-KUBELET-CANARY nat:KUBE-KUBELET-CANARY \
        filter:KUBE-KUBELET-CANARY filter:KUBE-FIREWALL; do
        "$ipt" -w 5 -t "${tc%%:*}" -F "${tc#*:}" 2> /dev/null || true
        "$ipt" -w 5 -t "${tc%%:*}" -X "${tc#*:}" 2> /dev/null || true
      done
    done
  fi
}

# wait_kubelet_node_ready waits until the node is Ready as posted by the
# kubelet that runs now.
wait_kubelet_node_ready() {
  wait_for "node $NODE_NAME to be Ready" 180 node_ready_since "$(cat "$RUN_DIR/kubelet.since")" ||
    die "node $NODE_NAME is not Ready; see $LOG_DIR/kubelet.log and: $KUBECTL --kubeconfig $ADMIN_KUBECONFIG describe node $NODE_NAME"
}

# --- runtime configuration (the local cluster and hack/e2e-node/run.sh) -----------

# write_cni_conflist FILE NAME DIR [GATEWAY] writes a CNI bridge network on
# $CNI_BRIDGE and $POD_SUBNET, its IPAM state under DIR/cni/ipam.
write_cni_conflist() {
  local file="$1" name="$2" dir="$3" gateway=""
  [ -z "${4:-}" ] || gateway=", \"gateway\": \"$4\""
  mkdir -p "$(dirname "$file")" "$dir/cni/ipam"
  cat > "$file" << EOF
{
  "cniVersion": "1.0.0",
  "name": "$name",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$CNI_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$dir/cni/ipam",
        "ranges": [[{"subnet": "$POD_SUBNET"$gateway}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

# write_containerd_config FILE DIR [REGISTRY_CONFIG_PATH] writes a containerd
# config with its own root, state, runc root (under DIR) and sockets
# ($CONTAINERD_SOCK), never the system's, the CNI networks of DIR/cni/net.d
# and $PAUSE_IMAGE as the sandbox image. REGISTRY_CONFIG_PATH is a certs.d
# folder of registry hosts (mirrors).
write_containerd_config() {
  local file="$1" dir="$2" registry=""
  [ -z "${3:-}" ] || registry="
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = \"$3\""
  cat > "$file" << EOF
# Generated by $(realpath --relative-to="$ROOT" "$0").
version = 3
root = "$dir/containerd/root"
state = "$dir/containerd/state"
imports = []

[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = "overlayfs"
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = "$PAUSE_IMAGE"$registry
  [plugins.'io.containerd.cri.v1.runtime']
    # No CAP_SYS_RESOURCE here: runc cannot set the sandbox's -998.
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ["/usr/lib/cni"]
      conf_dir = "$dir/cni/net.d"
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = "runc"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = "$(command -v runc)"
          Root = "$dir/containerd/runc"
          SystemdCgroup = false
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
  [plugins.'io.containerd.internal.v1.opt']
    path = "$dir/containerd/opt"
  [plugins.'io.containerd.nri.v1.nri']
    disable = true
EOF
}
