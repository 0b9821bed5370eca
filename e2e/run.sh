#!/usr/bin/env bash
# Run the e2e suite (make e2e) against a cluster:
#
#   KUBECONFIG                  the cluster; default the local one of `make up`,
#                               _output/cluster/kubeconfig
#   FOCUS, SKIP                 ginkgo regular expressions on the spec texts,
#                               for example FOCUS='rule 13' or SKIP='Serial'
#   PROCS                       parallel ginkgo processes (default 3); specs
#                               that restart the kubelet run alone, at the end
#   SIDECAR_E2E_KUBELET_RESTART the command restarting the node's kubelet;
#                               for the local cluster, hack/kubelet-restart.sh
#   LABEL_FILTER                ginkgo label filter, for example
#                               '!kubelet-restart' (the specs that restart
#                               the kubelet carry that label; '!latency'
#                               leaves out the specs that bound a latency,
#                               which run Serial, alone on the node)
#   CONTAINER_RUNTIME_ENDPOINT  the node's CRI socket, for nanosecond exit
#                               times; for the local cluster, its containerd
#   NODE_NAME, TESTSERVER_IMAGE see e2e/doc.go
#
# The JUnit report goes to _output/e2e/junit.xml.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

local_kubeconfig="$ROOT/_output/cluster/kubeconfig"
if [ -z "${SIDECAR_E2E_KUBECONFIG:-}" ] && [ -z "${KUBECONFIG:-}" ]; then
  export KUBECONFIG="$local_kubeconfig"
fi
kubeconfig="${SIDECAR_E2E_KUBECONFIG:-$KUBECONFIG}"
case "$kubeconfig" in *:*) ;; *)
  [ -f "$kubeconfig" ] || { echo "error: no kubeconfig at $kubeconfig: start the local cluster with 'make up', or set KUBECONFIG" >&2; exit 1; } ;;
esac
if [ "$(realpath -m "$kubeconfig")" = "$local_kubeconfig" ]; then
  if [ -z "${SIDECAR_E2E_KUBELET_RESTART:-}" ] && [ -x "$ROOT/hack/kubelet-restart.sh" ]; then
    export SIDECAR_E2E_KUBELET_RESTART="$ROOT/hack/kubelet-restart.sh"
  fi
  sock="$ROOT/_output/cluster/run/containerd.sock"
  if [ -z "${CONTAINER_RUNTIME_ENDPOINT:-}" ] && [ -S "$sock" ]; then
    export CONTAINER_RUNTIME_ENDPOINT="unix://$sock"
  fi
fi
echo "e2e: kubeconfig $kubeconfig, kubelet restart: ${SIDECAR_E2E_KUBELET_RESTART:-(none: those specs skip)}," \
  "runtime: ${CONTAINER_RUNTIME_ENDPOINT:-(none)}" >&2

mkdir -p "$ROOT/_output/e2e"
args=(-tags e2e -v --procs="${PROCS:-3}" --timeout=90m --poll-progress-after=3m
  --junit-report=junit.xml --output-dir="$ROOT/_output/e2e")
[ -z "${FOCUS:-}" ] || args+=(--focus="$FOCUS")
[ -z "${SKIP:-}" ] || args+=(--skip="$SKIP")
# The soak (make soak) runs only when asked for by its label.
args+=(--label-filter="${LABEL_FILTER:-!soak}")
exec go tool ginkgo "${args[@]}" ./e2e
