# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# One node on this machine: containerd and a kubelet, their processes
# (started in sessions of their own, recorded and stopped by pid), their
# configuration and what tearing them down leaves to clean. The local cluster
# (hack/cluster/lib.sh) runs one, upstream's node e2e suite
# (hack/e2e-node/run.sh) another beside it: each says where its node lives
# with node_settings, once, and nothing here knows which one it serves.
# Source it after hack/lib.sh.

# node_settings DIR CGROUP_ROOT CNI_BRIDGE POD_SUBNET sets where a node keeps
# its state (DIR: run/ for pid files and sockets, logs/, config/, kubelet/,
# containerd/, cni/), the pods' cgroup parent (in every cgroup hierarchy, so
# that they never mix with another kubelet's /kubepods, and teardown knows
# them), its CNI bridge and the pods' subnet.
node_settings() {
  NODE_DIR="$1" CGROUP_ROOT="$2" CNI_BRIDGE="$3" POD_SUBNET="$4"
  RUN_DIR="$NODE_DIR/run"         # pid files, sockets, fingerprints of what runs
  LOG_DIR="$NODE_DIR/logs"
  CONF_DIR="$NODE_DIR/config"
  CONTAINERD_SOCK="$RUN_DIR/containerd.sock"
  KUBELET_ROOT="$NODE_DIR/kubelet"
}

# The kubelet binary the node runs: KUBELET_BIN=path (e.g.
# _output/vX.Y.Z/bin/kubelet-upstream, for make kubelet-restart) overrides it.
KUBELET_BIN="${KUBELET_BIN:-$K8S_BIN_DIR/kubelet}"
# Both nodes share their disk with
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

# ctr on our containerd, without the warning every call prints on cgroup v1.
ctr() { "$BIN_DIR/ctr" --address "$CONTAINERD_SOCK" "$@" 2> >(grep -v 'DEPRECATION: The support for cgroup v1' >&2); }
containerd_healthy() { ctr version; }

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

# --- runtime configuration ---------------------------------------------------

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

# write_containerd_config FILE DIR PAUSE_IMAGE [REGISTRY_CONFIG_PATH] writes
# a containerd config with its own root, state, runc root (under DIR) and
# sockets ($CONTAINERD_SOCK), never the system's, the CNI networks of
# DIR/cni/net.d and PAUSE_IMAGE as the sandbox image. REGISTRY_CONFIG_PATH
# is a certs.d folder of registry hosts (mirrors).
write_containerd_config() {
  local file="$1" dir="$2" pause_image="$3" registry=""
  [ -z "${4:-}" ] || registry="
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = \"$4\""
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
      sandbox = "$pause_image"$registry
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

# --- teardown ----------------------------------------------------------------

# sweep_pods removes the pods' sandboxes and containers through the CRI while
# containerd runs, so that their networks are torn down as the kubelet would;
# what it misses the caller's leftovers/kill_leftovers find.
sweep_pods() {
  proc_pid containerd > /dev/null || return 0
  log "removing the pods' sandboxes and containers"
  "$BIN_DIR/crisweep" -endpoint "unix://$CONTAINERD_SOCK" -timeout 2m >&2 ||
    log "crisweep failed; what is left is killed below"
}

# pod_cgroup_pids prints the processes in the pods' cgroups, for the
# callers' leftovers (see kill_leftovers in hack/lib.sh): after a teardown
# there should be none.
pod_cgroup_pids() {
  local h
  for h in /sys/fs/cgroup/*/"${CGROUP_ROOT#/}"; do
    [ -d "$h" ] && find "$h" -name cgroup.procs -exec cat {} + 2> /dev/null
  done
  return 0
}

# node_teardown cleans what a node leaves on the machine once its processes
# are gone: every mount under $NODE_DIR, the bridge, the pods' cgroups, the
# kubelet's iptables chains and device-plugin socket (if it added them) and
# stale shim sockets. Fails if mounts are left under $NODE_DIR (the caller
# must then not delete the folder), after doing the rest all the same.
node_teardown() {
  local unmounted=0 h live f
  unmount_under "$NODE_DIR" || unmounted=1
  if ip link show "$CNI_BRIDGE" > /dev/null 2>&1; then
    log "deleting the bridge $CNI_BRIDGE"
    ip link delete "$CNI_BRIDGE"
  fi
  for h in /sys/fs/cgroup/*/"${CGROUP_ROOT#/}"; do
    [ -d "$h" ] || continue
    find "$h" -depth -type d -exec rmdir {} + 2> /dev/null || log "cannot remove the cgroups under $h"
  done
  clean_host_state
  rm -f "$RUN_DIR/host-state"
  # The shims' sockets live in the fixed /run/containerd/s. A shim that exits
  # removes its own; a killed one leaves it: remove those that nothing
  # listens on (another containerd's live shims keep theirs).
  if [ -d /run/containerd/s ]; then
    live="$(awk '$8 ~ "^/run/containerd/s/" {print $8}' /proc/net/unix)"
    for f in /run/containerd/s/*; do
      [ ! -S "$f" ] || grep -qxF "$f" <<< "$live" || rm -f "$f"
    done
    rmdir /run/containerd/s /run/containerd 2> /dev/null || true
  fi
  return "$unmounted"
}
