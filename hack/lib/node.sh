# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# One node on this machine: containerd and a kubelet, their processes
# (started in sessions of their own, recorded and stopped by pid), their
# configuration and what tearing them down leaves to clean: hack/lib.sh's part
# for a node. The local cluster (hack/lib/cluster.sh) runs one, upstream's
# node e2e suite (hack/e2e-node/run.sh) another beside it: each says where its
# node lives with node_settings, once, and nothing here knows which one it
# serves.

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
  SERVE_CGROUP=""
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
}

# SERVE_CGROUP (empty unless the caller sets it after node_settings) is a
# cgroup, beside the pods' $CGROUP_ROOT and named like it, in which
# start_proc starts every process it starts in a cgroup of its own,
# $SERVE_CGROUP/NAME, in the cpuacct hierarchy only (cgroup v1; nothing
# else about them changes: cpu shares, memory, cpuset stay the machine's).
# Children start in their parent's cgroup, so containerd's holds its shims
# and what they run (runc, CNI plugins) too, and cpuacct.usage keeps the
# CPU of the processes that exited: bench density reads what a pod costs
# each of them there (bench/measure/density_serve.go). The kubelet and
# runc put the pods' containers into $CGROUP_ROOT by absolute paths,
# whatever cgroup they run in themselves.
#
# serve_cgroup_dir prints the folder of $SERVE_CGROUP in the cpuacct
# hierarchy, or fails: no SERVE_CGROUP, or no cgroup v1 cpuacct hierarchy
# (a cgroup v2 machine; the processes then stay where they are).
serve_cgroup_dir() {
  local h
  [ -n "${SERVE_CGROUP:-}" ] || return 1
  h="$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ {print $2; exit}' /proc/self/mounts)"
  [ -n "$h" ] || return 1
  echo "$h$SERVE_CGROUP"
}

# in_serve_cgroup NAME PID succeeds when PID runs in NAME's serve cgroup,
# or when there is none to run in (a process started before SERVE_CGROUP
# was set fails: the callers restart it there).
in_serve_cgroup() {
  serve_cgroup_dir > /dev/null || return 0
  [ "$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ {print $3}' "/proc/$2/cgroup" 2> /dev/null)" = "$SERVE_CGROUP/$1" ]
}

# serve_cgroup_args NAME PID prints bench's flag for the serve cgroups
# (-serve-cgroup and the folder, a word a line) when PID runs in NAME's,
# and nothing when there is none or PID runs outside it.
serve_cgroup_args() {
  local d
  if d="$(serve_cgroup_dir)" && in_serve_cgroup "$1" "$2"; then
    printf '%s\n' -serve-cgroup "$d"
  fi
}

# serve_cgroup_pids prints the processes in the serve cgroups, for the
# callers' leftovers: once the node's processes are stopped by pid, what is
# left there is theirs (a shim, a runc).
serve_cgroup_pids() {
  local d
  d="$(serve_cgroup_dir)" || return 0
  [ -d "$d" ] && find "$d" -name cgroup.procs -exec cat {} + 2> /dev/null
  return 0
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
  local cgroup=""
  if cgroup="$(serve_cgroup_dir)"; then
    cgroup+="/$name"
    mkdir -p "$cgroup"
  fi
  # Run by a non-interactive shell, the subshell and then setsid are not
  # process group leaders, so setsid calls setsid(2) and execs CMD in
  # place: $! is CMD's pid. The subshell moves itself into the serve cgroup
  # first, so that CMD and all it starts are in it from their first
  # instruction. It must not inherit the lock (fd 9, see cluster_lock).
  (
    exec >> "$LOG_DIR/$name.log" 2>&1 < /dev/null 9>&-
    [ -z "$cgroup" ] || echo "$BASHPID" > "$cgroup/cgroup.procs" || echo "cannot start $name in the cgroup $cgroup"
    exec setsid "$@"
  ) &
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
# The kubelet's config is written by hack/tools/clusterconfig from typed
# values (the kubelet's own KubeletConfiguration); the rules for its feature
# gates, eviction thresholds and image GC live there, with their tests.
# kubelet_gate_flags ARRAY and kubelet_disk_flags ARRAY add to ARRAY the
# flags that carry this machine's and the caller's choices to it: the
# release, whether $KUBELET_BIN knows the fork's SidecarContainerOrdering
# (an unpatched kubelet would refuse to start with it; every other gate keeps
# upstream's default), KUBELET_FEATURE_GATES ("Gate=true|false,...", which
# wins; e.g. EventedPLEG=true for that alpha gate),
# KUBELET_EVICTION_HARD and KUBELET_IMAGE_GC_HIGH (see above).
kubelet_gate_flags() {
  local -n _gate_flags="$1"
  _gate_flags+=(-k8s-version="$K8S_VERSION" -feature-gates="${KUBELET_FEATURE_GATES:-}")
  if kubelet_knows_ordering_gate; then _gate_flags+=(-ordering-gate); fi
}
kubelet_disk_flags() {
  local -n _disk_flags="$1"
  _disk_flags+=(-eviction-hard="$KUBELET_EVICTION_HARD" -image-gc-high="$KUBELET_IMAGE_GC_HIGH")
}
# kubelet_feature_gates prints the kubelet's feature gates, Gate=bool,...
kubelet_feature_gates() {
  local -a flags=()
  kubelet_gate_flags flags
  clusterconfig feature-gates "${flags[@]}"
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

# write_cni_conflist FILE NAME [GATEWAY] writes a CNI bridge network on
# $CNI_BRIDGE and $POD_SUBNET, its IPAM state under $NODE_DIR/cni/ipam.
write_cni_conflist() {
  mkdir -p "$NODE_DIR/cni/ipam"
  clusterconfig cni -out "$1" -name "$2" -bridge "$CNI_BRIDGE" -subnet "$POD_SUBNET" \
    -data-dir "$NODE_DIR/cni/ipam" ${3:+-gateway "$3"}
}

# write_containerd_config FILE PAUSE_IMAGE [REGISTRY_CONFIG_PATH] writes a
# containerd config with its own root, state, runc root (under $NODE_DIR)
# and sockets ($CONTAINERD_SOCK), never the system's, the CNI networks of
# $NODE_DIR/cni/net.d and PAUSE_IMAGE as the sandbox image.
# REGISTRY_CONFIG_PATH is a certs.d folder of registry hosts (mirrors).
write_containerd_config() {
  local runc
  runc="$(command -v runc)" || die "runc is not installed (apt-get install runc; make up installs it)"
  clusterconfig containerd -out "$1" -dir "$NODE_DIR" -socket "$CONTAINERD_SOCK" -pause-image "$2" \
    -runc "$runc" ${3:+-registry-config-path "$3"}
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
# are gone: every mount under $NODE_DIR, the bridge, the pods' and the
# processes' (serve) cgroups, the
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
  if h="$(serve_cgroup_dir)" && [ -d "$h" ]; then
    find "$h" -depth -type d -exec rmdir {} + 2> /dev/null || log "cannot remove the serve cgroups under $h"
  fi
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
