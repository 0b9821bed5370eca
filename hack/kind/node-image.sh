#!/usr/bin/env bash
# Build the kind node image of sidecar-kubelet (make node-image): the kind
# node image of upstream v$K8S_VERSION with the patched kubelet at
# /usr/bin/kubelet, labelled
#
#   io.sidecar-kubelet.upstream-version  v$K8S_VERSION
#   io.sidecar-kubelet.series-hash       the patch series' hash (lib.sh series_hash)
#   org.opencontainers.image.version     the kubelet's version, v$K8S_VERSION-sidecar-kubelet+<hash>
#
# named $NODE_IMAGE and written as an image tarball that `docker load` and
# `kind load image-archive` take:
#
#   _output/kind/node-v$K8S_VERSION.tar (not under _output/images, whose
#   tarballs make up imports into the local cluster)
#
# Two paths, one result:
#   BASE_TAR=FILE   hermetic (no Docker engine): the base is an image tarball
#                   (`docker save kindest/node:v$K8S_VERSION -o node.tar` on a
#                   machine with Docker, or `crane pull kindest/node:v$K8S_VERSION
#                   node.tar`); hack/tools/nodeimage appends the kubelet layer.
#   otherwise, if a Docker engine answers (`docker info`): `docker build` of
#                   hack/kind/node-image/Dockerfile FROM $BASE_REF, then `docker
#                   save`; the image also stays in the engine, ready for kind.
#   otherwise, BASE_REF=REF given: hack/tools/nodeimage fetches the base from
#                   its registry (credentials from ~/.docker/config.json).
#
# Env: K8S_VERSION (default the pinned one), BASE_TAR, BASE_REF (default
#      kind's published image of the release, pinned by digest
#      (kind-config/published-node-images), else kindest/node:v$K8S_VERSION), BASE_TAG (the image to take from a
#      BASE_TAR holding several), NODE_IMAGE (default
#      sidecar-kubelet/node:v$K8S_VERSION), KUBELET_BIN (use this kubelet
#      instead of building the static _output/kind/v$K8S_VERSION/bin/kubelet).
#
# Idempotent: the same inputs give the same image, and a fingerprint of them
# kept beside the tarball skips the work when nothing changed (for BASE_REF,
# which may move, the base is fetched every time).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

base_tar="${BASE_TAR:-}"
base_ref="${BASE_REF:-}"
node_image="${NODE_IMAGE:-sidecar-kubelet/node:v$K8S_VERSION}"
images_dir="$OUTPUT/kind"
out="$images_dir/node-v$K8S_VERSION.tar"
fingerprint_file="$out.fingerprint"

# --- which path ---------------------------------------------------------------------
docker_answers() { command -v docker >/dev/null && timeout 30 docker info >/dev/null 2>&1; }
if [ -n "$base_tar" ]; then
  path=tar
  [ -f "$base_tar" ] || die "BASE_TAR=$base_tar: no such file. Get the kind node image as a tarball:
  on a machine with Docker:  docker pull kindest/node:v$K8S_VERSION && docker save kindest/node:v$K8S_VERSION -o node.tar
  or with crane:             crane pull kindest/node:v$K8S_VERSION node.tar"
  base_tar="$(realpath "$base_tar")"
elif docker_answers; then
  path=docker
  published="$(published_node_image)"
  base_ref="${base_ref:-${published:-kindest/node:v$K8S_VERSION}}"
elif [ -n "$base_ref" ]; then
  path=ref
else
  die "no Docker engine answers here (docker info), so make node-image needs the base kind node image
  as a tarball: BASE_TAR=<file>, e.g. from 'docker save kindest/node:v$K8S_VERSION -o node.tar' on a machine
  with Docker, or from 'crane pull kindest/node:v$K8S_VERSION node.tar'; or from a registry:
  BASE_REF=<reference>, e.g. BASE_REF=kindest/node:v$K8S_VERSION"
fi

# --- the kubelet and the labels -----------------------------------------------------
if [ -n "${KUBELET_BIN:-}" ]; then
  kubelet="$(realpath "$KUBELET_BIN")"
  [ -f "$kubelet" ] || die "KUBELET_BIN=$KUBELET_BIN: no such file"
else
  # Static, so that it runs on the base's glibc whatever the build machine's.
  KUBELET_ONLY=1 "$ROOT/hack/kind/build-node-parts.sh"
  kubelet="$OUTPUT/kind/v$K8S_VERSION/bin/kubelet"
fi
series="$(series_hash)"
# The version the kubelet reports; computed as build-kubelet.sh stamps it if
# the binary cannot run here (built for another architecture).
if reported="$("$kubelet" --version 2>/dev/null)"; then
  kubelet_version="${reported#Kubernetes }"
  case "$kubelet_version" in
    "v$K8S_VERSION-sidecar-kubelet+"*) ;;
    *) die "$kubelet reports '$reported': not sidecar-kubelet's kubelet for v$K8S_VERSION" ;;
  esac
else
  kubelet_version="v$K8S_VERSION-sidecar-kubelet+${series:0:12}"
  log "cannot run $kubelet here; labelling it $kubelet_version"
fi

mkdir -p "$images_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- docker build -------------------------------------------------------------------
if [ "$path" = docker ]; then
  install -m 0755 "$kubelet" "$work/kubelet"
  log "docker build $node_image FROM $base_ref"
  docker build -f "$ROOT/hack/kind/node-image/Dockerfile" --iidfile "$work/iid" \
    --build-arg "BASE=$base_ref" --build-arg "UPSTREAM_VERSION=v$K8S_VERSION" \
    --build-arg "SERIES_HASH=$series" --build-arg "IMAGE_VERSION=$kubelet_version" \
    --build-arg "REVISION=$(git -C "$ROOT" rev-parse HEAD)" \
    -t "$node_image" "$work"
  # The kubelet must start in the image (a dynamically linked one built on a
  # newer distribution fails there with "GLIBC_2.xx not found").
  if ! got="$(docker run --rm --entrypoint /usr/bin/kubelet "$(cat "$work/iid")" --version 2>&1)"; then
    docker rmi "$node_image" > /dev/null 2>&1 || true
    die "the kubelet does not start in $base_ref: $got
  build it static (the default here; KUBELET_BIN= overrides it) or on a distribution no newer than the node image's"
  fi
  log "the kubelet starts in the image: $got"
  want="$(printf 'docker\n%s\n%s\n' "$node_image" "$(cat "$work/iid")" | cache_key)"
  if cache_fresh "$fingerprint_file" "$want" "$out"; then
    log "$out is up to date ($node_image, $(cat "$work/iid"))"
    exit 0
  fi
  cache_forget "$fingerprint_file"
  docker save "$node_image" -o "$work/node.tar"
  mv "$work/node.tar" "$out"
  cache_record "$fingerprint_file" "$want"
  log "wrote $out ($node_image, $(cat "$work/iid")); it is in this Docker engine too"
  exit 0
fi

# --- hermetic: hack/tools/nodeimage -------------------------------------------------
fingerprint() (
  echo "path $path"
  echo "name $node_image"
  echo "version v$K8S_VERSION $series $kubelet_version"
  if [ "$path" = tar ]; then echo "base-tar ${BASE_TAG:-}"; sha256sum < "$base_tar"; fi
  sha256sum < "$kubelet"
  go env GOVERSION
  cache_hash_files "$ROOT/hack/tools" nodeimage internal/nodeimage -name '*.go' ! -name '*_test.go'
  cd "$ROOT/hack/tools"
  sha256sum go.mod go.sum
)
if [ "$path" = tar ]; then
  want="$(fingerprint | cache_key)"
  if cache_fresh "$fingerprint_file" "$want" "$out"; then
    log "$out is up to date ($node_image)"
    exit 0
  fi
fi

log "building hack/tools/nodeimage"
build_tool nodeimage

args=(--kubelet "$kubelet" --upstream-version "v$K8S_VERSION" --series-hash "$series"
  --image-version "$kubelet_version" --name "$node_image" --out "$out")
if [ "$path" = tar ]; then
  args+=(--base-tar "$base_tar")
  [ -z "${BASE_TAG:-}" ] || args+=(--base-tag "$BASE_TAG")
  log "$node_image = $base_tar + $kubelet"
else
  args+=(--base-ref "$base_ref")
  log "$node_image = $base_ref + $kubelet"
fi
cache_forget "$fingerprint_file"
"$BIN_DIR/nodeimage" "${args[@]}"
[ "$path" != tar ] || cache_record "$fingerprint_file" "$want"
log "load it with: docker load -i ${out#"$ROOT"/}"
