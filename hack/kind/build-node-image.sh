#!/usr/bin/env bash
# make kind-node-image: sidecar-kubelet's kind node image for v$K8S_VERSION,
# built from sources this machine reaches (the Go module proxy and Debian's
# packages), for machines without a container registry:
#
#   layer 1  Debian bookworm with systemd and the packages a kind node uses,
#            runc and the CNI plugins among them (debootstrap, cached:
#            hack/lib/kind.sh kind_rootfs_tar)
#   layer 2  the node's own files (hack/kind/node/files: entrypoint, units,
#            containerd's config, the manifests of the pod network and the
#            default storage), containerd, kubeadm and kubectl, /kind/version,
#            and the images kubeadm, the pod network and the storage run, as
#            tarballs under /kind/images that import-node-images.service
#            imports at boot (hack/kind/build-node-parts.sh builds them,
#            hack/images/podnet is the pod network)
#   layer 3  the patched kubelet, static (hack/tools/nodeimage refuses a
#            kubelet that would not start on the base's glibc)
#
# written as _output/kind/node-v$K8S_VERSION.tar, named $NODE_IMAGE, labelled
# with its base and the project's commit, and loaded into the Docker engine
# when one answers. Incremental: a fingerprint of every input is kept beside
# the tarball.
#
# Env: K8S_VERSION, NODE_IMAGE (default sidecar-kubelet/node:v$K8S_VERSION),
#      DEBIAN_MIRROR, NODE_PARTS_DIR (take bin/ and images/ from there
#      instead of building them with build-node-parts.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, the layer's owners)"
node_image="${NODE_IMAGE:-sidecar-kubelet/node:v$K8S_VERSION}"
parts="${NODE_PARTS_DIR:-$KIND_DIR/v$K8S_VERSION}"
out="$KIND_DIR/node-v$K8S_VERSION.tar"
fingerprint_file="$out.fingerprint"
# What kind's base image installs, less NFS, iSCSI and fuse-overlayfs, plus
# runc and the CNI plugins, which kind builds and Debian packages (the local
# cluster uses the same packages).
packages="systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,ca-certificates,curl,jq,procps,socat,runc,containernetworking-plugins"

[ -n "${NODE_PARTS_DIR:-}" ] || "$ROOT/hack/kind/build-node-parts.sh"
rootfs="$(kind_rootfs_tar bookworm-node "$packages")"
[ -f "$parts/images/list.txt" ] || die "no $parts/images/list.txt: hack/kind/build-node-parts.sh did not finish"
pause_image="$(grep -m1 '/pause:' "$parts/images/list.txt")" || die "no pause image in $parts/images/list.txt"
storage_image() { awk -v n="$1" '$1 == n { print $2 }' "$parts/images/storage.txt" | grep . || die "no $1 image in $parts/images/storage.txt"; }
provisioner_image="$(storage_image local-path-provisioner)" helper_image="$(storage_image local-path-helper)"

# The pod network's image.
build_tool imgpack
build_tool nodeimage
work="$(mktemp -d "$KIND_DIR/.node-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$work/podnet" ./hack/images/podnet)
podnet_image="sidecar-kubelet.local/podnet:$(sha256sum "$work/podnet" | cut -c1-12)"
"$BIN_DIR/imgpack" -o "$work/podnet.tar" -tag "$podnet_image" -entrypoint /podnet "$work/podnet:/podnet"

commit="$(git -C "$ROOT" rev-parse HEAD)"
if [ -n "$(git -C "$ROOT" status --porcelain -- hack kind-config patches kubelet 2> /dev/null)" ]; then commit="$commit-dirty"; fi
base_label="debian bookworm $(sha256sum < "$rootfs" | cut -c1-12) + hack/kind/node (sources)"

fingerprint() (
  echo "name $node_image"
  echo "commit $commit"
  echo "rootfs $(sha256sum < "$rootfs")"
  cache_hash_files "$ROOT" hack/kind/node
  cache_hash_files "$parts" bin images
  sha256sum < "$work/podnet.tar"
  sha256sum < "$BIN_DIR/nodeimage"
)
want="$(fingerprint | cache_key)"
if cache_fresh "$fingerprint_file" "$want" "$out"; then
  log "$out is up to date ($node_image)"
else
  # Layer 2, staged in a folder.
  stage="$work/stage"
  mkdir -p "$stage"
  chmod 0755 "$stage"
  cp -a "$ROOT/hack/kind/node/files/." "$stage/"
  sed -i "s|PAUSE_IMAGE|$pause_image|" "$stage/etc/containerd/config.toml"
  sed -i "s|PODNET_IMAGE|$podnet_image|" "$stage/kind/manifests/default-cni.yaml"
  sed -i -e "s|LOCAL_PATH_PROVISIONER_IMAGE|$provisioner_image|" -e "s|LOCAL_PATH_HELPER_IMAGE|$helper_image|" \
    "$stage/kind/manifests/default-storage.yaml"
  install -d -m 0755 "$stage/usr/local/bin" "$stage/usr/bin" "$stage/kind/images" \
    "$stage/etc/systemd/system/multi-user.target.wants" "$stage/etc/cni/net.d" "$stage/etc/kubernetes/manifests"
  for b in containerd containerd-shim-runc-v2 ctr crictl; do
    [ ! -f "$parts/bin/$b" ] || install -m 0755 "$parts/bin/$b" "$stage/usr/local/bin/$b"
  done
  for b in kubeadm kubectl; do install -m 0755 "$parts/bin/$b" "$stage/usr/bin/$b"; done
  cp "$parts"/images/*.tar "$work/podnet.tar" "$stage/kind/images/"
  echo "v$K8S_VERSION" > "$stage/kind/version"
  for u in containerd.service import-node-images.service kubelet.service; do
    ln -s "/etc/systemd/system/$u" "$stage/etc/systemd/system/multi-user.target.wants/$u"
  done
  tar -C "$stage" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$work/node-files.tar" .

  series="$(series_hash)"
  kubelet_version="$("$parts/bin/kubelet" --version | cut -d' ' -f2)"
  log "assembling $node_image (kubelet $kubelet_version)"
  cache_forget "$fingerprint_file"
  "$BIN_DIR/nodeimage" --base-layers "$rootfs,$work/node-files.tar" --kubelet "$parts/bin/kubelet" \
    --upstream-version "v$K8S_VERSION" --series-hash "$series" --image-version "$kubelet_version" \
    --label "io.sidecar-kubelet.base=$base_label" --label "org.opencontainers.image.revision=$commit" \
    --label "io.sidecar-kubelet.build=$want" \
    --name "$node_image" --out "$out"
  cache_record "$fingerprint_file" "$want"
fi

# Into the engine, unless it holds this very build already.
use_engine
if docker info > /dev/null 2>&1; then
  if [ "$(docker image inspect -f '{{index .Config.Labels "io.sidecar-kubelet.build"}}' "$node_image" 2> /dev/null || true)" = "$want" ]; then
    log "$node_image is loaded already"
  else
    log "docker load $out"
    docker load -i "$out" > /dev/null
  fi
fi
log "node image: $node_image ($out)"
