#!/usr/bin/env bash
# make kind-up / make kind-down: a kind cluster whose nodes run the patched
# kubelet.
#
#   hack/kind/cluster.sh up     NODES=1 (default): one node, control plane
#                               and worker (kind-config/one-node.yaml,
#                               cluster sidecar-kubelet); NODES=3: a control
#                               plane and two workers (three-node.yaml,
#                               cluster sidecar-kubelet-multi)
#   hack/kind/cluster.sh down   delete this project's kind clusters (both),
#                               kind's network, and stop the Docker engine if
#                               hack/kind/engine.sh started it
#
# `up` starts the engine (hack/kind/engine.sh), builds kind (build-kind.sh),
# the node image (NODE_IMAGE_FROM=sources: node-image.sh build; =registry:
# node-image.sh from-base, on the published kindest/node of the release or the one
# kind builds for it) and the test image, creates the cluster with the
# project's config, loads the test image into every node and waits for
# every node Ready, and applies the admission policy of contract rule 16
# (deploy/sidecar-annotation-policy.yaml). The kubeconfig goes to
# _output/kind/<cluster>.kubeconfig. A second `up` with nothing changed
# only applies the policy again, which changes nothing; with a new node
# image it creates the cluster again.
#
# On a machine whose capability bounding set lacks CAP_SYS_RESOURCE (this
# project's), kind's `--privileged` cannot work: the docker stand-in
# hack/kind/standin/docker goes first on kind's PATH (docs/kind.md). A
# KubeletConfiguration patch with failCgroupV1: false is added on cgroup v1
# hosts, where the v1.37 kubelet refuses to start otherwise.
#
# Env: NODES (1 or 3), K8S_VERSION, NODE_IMAGE, NODE_IMAGE_FROM (auto, the
#      default: registry if the base below can be pulled or kind can build
#      it, else sources), KIND_NODE_BASE (the registry path's base, e.g. a
#      mirror's copy of kindest/node, pinned by digest; default kind's
#      published image of the release, kind-config/published-node-images,
#      or the one kind builds), KIND_WAIT (seconds for the nodes to be
#      Ready, default 300).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

nodes="${NODES:-1}"
name="$(kind_cluster "$nodes")"
config="$ROOT/kind-config/one-node.yaml"
[ "$nodes" = 1 ] || config="$ROOT/kind-config/three-node.yaml"
node_image="${NODE_IMAGE:-sidecar-kubelet/node:v$K8S_VERSION}"
kubeconfig="$KIND_DIR/$name.kubeconfig"
kubectl() { "$KIND_KUBECTL" --kubeconfig "$kubeconfig" "$@"; }

# bounding_set_lacks_sys_resource: kind's --privileged fails here (docs/kind.md).
bounding_set_lacks_sys_resource() {
  local bnd
  bnd="$(awk '/^CapBnd:/ {print $2}' /proc/self/status)"
  ((((0x$bnd >> 24) & 1) == 0))
}

kind_cmd() { "$KIND_BIN" "$@"; }

# kind_node_base: the base of the registry path, in the engine; sets
# node_base to its reference. In order:
#   KIND_NODE_BASE, when set (a mirror's copy, an image of one's own, best
#     pinned by digest): already in the engine, or pulled; nothing else;
#   kind's published image of the release, pinned by digest: already in the
#     engine, or pulled;
#   for a release kind publishes no image of, kindest/node:v$K8S_VERSION as
#     kind itself builds it: `kind build node-image --type release` takes
#     the release's binaries and control-plane images from its download
#     site, and kind's base and add-on images from their registries;
#     nothing is compiled here.
# Fails when none of that can be reached.
kind_node_base() {
  local published out t0=$SECONDS buildlog="$KIND_DIR/kind-build-node-image.log"
  published="$(published_node_image)"
  node_base="${KIND_NODE_BASE:-${published:-kindest/node:v$K8S_VERSION}}"
  docker image inspect "$node_base" > /dev/null 2>&1 && return 0
  if [ -n "${KIND_NODE_BASE:-}" ] || [ -n "$published" ]; then
    log "docker pull $node_base"
    if out="$(timeout 1800 docker pull "$node_base" 2>&1)"; then
      log "pulled $node_base in $((SECONDS - t0))s"
      return 0
    fi
    log "cannot pull $node_base: $(tail -n1 <<< "$out")"
    return 1
  fi
  log "kind publishes no node image of v$K8S_VERSION: kind build node-image --type release v$K8S_VERSION (log: ${buildlog#"$ROOT"/})"
  mkdir -p "$KIND_DIR"
  if timeout 1800 "$KIND_BIN" build node-image --type release "v$K8S_VERSION" --image "$node_base" > "$buildlog" 2>&1; then
    log "kind built $node_base in $((SECONDS - t0))s"
    return 0
  fi
  log "kind build node-image failed: $(grep -m1 -i 'error\|fail' "$buildlog" || tail -n1 "$buildlog")"
  return 1
}

cmd_up() {
  local t0=$SECONDS
  [ "$(id -u)" = 0 ] || die "needs root (the Docker engine, debootstrap)"
  ensure_engine
  "$ROOT/hack/kind/build-kind.sh"
  if bounding_set_lacks_sys_resource; then
    log "this machine's capability bounding set lacks CAP_SYS_RESOURCE: kind runs docker through the stand-in hack/kind/standin/docker (docs/kind.md)"
    export PATH="$ROOT/hack/kind/standin:$PATH"
  fi

  # The node image.
  # KIND_NODE_BASE names a registry's image: the registry path, or nothing.
  local from="${NODE_IMAGE_FROM:-auto}" node_base
  [ -z "${KIND_NODE_BASE:-}" ] || [ "$from" != auto ] || from=registry
  if [ "$from" = auto ]; then
    if kind_node_base; then
      from=registry
    else
      from=sources
      log "no base image for the registry path (no registry, or neither kind nor its download site has v$K8S_VERSION): the node image is built from sources"
    fi
  elif [ "$from" = registry ]; then
    kind_node_base || die "the registry path's base ${KIND_NODE_BASE:+(KIND_NODE_BASE) }$node_base could not be pulled or built (see above); without a registry, NODE_IMAGE_FROM=sources${KIND_NODE_BASE:+ and no KIND_NODE_BASE} builds the node image here"
  elif [ -n "${KIND_NODE_BASE:-}" ]; then
    die "KIND_NODE_BASE is the base of the registry path; NODE_IMAGE_FROM=$from does not take one"
  fi
  case "$from" in
    registry) NODE_IMAGE="$node_image" BASE_REF="$node_base" "$ROOT/hack/kind/node-image.sh" from-base ;;
    sources) NODE_IMAGE="$node_image" "$ROOT/hack/kind/node-image.sh" build ;;
    *) die "NODE_IMAGE_FROM must be auto, registry or sources, not '$from'" ;;
  esac
  "$ROOT/hack/images/build.sh"
  local image_id
  image_id="$(docker image inspect -f '{{.Id}}' "$node_image")"

  # The cluster: kept when it runs this very image and every node is Ready.
  if kind_cmd get clusters 2> /dev/null | grep -qx "$name"; then
    local running ids
    running="$(docker ps -q --filter "label=io.x-k8s.kind.cluster=$name" | wc -l)"
    ids="$(docker ps -q --filter "label=io.x-k8s.kind.cluster=$name" | xargs -r docker inspect -f '{{.Image}}' | sort -u)"
    if [ "$running" = "$nodes" ] && [ "$ids" = "$image_id" ] && [ -f "$kubeconfig" ] &&
      kubectl wait --for=condition=Ready nodes --all --timeout=10s > /dev/null 2>&1; then
      log "kind cluster $name is up with $node_image; nothing to do"
      apply_admission_policy kubectl || die "the API server of $name does not enforce the admission policy"
      show
      return
    fi
    log "kind cluster $name runs another node image or is not Ready: creating it again"
    kind_cmd delete cluster --name "$name"
  fi

  # The config: the project's, with this node image, plus failCgroupV1:
  # false on a cgroup v1 host.
  local cfg="$KIND_DIR/$name.yaml"
  # Each node's /run/containerd is a folder here, so that the e2e suite
  # reaches the node's CRI socket for the runtime's nanosecond times
  # (private propagation: nothing the node mounts there shows here).
  rm -rf "$KIND_DIR/$name-cri"
  # The kubelet's EventedPLEG gate as the local cluster has it: off, as
  # upstream has it (alpha), unless KUBELET_FEATURE_GATES turns it on. The
  # gates are read on a line of their own so that a malformed
  # KUBELET_FEATURE_GATES stops the script instead of reading as "off".
  local evented=0 gates
  gates="$(clusterconfig feature-gates -k8s-version "$K8S_VERSION" -feature-gates "${KUBELET_FEATURE_GATES:-}")"
  case ",$gates," in *,EventedPLEG=true,*) evented=1 ;; esac
  kind_config "$config" "$node_image" "$KIND_DIR/$name-cri" "$evented" > "$cfg"
  local i
  for ((i = 0; i < nodes; i++)); do mkdir -p "$KIND_DIR/$name-cri/$i"; done
  if [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
    cat >> "$cfg" << 'EOF'
# Added by hack/kind/cluster.sh: this host's cgroups are v1, which the v1.37
# kubelet refuses unless told otherwise.
- |
  kind: KubeletConfiguration
  apiVersion: kubelet.config.k8s.io/v1beta1
  failCgroupV1: false
EOF
  fi
  log "kind create cluster --name $name ($nodes node(s), $node_image)"
  local t1=$SECONDS
  kind_cmd create cluster --name "$name" --config "$cfg" --kubeconfig "$kubeconfig" --retain=false
  log "kind create cluster took $((SECONDS - t1))s"
  kind_cmd load image-archive --name "$name" "$OUTPUT/images/testserver.tar"
  wait_for "every node of $name Ready" "${KIND_WAIT:-300}" kubectl wait --for=condition=Ready nodes --all --timeout=5s > /dev/null
  # contract rule 16's admission policy (deploy/README.md).
  apply_admission_policy kubectl || die "the API server of $name does not enforce the admission policy"
  log "kind cluster $name up in $((SECONDS - t0))s"
  show
}

# e2e_node: the node the e2e suite tests (the first worker, or the only
# node) and its CRI socket here.
e2e_node() {
  if [ "$nodes" = 1 ]; then echo "$name-control-plane $KIND_DIR/$name-cri/0/containerd.sock"; else echo "$name-worker $KIND_DIR/$name-cri/1/containerd.sock"; fi
}

show() {
  local node sock
  read -r node sock <<< "$(e2e_node)"
  kubectl get nodes -o wide
  cat << EOF
kubeconfig: ${kubeconfig#"$ROOT"/}
  export KUBECONFIG=$kubeconfig
the e2e suite on it (make test-kind NODES=$nodes does this, then kind-down):
  KUBECONFIG=$kubeconfig NODE_NAME=$node CONTAINER_RUNTIME_ENDPOINT=unix://$sock SIDECAR_E2E_KUBELET_RESTART="KIND_CLUSTER=$name $ROOT/hack/kubelet-restart.sh" make e2e
EOF
}

cmd_down() {
  use_engine
  if ! docker info > /dev/null 2>&1; then
    log "no Docker engine answers: no kind cluster to delete"
    return
  fi
  if [ -x "$KIND_BIN" ]; then
    local c
    for c in "$(kind_cluster 1)" "$(kind_cluster 3)"; do
      if kind_cmd get clusters 2> /dev/null | grep -qx "$c"; then
        kind_cmd delete cluster --name "$c"
      fi
    done
  fi
  rm -f "$KIND_DIR"/sidecar-kubelet*.kubeconfig
  local d
  for d in "$KIND_DIR"/sidecar-kubelet*-cri; do
    [ -d "$d" ] || continue
    unmount_under "$d" && rm -rf "$d"
  done
  # kind leaves its network behind; remove it when no container uses it.
  if docker network inspect kind > /dev/null 2>&1 &&
    [ "$(docker network inspect -f '{{len .Containers}}' kind)" = 0 ]; then
    docker network rm kind > /dev/null
  fi
  # Our own engine goes too (a user's system engine stays).
  if "$KIND_ENGINE" status > /dev/null 2>&1; then
    if [ -z "$(docker ps -aq)" ]; then
      "$KIND_ENGINE" down
    else
      log "the engine keeps running: it holds containers that are not this project's ($(docker ps -a --format '{{.Names}}' | paste -sd' '))"
    fi
  fi
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  e2e-node) e2e_node ;;
  *) die "usage: hack/kind/cluster.sh up|down|e2e-node (NODES=1|3)" ;;
esac
