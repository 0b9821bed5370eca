#!/usr/bin/env bash
# Restart only the local cluster's kubelet: stop it by its pid, start it again
# with the cluster's configuration and the feature gates that
# KUBELET_FEATURE_GATES asks for now (e.g. "SidecarContainerOrdering=false";
# unset gives the default, SidecarContainerOrdering=true), and wait until the
# restarted kubelet has posted the node Ready. The pods keep running.
# KUBELET_BIN=path runs another kubelet binary (e.g. the unpatched
# _output/vX.Y.Z/bin/kubelet-upstream of hack/patches/build-kubelet-upstream.sh; it gets no
# SidecarContainerOrdering gate); a later restart without it goes back to
# _output/vX.Y.Z/bin/kubelet. CLUSTER_INSTANCE=N picks the cluster (hack/cluster/lib.sh).
set -euo pipefail
# The cluster's own release, unless K8S_VERSION says otherwise (then it must match).
CLUSTER_FOLLOWS_RECORDED_VERSION=1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
started=$SECONDS

[ "$(id -u)" = 0 ] || die "the local cluster runs as root"
cluster_lock
for c in kube-apiserver containerd; do
  proc_pid "$c" > /dev/null || die "the local cluster is not up ($c is not running): run make up"
done
start_kubelet force
wait_kubelet_node_ready
log "kubelet restarted ($("$KUBELET_BIN" --version), pid $(proc_pid kubelet), feature gates: $(kubelet_feature_gates)) in $((SECONDS - started))s"
