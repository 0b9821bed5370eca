#!/usr/bin/env bash
# Build upstream's node e2e suite for the pinned release:
#
#   _output/vX.Y.Z/e2e-node/bin/e2e_node.test   go test -c k8s.io/kubernetes/test/e2e_node
#   _output/vX.Y.Z/e2e-node/bin/ginkgo          the ginkgo CLI at the version upstream pins
#
# from the build module of hack/patches/fetch-upstream.sh (k8s.io/kubernetes replaced
# by the work tree, so the harness is the patched tree's; its test/ folder is
# upstream's, plus one file of the series: the fork's own specs,
# test/e2e_node/sidecar_container_ordering_test.go of node-e2e-specs.patch).
# Incremental: a fingerprint of the inputs is kept beside the binaries; when
# it matches, go is not run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -f "$BUILD_DIR/go.mod" ] && [ -d "$TREE/.git" ] || die "no build module at $BUILD_DIR: run make kubelet first"
bin="$E2E_NODE_BIN_DIR"
mkdir -p "$bin"
ginkgo_version="$(awk '$1 == "github.com/onsi/ginkgo/v2" {print $2; exit}' "$TREE/go.mod")"
[ -n "$ginkgo_version" ] || die "no github.com/onsi/ginkgo/v2 in $TREE/go.mod"

want="$(
  {
    echo "k8s $K8S_VERSION ginkgo $ginkgo_version"
    echo "tree $(tree_git rev-parse HEAD)"
    tree_git status --porcelain
    go env GOVERSION GOOS GOARCH GOAMD64 CGO_ENABLED GOEXPERIMENT
    sha256sum "$BUILD_DIR/go.mod"
    # The harness links pkg/kubelet, which the series makes call kubelet/.
    cache_hash_fork_module
  } | cache_key
)"
if cache_fresh "$bin/.fingerprint" "$want" "$bin/e2e_node.test" "$bin/ginkgo"; then
  log "e2e_node.test and ginkgo up to date ($bin)"
  exit 0
fi

tmp="$(mktemp -d "$bin/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
log "building ginkgo $ginkgo_version and k8s.io/kubernetes/test/e2e_node (v$K8S_VERSION)"
# A copy of the build module's go.mod, which -mod=mod may extend (ginkgo's
# own dependencies): the build module itself stays as fetch-upstream.sh
# wrote it, and so do the fingerprints of the other builds.
cp "$BUILD_DIR/go.mod" "$tmp/build.mod"
cp "$BUILD_DIR/go.sum" "$tmp/build.sum"
(cd "$BUILD_DIR" && GOFLAGS=-mod=mod go build -modfile="$tmp/build.mod" -o "$tmp/ginkgo" github.com/onsi/ginkgo/v2/ginkgo)
(cd "$BUILD_DIR" && GOFLAGS=-mod=mod go test -c -vet=off -modfile="$tmp/build.mod" -o "$tmp/e2e_node.test" k8s.io/kubernetes/test/e2e_node)
mv "$tmp/ginkgo" "$tmp/e2e_node.test" "$bin/"
cache_record "$bin/.fingerprint" "$want"
log "built $bin/e2e_node.test and ginkgo in $((SECONDS - start))s"
