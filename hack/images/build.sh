#!/usr/bin/env bash
# Build the e2e suite's images into image tarballs under _output/images/,
# which the local cluster imports into its containerd at `make up` (and which
# `kind load image-archive` loads into a kind cluster):
#
#   _output/images/testserver.tar   sidecar-kubelet.local/testserver:1
#                                   (entrypoint /testserver, see e2e/images/testserver)
#
# The binary is static (CGO_ENABLED=0) and the image reproducible, packed by
# hack/tools/imgpack (go-containerregistry), the packer of the pause image too. Incremental: a fingerprint of
# every input is kept beside the tarball; when it matches, go is not run.
#
# Env: TESTSERVER_IMAGE (default sidecar-kubelet.local/testserver:1),
#      GOARCH (default: go env GOARCH).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

image="${TESTSERVER_IMAGE:-sidecar-kubelet.local/testserver:1}"
images_dir="$OUTPUT/images"
out="$images_dir/testserver.tar"
fingerprint_file="$out.fingerprint"
goarch="${GOARCH:-$(go env GOARCH)}"

fingerprint() (
  echo "image $image"
  go env GOVERSION GOOS
  echo "goarch $goarch"
  cache_hash_files "$ROOT" e2e/images hack/tools/imgpack hack/tools/go.mod hack/tools/go.sum \( -name '*.go' -o -name go.mod -o -name go.sum \) ! -name '*_test.go'
  cd "$ROOT"
  sha256sum go.mod go.sum
)
want="$(fingerprint | cache_key)"
if cache_fresh "$fingerprint_file" "$want" "$out"; then
  log "$out is up to date ($image)"
  exit 0
fi

mkdir -p "$BIN_DIR" "$images_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

log "building testserver (static, linux/$goarch)"
(cd "$ROOT" && CGO_ENABLED=0 GOOS=linux GOARCH="$goarch" \
  go build -trimpath -ldflags='-s -w' -o "$work/testserver" ./e2e/images/testserver)

log "building imgpack"
(cd "$ROOT/hack/tools" && go build -o "$work/imgpack" ./imgpack)

log "packing $image into $out"
cache_forget "$fingerprint_file"
"$work/imgpack" -o "$out" -tag "$image" -arch "$goarch" -entrypoint /testserver "$work/testserver:/testserver"
cache_record "$fingerprint_file" "$want"
