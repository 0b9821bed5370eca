#!/usr/bin/env bash
# make test-kind: the e2e suite on a kind cluster of the project's node image
# (NODES=1 by default, or 3), its kubelet-restart specs through the nodes'
# systemd. Brings the cluster up (hack/kind/cluster.sh up), runs the suite,
# and takes the cluster down again unless it was up before.
#
# Env: NODES, K8S_VERSION, FOCUS, SKIP, PROCS (as make e2e).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$ROOT/hack/kind/lib.sh"

nodes="${NODES:-1}"
name=sidecar-kubelet
[ "$nodes" != 3 ] || name=sidecar-kubelet-multi
kubeconfig="$KIND_DIR/$name.kubeconfig"
was_up=false
[ -f "$kubeconfig" ] && "$K8S_BIN_DIR/kubectl" --kubeconfig "$kubeconfig" get --raw /readyz > /dev/null 2>&1 && was_up=true

teardown() {
  local rc=$?
  [ "$was_up" = true ] || "$ROOT/hack/kind/cluster.sh" down || rc=1
  exit "$rc"
}
trap teardown EXIT

t0=$SECONDS
"$ROOT/hack/kind/cluster.sh" up
log "kind cluster ready after $((SECONDS - t0))s"
t1=$SECONDS
read -r node sock <<< "$("$ROOT/hack/kind/cluster.sh" e2e-node)"
KUBECONFIG="$kubeconfig" NODE_NAME="$node" CONTAINER_RUNTIME_ENDPOINT="unix://$sock" \
  SIDECAR_E2E_KUBELET_RESTART="$ROOT/hack/kind-kubelet-restart.sh" "$ROOT/e2e/run.sh"
log "e2e suite passed on kind ($nodes node(s)) in $((SECONDS - t1))s; $((SECONDS - t0))s in all"
