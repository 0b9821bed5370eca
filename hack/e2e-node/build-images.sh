#!/usr/bin/env bash
# Build the test images that upstream's node e2e suite (test/e2e_node) uses,
# under the exact names of the release's test/utils/image/manifest.go, as
# image tarballs in _output/vX.Y.Z/e2e-node/images/ (hack/e2e-node/run.sh imports them
# into its containerd). No registry is reachable here, so nothing is pulled:
#
#   agnhost   the agnhost binary built from the work tree (entrypoint /agnhost,
#             cmd pause, as upstream's image), on the busybox userland below
#             (upstream's image is Alpine: busybox plus packages) plus this
#             machine's bash, curl, nc, ip, ss and ps with their libraries
#   busybox   Debian's busybox-static with one link per applet in /bin (as
#             the busybox image has them), plus hack/images/nmeter: Debian's
#             busybox has no nmeter applet, which the specs use for timestamps
#   pause     hack/images/pause, the local cluster's pause binary
#
# Packed by hack/tools/imgpack. Incremental: a fingerprint of every input is
# kept beside the tarballs; when it matches, nothing is built.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

images_dir="$E2E_NODE_IMAGES_DIR"
manifest="$TREE/test/utils/image/manifest.go"
[ -f "$manifest" ] || die "no $manifest: run make kubelet first"

# --- the image names, from the release's manifest -------------------------------------
# registry FIELD: the default of a registry field (e.g. PromoterE2eRegistry).
registry() {
  local v
  v="$(sed -n "s/^[[:space:]]*$1:[[:space:]]*\"\([^\"]*\)\",.*/\1/p" "$manifest" | head -n1)"
  [ -n "$v" ] || die "no default for $1 in $manifest"
  echo "$v"
}
# image ID: the full name of configs[ID].
image() {
  local line reg name tag
  line="$(sed -n "s/^[[:space:]]*configs\[$1\] = Config{list\.\([A-Za-z0-9]*\), \"\([^\"]*\)\", \"\([^\"]*\)\"}.*/\1 \2 \3/p" "$manifest")"
  read -r reg name tag <<< "$line"
  [ -n "$tag" ] || die "no configs[$1] in $manifest"
  echo "$(registry "$reg")/$name:$tag"
}
AGNHOST_IMAGE="$(image Agnhost)"
BUSYBOX_IMAGE="$(image BusyBox)"
PAUSE_IMAGE="$(image Pause)"

# --- what the images are made of --------------------------------------------------------
# Debian packages: "command:package".
install_debian_deps busybox:busybox-static bash:bash curl:curl nc:netcat-openbsd ip:iproute2 ss:iproute2 ps:procps
busybox="$(command -v busybox)"
host_tools="bash curl nc ip ss ps"
host_paths=()
for t in $host_tools; do host_paths+=("$(readlink -f "$(command -v "$t")")"); done

want="$(
  {
    echo "$AGNHOST_IMAGE $BUSYBOX_IMAGE $PAUSE_IMAGE"
    echo "tree $(tree_git rev-parse HEAD)"
    tree_git status --porcelain -- test/images/agnhost
    go env GOVERSION GOOS GOARCH
    sha256sum "$busybox" "${host_paths[@]}"
    cd "$ROOT"
    sha256sum hack/e2e-node/build-images.sh
    cache_hash_files "$ROOT" hack/images hack/tools/imgpack hack/tools/go.mod hack/tools/go.sum ! -name '*_test.go'
  } | cache_key
)"
outs=("$images_dir/agnhost.tar" "$images_dir/busybox.tar" "$images_dir/pause.tar")
if cache_fresh "$images_dir/.fingerprint" "$want" "${outs[@]}"; then
  log "e2e-node images up to date ($images_dir)"
  exit 0
fi

mkdir -p "$images_dir"
work="$(mktemp -d "$images_dir/.build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

log "building imgpack, nmeter, pause and agnhost"
mkdir -p "$work/bin"
(cd "$ROOT/hack/tools" && go build -o "$work/bin/imgpack" ./imgpack)
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$work/bin/" ./hack/images/nmeter ./hack/images/pause)
# With a copy of the build module's go.mod, which -mod=mod may extend.
cp "$BUILD_DIR/go.mod" "$work/build.mod"
cp "$BUILD_DIR/go.sum" "$work/build.sum"
(cd "$BUILD_DIR" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -modfile="$work/build.mod" -trimpath -ldflags='-s -w' \
  -o "$work/bin/agnhost" k8s.io/kubernetes/test/images/agnhost)

# The busybox userland, shared by busybox and agnhost.
userland() {
  local root="$1" a
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/root" "$root/usr/bin"
  chmod 1777 "$root/tmp"
  cp "$busybox" "$root/bin/busybox"
  for a in $("$busybox" --list); do
    [ "$a" = busybox ] || [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
  done
  cp "$work/bin/nmeter" "$root/bin/nmeter"
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$root/etc/group"
  echo 'hosts: files dns' > "$root/etc/nsswitch.conf"
}

log "packing $BUSYBOX_IMAGE"
userland "$work/busybox"
"$work/bin/imgpack" -symlinks -o "$work/busybox.tar" -tag "$BUSYBOX_IMAGE" -cmd sh "$work/busybox:/"

log "packing $AGNHOST_IMAGE"
root="$work/agnhost"
userland "$root"
cp "$work/bin/agnhost" "$root/agnhost"
ln -s agnhost "$root/agnhost-2"
mkdir -p "$root/uploads"
# This machine's tools and the shared libraries they load, at the same paths.
for p in "${host_paths[@]}"; do
  cp "$p" "$root/usr/bin/$(basename "$p")"
  ldd "$p" | awk '/=> \// {print $3} /^[[:space:]]*\// {print $1}'
done | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
# curl's TLS needs the CA bundle; the tools' names in the image match them.
[ ! -f /etc/ssl/certs/ca-certificates.crt ] || { mkdir -p "$root/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"; }
"$work/bin/imgpack" -symlinks -o "$work/agnhost.tar" -tag "$AGNHOST_IMAGE" -entrypoint /agnhost -cmd pause "$root:/"

log "packing $PAUSE_IMAGE"
"$work/bin/imgpack" -o "$work/pause.tar" -tag "$PAUSE_IMAGE" -entrypoint /pause "$work/bin/pause:/pause"

for f in agnhost busybox pause; do mv "$work/$f.tar" "$images_dir/$f.tar"; done
cache_record "$images_dir/.fingerprint" "$want"
printf '%s\n' "agnhost $AGNHOST_IMAGE" "busybox $BUSYBOX_IMAGE" "pause $PAUSE_IMAGE" > "$images_dir/names"
log "e2e-node images in $images_dir, built in $((SECONDS - start))s"
