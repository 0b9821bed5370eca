#!/usr/bin/env bash
# Restart the kubelet of kind nodes, through each node's systemd, optionally
# with another kubelet binary or feature gates. Two users:
#
#   the e2e suite's kubelet-restart specs, against a kind cluster
#   (SIDECAR_E2E_KUBELET_RESTART; the suite passes NODE_NAME, the node it
#   tests, which is also the node's container in kind):
#       SIDECAR_E2E_KUBELET_RESTART=$PWD/hack/kind/kubelet-restart.sh make e2e
#
#   the prototyping loop (make kind-kubelet): a rebuilt kubelet into every
#   node of a cluster, then a restart:
#       KIND_CLUSTER=sidecar-kubelet KUBELET_BIN=_output/kind/v$(hack/patches/k8s-version.sh)/bin/kubelet hack/kind/kubelet-restart.sh
#
# Which nodes: KIND_NODE (one container), else NODE_NAME, else every node of
# KIND_CLUSTER. KUBELET_BIN replaces /usr/bin/kubelet (atomically, by a
# rename in the node). KUBELET_FEATURE_GATES (e.g.
# SidecarContainerOrdering=false) is added to the kubelet's flags as
# --feature-gates, which win over the KubeletConfiguration's gate by gate;
# unset or empty, the kubelet runs with the configured gates again. The
# flags go through /etc/default/kubelet (KUBELET_EXTRA_ARGS, which the node's
# kubelet.service reads): its own content is kept, in
# /etc/default/kubelet.sidecar-kubelet-orig, and the gates are appended to
# it. Returns once every restarted kubelet answers /healthz; the pods keep
# running.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ -z "${DOCKER_HOST:-}" ] && [ -s "$ROOT/_output/kind/docker/socket" ] && export DOCKER_HOST="unix://$(cat "$ROOT/_output/kind/docker/socket")"

if [ -n "${KIND_NODE:-}" ]; then
  nodes=("$KIND_NODE")
elif [ -n "${NODE_NAME:-}" ]; then
  nodes=("$NODE_NAME")
elif [ -n "${KIND_CLUSTER:-}" ]; then
  mapfile -t nodes < <(docker ps --filter "label=io.x-k8s.kind.cluster=$KIND_CLUSTER" --format '{{.Names}}' | sort)
  [ "${#nodes[@]}" -gt 0 ] || { echo "error: no running node of kind cluster $KIND_CLUSTER" >&2; exit 1; }
else
  echo "error: set KIND_NODE (a node's container), NODE_NAME or KIND_CLUSTER" >&2
  exit 1
fi

restart() { # NODE
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

pids=()
for n in "${nodes[@]}"; do
  restart "$n" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit "$rc"
