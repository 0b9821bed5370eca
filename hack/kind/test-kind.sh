#!/usr/bin/env bash
# make test-kind: the e2e suite on a kind cluster of the project's node image
# (NODES=1 by default, or 3), its kubelet-restart specs through the nodes'
# systemd. Brings the cluster up (hack/kind/cluster.sh up), runs the suite,
# and takes the cluster down again unless it was up before. Before the suite,
# it checks the cluster's default storage (storage_check).
#
# Env: NODES, K8S_VERSION, KIND_NODE_BASE (as make kind-up), FOCUS, SKIP,
#      PROCS (as make e2e).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

nodes="${NODES:-1}"
name="$(kind_cluster "$nodes")"
kubeconfig="$KIND_DIR/$name.kubeconfig"
kubectl() { "$KIND_KUBECTL" --kubeconfig "$kubeconfig" "$@"; }
was_up=false
[ -f "$kubeconfig" ] && kubectl get --raw /readyz > /dev/null 2>&1 && was_up=true

teardown() {
  local rc=$?
  [ "$was_up" = true ] || "$ROOT/hack/kind/cluster.sh" down || rc=1
  exit "$rc"
}
trap teardown EXIT

# storage_check: the default StorageClass works as in kind's own clusters
# (local-path-provisioner): a claim that names no class is bound when its
# pod is scheduled, the pod writes into the volume (testserver's hook
# creates a file), the file is in the node's folder of the volume, and the
# folder goes with the claim (reclaim policy Delete).
storage_check() {
  local ns=sidecar-kubelet-storage-check t=$SECONDS pv node path
  kubectl delete namespace "$ns" --ignore-not-found --wait=true --timeout=120s > /dev/null
  kubectl create namespace "$ns" > /dev/null
  kubectl apply -n "$ns" -f - > /dev/null << 'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 1Mi
---
apiVersion: v1
kind: Pod
metadata:
  name: write
spec:
  restartPolicy: Never
  containers:
  - name: write
    image: sidecar-kubelet.local/testserver:1
    imagePullPolicy: Never
    command: ["/testserver", "hook", "--name", "storage-check", "--touch", "/data/written", "--out", "/data/log"]
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
EOF
  if ! kubectl wait -n "$ns" --for=jsonpath='{.status.phase}'=Succeeded pod/write --timeout=180s > /dev/null; then
    kubectl describe -n "$ns" pvc/data pod/write >&2 || true
    kubectl logs -n local-path-storage deploy/local-path-provisioner --tail=30 >&2 || true
    die "storage: the pod writing to a claim of the default StorageClass did not succeed"
  fi
  pv="$(kubectl get -n "$ns" pvc/data -o jsonpath='{.spec.volumeName}')"
  node="$(kubectl get -n "$ns" pod/write -o jsonpath='{.spec.nodeName}')"
  path="$(kubectl get "pv/$pv" -o jsonpath='{.spec.hostPath.path}{.spec.local.path}')"
  [ -n "$path" ] || die "storage: volume $pv has no path on its node"
  docker exec "$node" test -f "$path/written" || die "storage: $path/written is not on $node"
  kubectl delete namespace "$ns" --wait=true --timeout=120s > /dev/null || die "storage: namespace $ns was not deleted within 120 s"
  kubectl wait --for=delete "pv/$pv" --timeout=120s > /dev/null 2>&1 || die "storage: volume $pv outlived its claim"
  wait_for "the provisioner to remove $path from $node" 60 docker exec "$node" test ! -e "$path" || die "storage: $path is left on $node"
  log "storage: a claim of the default StorageClass bound ($pv on $node), written and removed in $((SECONDS - t))s"
}

t0=$SECONDS
"$ROOT/hack/kind/cluster.sh" up
up=$((SECONDS - t0))
log "kind cluster ready after ${up}s"
use_engine
storage_check
t1=$SECONDS
read -r node sock <<< "$("$ROOT/hack/kind/cluster.sh" e2e-node)"
mkdir -p "$OUTPUT/e2e"
e2e_log="$OUTPUT/e2e/kind-$name.log"
rc=0
KUBECONFIG="$kubeconfig" NODE_NAME="$node" CONTAINER_RUNTIME_ENDPOINT="unix://$sock" \
  SIDECAR_E2E_KUBELET_RESTART="KIND_CLUSTER=$name $ROOT/hack/kubelet-restart.sh" "$ROOT/e2e/run.sh" 2>&1 | tee "$e2e_log" || rc=$?
e2e=$((SECONDS - t1))

# What the run measured, from ginkgo's summary (without its colours): in
# $KIND_DIR/test-kind-<cluster>.result always, and in
# docs/results/kind-v<release>-<nodes>-node.md (one file per release and
# cluster size, in the README's results table) when the node image took the
# default path and the whole suite ran (a run on a KIND_NODE_BASE of one's
# own is not the quick start the README shows; a focused run is not the
# suite's result).
summary="$(ginkgo_counts "$(ginkgo_summary "$e2e_log")")"
summary="${summary:-no summary (see ${e2e_log#"$ROOT"/})}"
up_text="\`make kind-up\` ${up} s"
[ "$was_up" = false ] || up_text="the cluster was up already"
result="$KIND_DIR/test-kind-$name.result"
ready="$(kubectl get nodes --no-headers | grep -cw Ready || true)"
kubelet="$(kubectl get node "$node" -o jsonpath='{.status.nodeInfo.kubeletVersion}' || true)"
echo "$(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores: $up_text ($ready node(s) Ready, kubelet $kubelet); the e2e suite on $node: $summary, in ${e2e} s." > "$result"
if [ -z "${KIND_NODE_BASE:-}${FOCUS:-}${SKIP:-}" ]; then
  failed_specs="$(ginkgo_failed_specs "$e2e_log")"
  {
    echo "\`make test-kind K8S_VERSION=$K8S_VERSION NODES=$nodes\` of $(cat "$result")"
    [ -z "$failed_specs" ] || printf '\nThe specs that failed:\n\n%s\n' "$failed_specs"
  } | record_result "kind-v$K8S_VERSION-$nodes-node" "make test-kind"
fi
[ "$rc" = 0 ] || die "the e2e suite failed on kind ($nodes node(s)): $e2e_log"
log "e2e suite passed on kind ($nodes node(s)) in ${e2e}s; $((SECONDS - t0))s in all"
