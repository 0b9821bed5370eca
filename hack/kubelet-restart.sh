#!/usr/bin/env bash
# Restart a cluster's kubelet, keeping its pods: make kubelet-restart, the e2e
# suite's kubelet-restart specs (SIDECAR_E2E_KUBELET_RESTART, which the suite
# runs with NODE_NAME set to the node it tests) and make kind-kubelet.
#
#   the local cluster (default): hack/lib/cluster.sh restart_cluster_kubelet;
#       KUBELET_BIN=path runs another kubelet, CLUSTER_INSTANCE=N picks the
#       cluster
#   kind nodes, when KIND_CLUSTER or KIND_NODE is set: hack/lib/kind.sh
#       kind_restart_kubelets; NODE_NAME or KIND_NODE picks one node, else
#       every node of KIND_CLUSTER; KUBELET_BIN=path is copied into them
#       first. For the e2e suite on kind:
#         SIDECAR_E2E_KUBELET_RESTART="KIND_CLUSTER=sidecar-kubelet $PWD/hack/kubelet-restart.sh" make e2e
#
# Both take KUBELET_FEATURE_GATES (e.g. SidecarContainerOrdering=false) for
# the restarted kubelet; unset, it runs with the cluster's configured gates.
set -euo pipefail
# The local cluster's own release, unless K8S_VERSION says otherwise (then
# it must match).
CLUSTER_FOLLOWS_RECORDED_VERSION=1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -n "${KIND_CLUSTER:-}${KIND_NODE:-}" ]; then
  kind_restart_kubelets
else
  cluster_settings
  restart_cluster_kubelet
fi
