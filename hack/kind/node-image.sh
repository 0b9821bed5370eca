#!/usr/bin/env bash
# hack/kind/node-image.sh SUBCOMMAND [FLAGS]: sidecar-kubelet's kind node
# images, built by hack/tools/nodeimage (every step, one build cache; see
# docs/kind.md), to which this script gives what hack/lib.sh knows: the
# series' hash, the version stamp, the work tree's state.
#   from-base                  make node-image: kind's node image + the kubelet
#   build                      make kind-node-image: everything from sources
#   parts [--kubelet-only]     the node's binaries and images (make kind-kubelet)
#   rootfs NAME PACKAGES       a cached Debian root file system; prints its path
# Env: K8S_VERSION, NODE_IMAGE, DEBIAN_MIRROR, NODE_PARTS_DIR,
#      LOCAL_PATH_PROVISIONER_VERSION, KUBELET_ONLY, BASE_TAR, BASE_REF,
#      BASE_TAG, KUBELET_BIN (nodeimage SUBCOMMAND -h says what each does).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
[ $# -ge 1 ] || die "usage: $0 from-base | build | parts [--kubelet-only] | rootfs NAME PACKAGES"
cmd="$1"
shift
build_tool nodeimage
[ "$cmd" != rootfs ] || exec "$BIN_DIR/nodeimage" rootfs --cache "$KIND_CACHE" "$@"
args=(--root "$ROOT" --output "$OUTPUT" --k8s-version "$K8S_VERSION" --series-hash "$(series_hash)" --imgpack "$BIN_DIR/imgpack"
  --containerd-version "$CONTAINERD_VERSION" --containerd-tags "$CONTAINERD_TAGS" --published-base "$(published_node_image)")
# The work tree with the series (fetched and imported when missing or stale,
# as make kubelet does), unless no Kubernetes binary is built here.
if [ "$cmd" != from-base ] || [ -z "${KUBELET_BIN:-}" ]; then
  "$ROOT/hack/patches/import-patches.sh"
  version_stamp
  add_version_ldflag buildDate "$(date -u --date="@${SOURCE_DATE_EPOCH:-$(tree_git log -1 --format=%ct)}" +%Y-%m-%dT%H:%M:%SZ)"
  args+=(--version "$VERSION" --ldflags "${VERSION_LDFLAGS[*]}" --build-dir "$BUILD_DIR" --tree-commit "$TREE_COMMIT"
    --tree-edits "$(printf '%s\n' "$TREE_STATUS" "$TREE_EDITS" | cache_key)")
else # the label of a KUBELET_BIN that cannot run here
  args+=(--version "v$K8S_VERSION-sidecar-kubelet+$(build_hash | cut -c1-12)")
fi
build_tool imgpack
use_engine
exec "$BIN_DIR/nodeimage" "$cmd" "${args[@]}" "$@"
