#!/usr/bin/env bash
# Restart the kubelet of one kind node, for the e2e suite against a kind
# cluster (SIDECAR_E2E_KUBELET_RESTART; see "Using with kind" in README.md):
#
#   SIDECAR_E2E_KUBELET_RESTART="KIND_NODE=sidecar-kubelet-control-plane $PWD/hack/kind-kubelet-restart.sh"
#
# KUBELET_FEATURE_GATES (e.g. SidecarContainerOrdering=false) is passed to
# the kubelet as --feature-gates through /etc/default/kubelet, which kind's
# kubelet.service reads (KUBELET_EXTRA_ARGS); flags win over the
# KubeletConfiguration's featureGates, gate by gate. Unset or empty removes
# the override: the kubelet runs with the cluster config's gates again.
# Returns once the restarted kubelet answers /healthz. The pods keep running.
#
# Env: KIND_NODE (required): the node's container, `kind get nodes --name C`.
set -euo pipefail
node="${KIND_NODE:?set KIND_NODE to the kind node container (kind get nodes --name <cluster>)}"
docker exec -i "$node" bash -euc '
  if [ -n "$1" ]; then
    printf "KUBELET_EXTRA_ARGS=--feature-gates=%s\n" "$1" > /etc/default/kubelet
  else
    rm -f /etc/default/kubelet
  fi
  systemctl restart kubelet
  for _ in $(seq 120); do
    if curl -sf http://127.0.0.1:10248/healthz > /dev/null; then
      echo "kubelet of $HOSTNAME restarted (feature gates: ${1:-as configured})"
      exit 0
    fi
    sleep 1
  done
  echo "the kubelet of $HOSTNAME did not answer /healthz within 120s" >&2
  systemctl status kubelet --no-pager >&2 || true
  exit 1
' kind-kubelet-restart "${KUBELET_FEATURE_GATES:-}"
