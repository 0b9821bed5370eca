#!/usr/bin/env bash
# Build the patched kubelet into $K8S_BIN_DIR/kubelet (_output/vX.Y.Z/bin:
# one folder per release, so that versions never overwrite each other),
# version-stamped the way
# upstream's hack/lib/version.sh does it, so `kubelet --version` and the
# node's reported version say what was built:
#
#   v$K8S_VERSION-sidecar-kubelet+<first 12 of the series hash>
#
# Env:
#   SIDECAR_ORDERING_DEFAULT=false  link with the SidecarContainerOrdering
#                                   feature gate off by default
#   LDFLAGS=...                     extra linker flags
#   SOURCE_DATE_EPOCH=...           pin buildDate (as upstream)
#
# Incremental: a fingerprint of every input is kept beside the binary; when
# it matches, go is not run at all (a no-op go build of kubelet still takes
# tens of seconds to check and relink).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

case "${SIDECAR_ORDERING_DEFAULT:-true}" in
  true | false) ;;
  *) die "SIDECAR_ORDERING_DEFAULT must be true or false, not '$SIDECAR_ORDERING_DEFAULT'" ;;
esac

"$ROOT/hack/patches/import-patches.sh"

version_stamp
version="$VERSION" commit="$TREE_COMMIT" status="$TREE_STATUS" tree_state="$TREE_STATE"
ldflags=("${VERSION_LDFLAGS[@]}")
# The series defines this string variable; it sets the gate's default.
[ "${SIDECAR_ORDERING_DEFAULT:-true}" = true ] ||
  ldflags+=("-X k8s.io/kubernetes/pkg/features.sidecarContainerOrderingDefault=false")
[ -z "${LDFLAGS:-}" ] || ldflags+=("$LDFLAGS")
# buildDate stays out of the fingerprint: it changes on every run.
stable_ldflags="${ldflags[*]}"
add_version_ldflag buildDate "$(date -u ${SOURCE_DATE_EPOCH:+--date=@$SOURCE_DATE_EPOCH} +%Y-%m-%dT%H:%M:%SZ)"
ldflags+=("${VERSION_LDFLAGS[@]: -2}")

fingerprint() (
  echo "k8s $K8S_VERSION"
  echo "tree $commit"
  printf '%s\n' "$status" "$TREE_EDITS"
  echo "ldflags $stable_ldflags"
  # A new toolchain or target needs a new binary too.
  go env GOVERSION GOOS GOARCH GOAMD64 CGO_ENABLED GOEXPERIMENT
  # Our own module, which the series links into kubelet.
  cache_hash_fork_module
)
want="$(fingerprint | cache_key)"
build_kubelet "the kubelet $version (tree ${commit:0:12}, $tree_state${SIDECAR_ORDERING_DEFAULT:+, SIDECAR_ORDERING_DEFAULT=$SIDECAR_ORDERING_DEFAULT})" \
  "$K8S_BIN_DIR/kubelet" "$version" "$want" "$BUILD_DIR" "${ldflags[*]}"
