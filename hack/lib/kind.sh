# shellcheck shell=bash disable=SC2034  # the scripts that source it use these
# hack/lib.sh's part for kind (hack/kind/*.sh, hack/kubelet-restart.sh): where
# kind's files live, the kind configs and clusters, the Docker engine the kind
# scripts talk to, and kubelet restarts (Debian root file systems are
# hack/tools/nodeimage's: nodeimage rootfs).

KIND_DIR="$OUTPUT/kind"
KIND_CACHE="$KIND_DIR/cache"
KIND_ENGINE="$ROOT/hack/kind/engine.sh"
KIND_BIN="${KIND_BIN:-$BIN_DIR/kind}"
# The node parts' kubectl (nodeimage parts), there whether or not the
# local cluster's binaries were ever built.
KIND_KUBECTL="$KIND_DIR/v$K8S_VERSION/bin/kubectl"

# published_node_image prints kind's published node image of release
# v$K8S_VERSION, pinned by digest (kind-config/published-node-images), or
# nothing when kind publishes none of that release.
published_node_image() {
  awk -v release="v$K8S_VERSION" '!/^#/ && $1 == release { print $2 }' "$ROOT/kind-config/published-node-images"
}

# kind_config CONFIG IMAGE CRI_DIR EVENTED prints the kind config CONFIG
# (kind-config/*.yaml) as make kind-up gives it to kind: every node's image,
# the placeholder sidecar-kubelet/node:pinned in the file, is IMAGE; node n
# gets the folder CRI_DIR/n at its /run/containerd (so that the e2e suite
# reaches its CRI socket); and when EVENTED is 1 the EventedPLEG gate is
# added after SidecarContainerOrdering in the KubeletConfiguration patch.
# The configs carry upstream's defaults plus the fork's gate only:
# EventedPLEG is alpha and off upstream, on only when the user asks for it
# (KUBELET_FEATURE_GATES=EventedPLEG=true, hack/kind/cluster.sh).
kind_config() {
  awk -v image="$2" -v dir="$3" -v evented="$4" '
    /^  image: / {
      print "  image: " image
      print "  extraMounts:"
      print "  - hostPath: " dir "/" n + 0
      print "    containerPath: /run/containerd"
      n++
      next
    }
    { print }
    /^    SidecarContainerOrdering: true$/ && evented == 1 { print "    EventedPLEG: true"; added = 1 }
    # A config without that line would silently lose the gate the user asked for.
    END { if (evented == 1 && !added) { print "kind_config: no SidecarContainerOrdering: true line in " FILENAME " to add EventedPLEG after" > "/dev/stderr"; exit 1 } }' "$1"
}

# kind_cluster NODES prints the name of the project's kind cluster of NODES
# nodes: sidecar-kubelet (1: a control plane that is also the worker) or
# sidecar-kubelet-multi (3: a control plane and two workers).
kind_cluster() {
  case "$1" in
    1) echo sidecar-kubelet ;;
    3) echo sidecar-kubelet-multi ;;
    *) die "NODES must be 1 or 3, not '$1'" ;;
  esac
}

# ensure_engine: a Docker engine that answers, for docker and kind: one that
# answers already (a user's) is used as it is, else hack/kind/engine.sh
# starts the project's.
ensure_engine() {
  use_engine
  docker info > /dev/null 2>&1 && return 0
  "$KIND_ENGINE" up
  use_engine
}

# use_engine: point docker at the engine hack/kind/engine.sh runs (its socket
# file), or at the default socket when another engine answers there.
use_engine() {
  local sock
  sock="$(cat "$KIND_DIR/docker/socket" 2> /dev/null || echo /var/run/docker.sock)"
  export DOCKER_HOST="unix://$sock"
}

# kind_restart_kubelets restarts the kubelet of kind nodes through each
# node's systemd, optionally with another kubelet binary or feature gates,
# and returns once every restarted kubelet answers /healthz; the pods keep
# running (hack/kubelet-restart.sh). Which nodes: KIND_NODE (one container),
# else NODE_NAME (the node the e2e suite tests, which is also its container
# in kind), else every node of KIND_CLUSTER. KUBELET_BIN replaces
# /usr/bin/kubelet (atomically, by a rename in the node).
# KUBELET_FEATURE_GATES (e.g. SidecarContainerOrdering=false) is added to
# the kubelet's flags as --feature-gates, which win over the
# KubeletConfiguration's gate by gate; unset or empty, the kubelet runs with
# the configured gates again. The flags go through /etc/default/kubelet
# (KUBELET_EXTRA_ARGS, which the node's kubelet.service reads): its own
# content is kept, in /etc/default/kubelet.sidecar-kubelet-orig, and the
# gates are appended to it.
kind_restart_kubelets() {
  local nodes=() n pids=() p rc=0
  # The project's engine, unless the caller points docker elsewhere.
  [ -n "${DOCKER_HOST:-}" ] || use_engine
  if [ -n "${KIND_NODE:-}" ]; then
    nodes=("$KIND_NODE")
  elif [ -n "${NODE_NAME:-}" ]; then
    nodes=("$NODE_NAME")
  else
    mapfile -t nodes < <(docker ps --filter "label=io.x-k8s.kind.cluster=$KIND_CLUSTER" --format '{{.Names}}' | sort)
    [ "${#nodes[@]}" -gt 0 ] || die "no running node of kind cluster $KIND_CLUSTER"
  fi
  for n in "${nodes[@]}"; do
    kind_restart_kubelet "$n" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return "$rc"
}

# kind_restart_kubelet NODE: kind_restart_kubelets' work on one node.
kind_restart_kubelet() {
  local node="$1"
  if [ -n "${KUBELET_BIN:-}" ]; then
    docker cp "$KUBELET_BIN" "$node:/usr/bin/kubelet.new"
    docker exec "$node" sh -c 'chmod 0755 /usr/bin/kubelet.new && mv -f /usr/bin/kubelet.new /usr/bin/kubelet'
  fi
  docker exec -i "$node" bash -euc '
    orig=/etc/default/kubelet.sidecar-kubelet-orig
    [ -e "$orig" ] || { if [ -e /etc/default/kubelet ]; then cp -p /etc/default/kubelet "$orig"; else : > "$orig"; fi; }
    if [ -n "$1" ]; then
      extra="$(. "$orig"; echo "${KUBELET_EXTRA_ARGS:-}")"
      { grep -v "^KUBELET_EXTRA_ARGS=" "$orig" || true
        printf "KUBELET_EXTRA_ARGS=%s\n" "${extra:+$extra }--feature-gates=$1"; } > /etc/default/kubelet
    else
      cp -p "$orig" /etc/default/kubelet
    fi
    systemctl restart kubelet
    for _ in $(seq 120); do
      if curl -sf http://127.0.0.1:10248/healthz > /dev/null; then
        echo "kubelet of $HOSTNAME restarted ($(/usr/bin/kubelet --version), feature gates: ${1:-as configured})"
        exit 0
      fi
      sleep 0.5
    done
    echo "the kubelet of $HOSTNAME did not answer /healthz within 60s" >&2
    systemctl status kubelet --no-pager >&2 || true
    exit 1
  ' kind-kubelet-restart "${KUBELET_FEATURE_GATES:-}"
}
