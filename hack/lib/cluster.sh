# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# hack/lib.sh's part for the local cluster (hack/cluster/*.sh, hack/bench/run.sh,
# hack/kubelet-restart.sh): its settings and helpers. Its node (containerd, the
# kubelet, their processes and teardown) is hack/lib/node.sh's, which
# upstream's node e2e suite (hack/e2e-node/run.sh) uses too.
#
# The cluster runs one Kubernetes release throughout: up.sh records
# it in _output/cluster/k8s-version when it creates the cluster's state, runs
# every component from that release's $K8S_BIN_DIR, and refuses to start
# another release's binaries on that state (make down first). Scripts that
# only act on a running cluster (kubelet-restart.sh, test-e2e.sh) set
# CLUSTER_FOLLOWS_RECORDED_VERSION=1 before sourcing hack/lib.sh: without an
# explicit K8S_VERSION they then use the recorded release, not the default
# (hack/lib.sh reads it, since every other setting follows the release).

# cluster_settings sets the local cluster's settings, for the scripts that
# run or use it; they call it once, right after sourcing hack/lib.sh. (A
# function, not settings at source time, so that a script of another area
# keeps its own NODE_NAME, KUBELET_BIN and node settings.)
cluster_settings() {
  # Debian packages the cluster needs, as "command-or-path:package"; up.sh
  # installs the missing ones.
  DEBIAN_DEPS="etcd:etcd-server runc:runc /usr/lib/cni/bridge:containernetworking-plugins
  curl:curl openssl:openssl iptables:iptables"

  # CLUSTER_INSTANCE=N (default 0) runs a second (third, ...) cluster beside
  # the first on the same machine: instance N keeps its state in
  # _output/cluster-N and shifts every port by N*100, the pod subnet to
  # 10.(88+N).0.0/16, the service range to 10.(96+N).0.0/16, the bridge to
  # cni-skN, the cgroup root to /sidecar-kubelet-N (its components' cgroups:
  # /sidecar-kubelet-N-serve); its containerd (root,
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
  # The node (hack/lib/node.sh): its state under $CLUSTER_DIR (run/, logs/,
  # config/, kubelet/, containerd/, cni/), its own cgroup parent for the pods,
  # bridge and pod subnet.
  node_settings "$CLUSTER_DIR" "/sidecar-kubelet$CLUSTER_SUFFIX" "cni-sk$CLUSTER_INSTANCE" "10.$((88 + CLUSTER_INSTANCE)).0.0/16"
  # Every component in a cpuacct cgroup of its own, /sidecar-kubelet-serve/NAME
  # (-N-serve for instance N): what bench density reads each one's CPU from,
  # containerd's shims and runc included (hack/lib/node.sh, SERVE_CGROUP).
  SERVE_CGROUP="$CGROUP_ROOT-serve"
  PKI_DIR="$CLUSTER_DIR/pki"
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
  SERVICE_CIDR="10.$((96 + CLUSTER_INSTANCE)).0.0/16"
  # KUBELET_VERBOSITY=N is the kubelet's --v (4 shows every pod sync and the
  # actions computePodActions chose).
  KUBELET_VERBOSITY="${KUBELET_VERBOSITY:-2}"
  [[ "$KUBELET_VERBOSITY" =~ ^[0-9]+$ ]] || die "KUBELET_VERBOSITY must be a number, not '$KUBELET_VERBOSITY'"

  KUBECTL="$K8S_BIN_DIR/kubectl"

  # The components, in start order (down.sh has its own order).
  COMPONENTS="etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet"
}

# check_cluster_version dies unless the cluster's recorded release (if any)
# is $K8S_VERSION: the kubelet must never run against another release's
# control plane, nor the control plane on another release's etcd data.
check_cluster_version() {
  local recorded
  recorded="$(cat "$CLUSTER_VERSION_FILE" 2>/dev/null || true)"
  [ -z "$recorded" ] || [ "$recorded" = "$K8S_VERSION" ] ||
    die "the local cluster runs v$recorded, not v$K8S_VERSION: use K8S_VERSION=$recorded, or make down first"
}

# cluster_lock makes the scripts that change the cluster take turns.
cluster_lock() {
  mkdir -p "$OUTPUT"
  local lock="$OUTPUT/.cluster$CLUSTER_SUFFIX.lock"
  exec 9> "$lock"
  flock -n 9 && return 0
  log "waiting for another cluster script to finish (lock $lock)"
  flock -w 600 9 || die "another cluster script holds $lock"
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
# write_kubelet_config writes $CONF_DIR/kubelet.yaml: the kubelet on
# 127.0.0.1 only, TLS and webhook authentication and authorization against
# the cluster's CA.
write_kubelet_config() {
  local -a flags=(-node cluster -address 127.0.0.1 -port "$KUBELET_PORT" -healthz-port "$KUBELET_HEALTHZ_PORT"
    -pki-dir "$PKI_DIR" -runtime-endpoint "unix://$CONTAINERD_SOCK" -cgroup-root "$CGROUP_ROOT"
    -pod-logs-dir "$CLUSTER_DIR/pod-logs")
  kubelet_gate_flags flags
  kubelet_disk_flags flags
  clusterconfig kubelet -out "$CONF_DIR/kubelet.yaml" "${flags[@]}"
}

# kubelet_cmd prints the kubelet's command line, one word a line.
kubelet_cmd() {
  printf '%s\n' "$KUBELET_BIN" \
    --config="$CONF_DIR/kubelet.yaml" \
    --kubeconfig="$CONF_DIR/kubelet.kubeconfig" \
    --root-dir="$KUBELET_ROOT" \
    --v="$KUBELET_VERBOSITY"
}

# command_fingerprint WORD... prints a digest of a command line's words
# and, for each that is a file, its identity and content (binaries: inode,
# size, mtime, since they are replaced by mv and are large): what a running
# process was started as, kept in RUN_DIR/NAME.fingerprint (not a build
# cache: that is hack/lib.sh's cache_*).
command_fingerprint() {
  local w
  for w in "$@"; do
    echo "arg $w"
    case "$w" in
      --*=/*) w="${w#*=}" ;;
    esac
    if [ -f "$w" ]; then
      if [ -x "$w" ]; then stat -Lc 'bin %i %s %Y' "$w"; else sha256sum "$w"; fi
    fi
  done | cache_key
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
  fp="$(command_fingerprint "${cmd[@]}")"
  if [ -z "$force" ] && proc_pid kubelet > /dev/null && [ "$(cat "$RUN_DIR/kubelet.fingerprint")" = "$fp" ] &&
    in_serve_cgroup kubelet "$(proc_pid kubelet)"; then
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

# wait_kubelet_node_ready waits until the node is Ready as posted by the
# kubelet that runs now.
wait_kubelet_node_ready() {
  wait_for "node $NODE_NAME to be Ready" 180 node_ready_since "$(cat "$RUN_DIR/kubelet.since")" ||
    die "node $NODE_NAME is not Ready; see $LOG_DIR/kubelet.log and: $KUBECTL --kubeconfig $ADMIN_KUBECONFIG describe node $NODE_NAME"
}

# restart_cluster_kubelet restarts only the local cluster's kubelet, keeping
# its pods (hack/kubelet-restart.sh): it stops it by its pid, starts it again
# with the cluster's configuration and the feature gates that
# KUBELET_FEATURE_GATES asks for now (e.g. "SidecarContainerOrdering=false";
# unset gives the default, SidecarContainerOrdering=true), and waits until
# the restarted kubelet has posted the node Ready. KUBELET_BIN=path runs
# another kubelet binary (e.g. the unpatched _output/vX.Y.Z/bin/kubelet-upstream
# of hack/patches/build-kubelet-upstream.sh; it gets no
# SidecarContainerOrdering gate); a later restart without it goes back to
# _output/vX.Y.Z/bin/kubelet.
restart_cluster_kubelet() {
  local started=$SECONDS c
  [ "$(id -u)" = 0 ] || die "the local cluster runs as root"
  cluster_lock
  for c in kube-apiserver containerd; do
    proc_pid "$c" > /dev/null || die "the local cluster is not up ($c is not running): run make up"
  done
  start_kubelet force
  wait_kubelet_node_ready
  log "kubelet restarted ($("$KUBELET_BIN" --version), pid $(proc_pid kubelet), feature gates: $(kubelet_feature_gates)) in $((SECONDS - started))s"
}
