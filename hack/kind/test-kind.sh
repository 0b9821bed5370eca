#!/usr/bin/env bash
# make test-kind: the e2e suite on a kind cluster of the project's node image
# (NODES=1 by default, or 3), its kubelet-restart specs through the nodes'
# systemd. Brings the cluster up (hack/kind/cluster.sh up), runs the suite,
# and takes the cluster down again unless it was up before.
#
# Env: NODES, K8S_VERSION, KIND_NODE_BASE (as make kind-up), FOCUS, SKIP,
#      PROCS (as make e2e).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$ROOT/hack/kind/lib.sh"

nodes="${NODES:-1}"
name=sidecar-kubelet
[ "$nodes" != 3 ] || name=sidecar-kubelet-multi
kubeconfig="$KIND_DIR/$name.kubeconfig"
was_up=false
[ -f "$kubeconfig" ] && "$KIND_KUBECTL" --kubeconfig "$kubeconfig" get --raw /readyz > /dev/null 2>&1 && was_up=true

teardown() {
  local rc=$?
  [ "$was_up" = true ] || "$ROOT/hack/kind/cluster.sh" down || rc=1
  exit "$rc"
}
trap teardown EXIT

t0=$SECONDS
"$ROOT/hack/kind/cluster.sh" up
up=$((SECONDS - t0))
log "kind cluster ready after ${up}s"
t1=$SECONDS
read -r node sock <<< "$("$ROOT/hack/kind/cluster.sh" e2e-node)"
mkdir -p "$OUTPUT/e2e"
e2e_log="$OUTPUT/e2e/kind-$name.log"
rc=0
KUBECONFIG="$kubeconfig" NODE_NAME="$node" CONTAINER_RUNTIME_ENDPOINT="unix://$sock" \
  SIDECAR_E2E_KUBELET_RESTART="$ROOT/hack/kind/kubelet-restart.sh" "$ROOT/e2e/run.sh" 2>&1 | tee "$e2e_log" || rc=$?
e2e=$((SECONDS - t1))

# What the run measured, from ginkgo's summary (without its colours): in
# $KIND_DIR/test-kind-<cluster>.result always, and as the README's line for
# this cluster size when the node image took the default path (a run on a
# KIND_NODE_BASE of one's own is not the quick start the README shows).
plain="$(sed 's/\x1b\[[0-9;]*m//g' "$e2e_log")"
count() { grep -oE "$1" <<< "$plain" | tail -n1 | grep -oE '[0-9]+' | head -n1 || echo "?"; }
ran="$(grep -oE 'Ran [0-9]+ of [0-9]+ Specs' <<< "$plain" | tail -n1 | sed 's/Ran \([0-9]*\) of \([0-9]*\) Specs/\1 of \2 specs ran/' || true)"
summary="${ran:-no summary (see $e2e_log)}: $(count '[0-9]+ Passed') passed, $(count '[0-9]+ Failed') failed, $(count '[0-9]+ Skipped') skipped"
up_text="\`make kind-up\` ${up} s"
[ "$was_up" = false ] || up_text="the cluster was up already"
result="$KIND_DIR/test-kind-$name.result"
ready="$("$KIND_KUBECTL" --kubeconfig "$kubeconfig" get nodes --no-headers | grep -cw Ready || true)"
kubelet="$("$KIND_KUBECTL" --kubeconfig "$kubeconfig" get node "$node" -o jsonpath='{.status.nodeInfo.kubeletVersion}' || true)"
echo "$(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores: $up_text ($ready node(s) Ready, kubelet $kubelet); the e2e suite on $node: $summary, in ${e2e} s." > "$result"
block="kind-$nodes-node"
if [ -z "${KIND_NODE_BASE:-}" ] && readme_has_block "$block"; then
  echo "\`make test-kind NODES=$nodes\` of $(cat "$result")" | write_readme_block "$block"
fi
[ "$rc" = 0 ] || die "the e2e suite failed on kind ($nodes node(s)): $e2e_log"
log "e2e suite passed on kind ($nodes node(s)) in ${e2e}s; $((SECONDS - t0))s in all"
