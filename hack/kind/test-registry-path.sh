#!/usr/bin/env bash
# make test-kind-registry: make kind-up's registry path, end to end, on a
# machine that reaches no registry (this project's). A stand-in for this
# machine's limits: on a machine with a registry `make test-kind` takes the
# registry path by itself and this is not needed.
#
# The two stand-ins, named here and in docs/kind.md:
#   the registry   hack/tools/imgserve, a registry in memory on a loopback
#                  port (Docker pulls from 127.0.0.0/8 over plain HTTP);
#   its image      kind's published kindest/node cannot be fetched here, so
#                  the node image built from sources
#                  (hack/kind/node-image.sh build) is served in its place,
#                  as kindest/node:v$K8S_VERSION.
#
# What runs for real is what a user with a registry runs: make test-kind
# with KIND_NODE_BASE=127.0.0.1:PORT/kindest/node:v$K8S_VERSION@sha256:...,
# pinned by digest as kind-config/published-node-images pins kind's images.
# make kind-up pulls that base into an engine that holds none of its layers,
# builds the kubelet's layer on it and nothing else, creates the cluster, and
# the e2e suite runs on it. The run fails unless the base was pulled, the node
# image was built from it, and nothing was built from sources. The line it
# measured goes into docs/kind.md.
#
# Env: K8S_VERSION, NODES, FOCUS, SKIP, PROCS (as make test-kind).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (the Docker engine, debootstrap)"
nodes="${NODES:-1}"
name="$(kind_cluster "$nodes")"
t0=$SECONDS
standin="kindest/node:v$K8S_VERSION"
work="$KIND_DIR/registry-path"
log_file="$KIND_DIR/test-kind-registry.log"
imgserve_pid=""
cleanup() {
  local rc=$?
  if [ -n "$imgserve_pid" ]; then
    kill -TERM "$imgserve_pid" 2> /dev/null || true
    wait "$imgserve_pid" 2> /dev/null || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
rm -rf "$work"
mkdir -p "$work"

ensure_engine
# The check empties the engine of node images (below), which a running
# cluster's nodes would hold on to.
[ -z "$(docker ps -aq --filter label=io.x-k8s.kind.cluster)" ] ||
  die "a kind cluster runs in this engine ($(docker ps -a --filter label=io.x-k8s.kind.cluster --format '{{.Names}}' | paste -sd' ')): make kind-down first"

# The stand-in image: the node image from sources, under kindest/node's name
# (written to _output/kind/node-v$K8S_VERSION.tar, which imgserve reads
# whole before it serves).
log "the stand-in for kind's $standin: the node image built from sources"
NODE_IMAGE="$standin" "$ROOT/hack/kind/node-image.sh" build

# The registry.
build_tool imgserve
"$BIN_DIR/imgserve" -addr 127.0.0.1:0 -addr-file "$work/addr" "$KIND_DIR/node-v$K8S_VERSION.tar" > "$work/imgserve.log" 2>&1 &
imgserve_pid=$!
serving_or_gone() { [ -s "$work/addr" ] || pid_gone "$imgserve_pid"; }
wait_for "imgserve to take the stand-in image" 900 serving_or_gone || true
[ -s "$work/addr" ] || { cat "$work/imgserve.log" >&2; die "imgserve does not serve"; }
addr="$(cat "$work/addr")"
repo="$addr/kindest/node"
digest="$(curl -sfI -H 'Accept: application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json' \
  "http://$addr/v2/kindest/node/manifests/v$K8S_VERSION" | tr -d '\r' | awk -F': ' 'tolower($1) == "docker-content-digest" { print $2 }')"
[[ "$digest" == sha256:* ]] || die "the registry at $addr gives no digest for $standin"
ref="$repo:v$K8S_VERSION@$digest"
log "the registry at $addr serves $ref"

# Only a pull can bring the base into the engine now, layer by layer: every
# image that holds the node image's layers goes (the stand-in's tag, node
# images of both paths, bases pulled by earlier runs; all carry the label).
# (prune, not rm: it takes the images built on them along, in order).
docker image prune -a -f --filter label=io.sidecar-kubelet.upstream-version > /dev/null
[ -z "$(docker image ls -aq --filter label=io.sidecar-kubelet.upstream-version)" ] || die "the engine keeps node images: $(docker image ls --filter label=io.sidecar-kubelet.upstream-version)"

rc=0
KIND_NODE_BASE="$ref" NODES="$nodes" "$ROOT/hack/kind/test-kind.sh" 2>&1 | tee "$log_file" || rc=$?
[ "$rc" = 0 ] || die "make test-kind on the registry path failed (log: ${log_file#"$ROOT"/})"

# The path it took.
grep -qF "docker pull $ref" "$log_file" || die "make kind-up did not pull $ref (log: ${log_file#"$ROOT"/})"
grep -qF "docker build sidecar-kubelet/node:v$K8S_VERSION FROM $ref" "$log_file" ||
  die "make kind-up did not build the node image on $ref (log: ${log_file#"$ROOT"/})"
if grep -qE "built from sources|assembling " "$log_file"; then
  die "make kind-up built from sources on the registry path (log: ${log_file#"$ROOT"/})"
fi
log "the registry path: $ref pulled, the kubelet's layer built on it, nothing from sources"

block=kind-registry-path
if doc_has_block docs/kind.md "$block"; then
  pulled="$(grep -oE "pulled $ref in [0-9]+s" "$log_file" | grep -oE '[0-9]+s$' || echo "?s")"
  echo "\`make test-kind-registry NODES=$nodes\` of $(cat "$KIND_DIR/test-kind-$name.result") \`make kind-up\` pulled the base, \`kindest/node:v$K8S_VERSION@${digest:0:19}…\` from imgserve on $addr, in ${pulled%s} s and built only the kubelet's layer on it; $((SECONDS - t0)) s in all, the stand-in's image included." |
    write_doc_block docs/kind.md "$block"
fi
log "the registry path passed in $((SECONDS - t0))s"
