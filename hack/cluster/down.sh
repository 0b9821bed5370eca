#!/usr/bin/env bash
# Take the local cluster of hack/cluster/up.sh down and leave nothing behind:
# the pods' containers and sandboxes (removed through the CRI, so their
# networks are torn down), every process it started (by pid), every mount
# under _output/cluster, the CNI bridge, the pods' cgroups and the
# components' (SERVE_CGROUP in hack/lib/cluster.sh), the kubelet's iptables chains and
# device-plugin socket (if it added them), and the cluster's state (etcd
# data, certificates, containerd and kubelet folders). The logs
# stay in _output/cluster/logs until the next `make up` (then logs.prev).
# Safe to run when nothing is up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster_settings
started=$SECONDS

[ "$(id -u)" = 0 ] || die "the local cluster runs as root"
cluster_lock
[ -d "$CLUSTER_DIR" ] || { log "no cluster at $CLUSTER_DIR"; exit 0; }

# The controllers first, so that nothing makes new pods; then the kubelet, so
# that nothing restarts containers.
stop_proc kube-scheduler
stop_proc kube-controller-manager
stop_proc kubelet

sweep_pods
stop_proc containerd
stop_proc kube-apiserver
stop_proc etcd

# Anything that still runs for us: containerd's shims (by their binary and
# our containerd's address, which another instance's shims do not have) and
# the processes in our pods' cgroups and in our components' (serve) cgroups.
# There should be none.
leftovers() {
  local p exe
  for p in /proc/[0-9]*; do
    exe="$(readlink "$p/exe" 2> /dev/null || true)"
    [ "${exe% (deleted)}" = "$BIN_DIR/containerd-shim-runc-v2" ] || continue
    tr '\0' '\n' < "$p/cmdline" 2> /dev/null | grep -qxF "$CONTAINERD_SOCK" || continue
    echo "${p#/proc/}"
  done
  pod_cgroup_pids
  serve_cgroup_pids
}
kill_leftovers

node_teardown || die "could not unmount everything under $CLUSTER_DIR"

log "removing the cluster's state"
find "$CLUSTER_DIR" -mindepth 1 -maxdepth 1 ! -name logs ! -name logs.prev -exec rm -rf --one-file-system {} +
log "cluster down in $((SECONDS - started))s (logs kept in $LOG_DIR)"
