#!/usr/bin/env bash
# What a kind node image built from sources holds besides its Debian root
# (hack/kind/build-node-image.sh), for v$K8S_VERSION, from the Go module proxy
# and Debian's packages only, into _output/kind/v$K8S_VERSION/:
#
#   bin/      static binaries (CGO_ENABLED=0), so that they run on any node
#             image whatever the build machine's glibc:
#               kubelet (patched), kubeadm, kubectl     the work tree, stamped
#                                                       as make kubelet stamps
#               containerd, containerd-shim-runc-v2, ctr  $CONTAINERD_VERSION
#   images/   image tarballs with the names kubeadm of this release asks for
#             (`kubeadm config images list`), and list.txt:
#               kube-apiserver, kube-controller-manager, kube-scheduler,
#               kube-proxy    the work tree, static; kube-proxy's image has a
#                             Debian root with iptables, conntrack and ipset,
#                             which it runs
#               etcd          go.etcd.io/etcd/server/v3 at kubeadm's version
#               coredns       github.com/coredns/coredns at kubeadm's version
#               pause         the project's own (hack/images/pause)
#             and the default storage's, named in images/storage.txt:
#               local-path-provisioner  github.com/rancher/local-path-provisioner
#               local-path-helper       the project's own (hack/images/localpath)
#
# runc and the CNI plugins come from Debian with the root file system.
# Incremental: each group keeps a fingerprint of its inputs and is skipped
# when it matches.
#
# Env: K8S_VERSION, CONTAINERD_VERSION (hack/lib.sh's by default),
#      LOCAL_PATH_PROVISIONER_VERSION (default kind v0.33.0's, v0.0.34),
#      KUBELET_ONLY=1 (build the kubelet alone: make kind-kubelet).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

LOCAL_PATH_PROVISIONER_VERSION="${LOCAL_PATH_PROVISIONER_VERSION:-v0.0.34}"
parts="$KIND_DIR/v$K8S_VERSION"
bin="$parts/bin" images="$parts/images"
mkdir -p "$bin" "$images"
tmp="$(mktemp -d "$parts/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# The work tree with the series (fetched and imported when missing or stale,
# as make kubelet does).
"$ROOT/hack/patches/import-patches.sh"
go_env() { go env GOVERSION GOOS GOARCH GOAMD64 GOEXPERIMENT; }
export CGO_ENABLED=0

# group NAME FINGERPRINT: succeeds (and says so) when NAME was last built from
# FINGERPRINT; record NAME FINGERPRINT after a build.
# (hack/lib.sh's build cache: one stamp per group, parts/.NAME.fingerprint).
group() {
  if cache_fresh "$parts/.$1.fingerprint" "$2"; then
    log "$1 up to date"
    return 0
  fi
  return 1
}
record() { cache_record "$parts/.$1.fingerprint" "$2"; }
# static FILE...: fail unless every FILE is a static executable.
static() {
  local f
  for f in "$@"; do
    file -b "$f" | grep -q 'statically linked' || die "$f is not statically linked: $(file -b "$f")"
  done
}

# --- Kubernetes, from the patched work tree ---------------------------------------
version_stamp
version="$VERSION"
add_version_ldflag buildDate "$(date -u --date="@${SOURCE_DATE_EPOCH:-$(tree_git log -1 --format=%ct)}" +%Y-%m-%dT%H:%M:%SZ)"
ldflags="${VERSION_LDFLAGS[*]}"
# build_k8s GROUP CMDS: the static binaries CMDS of the work tree into bin/,
# unless GROUP was built from the same tree, series and Go.
build_k8s() {
  local g="$1" cmds="$2" want pkgs=() c got start
  want="$(
    {
      echo "k8s $K8S_VERSION $cmds static"
      echo "tree $TREE_COMMIT"
      printf '%s\n' "$TREE_STATUS" "$TREE_EDITS"
      echo "ldflags $ldflags"
      go_env
      cache_hash_fork_module
    } | cache_key
  )"
  group "$g" "$want" && return 0
  for c in $cmds; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  go_build() { (cd "$BUILD_DIR" && GOFLAGS=-mod=mod go build -trimpath -o "$tmp/" -ldflags "$ldflags" "${pkgs[@]}"); }
  start=$SECONDS
  with_progress "building $cmds $version (static)" go_build
  for c in $cmds; do
    case "$c" in
      kubectl) got="$("$tmp/$c" version --client 2>&1 | head -n1 || true)" ;;
      kubeadm) got="$("$tmp/$c" version -o short 2>&1 || true)" ;;
      *) got="$("$tmp/$c" --version 2>&1 || true)" ;;
    esac
    [[ "$got" == *"$version" ]] || die "the built $c reports '$got', expected $version"
    static "$tmp/$c"
  done
  for c in $cmds; do mv "$tmp/$c" "$bin/$c"; done
  record "$g" "$want"
  log "built $cmds in $((SECONDS - start))s"
}
# The kubelet apart, so that the prototyping loop (make kind-kubelet:
# KUBELET_ONLY=1) rebuilds nothing else.
build_k8s kubelet kubelet
if [ -n "${KUBELET_ONLY:-}" ]; then
  exit 0
fi
build_k8s kubernetes "kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy"

# --- containerd ---------------------------------------------------------------------
ctrd_mod="github.com/containerd/containerd/v2"
ctrd_cmds="containerd containerd-shim-runc-v2 ctr"
want="$(printf '%s\n' "$ctrd_mod@$CONTAINERD_VERSION" "$ctrd_cmds" "$CONTAINERD_TAGS" static "$(go_env)" | cache_key)"
if ! group containerd "$want"; then
  pkgs=()
  for c in $ctrd_cmds; do pkgs+=("$ctrd_mod/cmd/$c@$CONTAINERD_VERSION"); done
  start=$SECONDS
  (cd "$tmp" && GOBIN="$tmp" go install -trimpath -tags "$CONTAINERD_TAGS" -ldflags "-X $ctrd_mod/version.Version=$CONTAINERD_VERSION" "${pkgs[@]}")
  for c in $ctrd_cmds; do static "$tmp/$c"; mv "$tmp/$c" "$bin/$c"; done
  record containerd "$want"
  log "built containerd $CONTAINERD_VERSION (static) in $((SECONDS - start))s"
fi

# --- the images ---------------------------------------------------------------------
build_tool imgpack
imgpack_sum="$(sha256sum < "$BIN_DIR/imgpack")"
mapfile -t wanted < <("$bin/kubeadm" config images list --kubernetes-version "v$K8S_VERSION" 2> /dev/null)
[ "${#wanted[@]}" -ge 7 ] || die "kubeadm config images list gave ${#wanted[@]} images: ${wanted[*]}"
image_of() { printf '%s\n' "${wanted[@]}" | grep -m1 "/$1:" || die "kubeadm lists no $1 image"; }
etcd_image="$(image_of etcd)" coredns_image="$(image_of coredns)" pause_image="$(image_of pause)"
etcd_version="v${etcd_image##*:}" && etcd_version="${etcd_version%-*}"          # 3.7.0-0 -> v3.7.0
coredns_version="${coredns_image##*:}"                                           # v1.14.6

# served MODULE VERSION: VERSION if the module proxy serves it, else the
# newest served release of the same minor (said in the log; etcd's and
# CoreDNS's images keep kubeadm's names, since kubeadm asks for those).
served() {
  local mod="$1" want="$2" minor versions v
  if GOFLAGS=-mod=mod go list -m "$mod@$want" > /dev/null 2>&1; then echo "$want"; return; fi
  minor="$(cut -d. -f1,2 <<< "$want")"
  versions="$(GOFLAGS=-mod=mod go list -m -versions "$mod" 2> /dev/null | tr ' ' '\n' | grep -E "^${minor//./\\.}\.[0-9]+$" || true)"
  v="$(sort -V <<< "$versions" | tail -n1)"
  [ -n "$v" ] || die "the module proxy serves neither $mod@$want nor another $minor release"
  log "$mod@$want is not served; building $v, the newest $minor release served"
  echo "$v"
}
etcd_version="$(cd "$tmp" && served go.etcd.io/etcd/server/v3 "$etcd_version")"
coredns_version="$(cd "$tmp" && served github.com/coredns/coredns "$coredns_version")"

# pack NAME TAG ARGS...: images/NAME.tar of imgpack ARGS, tagged TAG.
pack() { local n="$1" tag="$2"; shift 2; "$BIN_DIR/imgpack" -o "$tmp/$n.tar" -tag "$tag" "$@" && mv "$tmp/$n.tar" "$images/$n.tar"; }

want="$(cat "$parts/.kubernetes.fingerprint"; echo "$imgpack_sum"; printf '%s\n' "${wanted[@]}")"
if ! group control-plane-images "$(cache_key <<< "$want")"; then
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    pack "$c" "$(image_of "$c")" -entrypoint "/usr/local/bin/$c" "$bin/$c:/usr/local/bin/$c"
    rm -f "$bin/$c" # only in the image
  done
  record control-plane-images "$(cache_key <<< "$want")"
fi

# kube-proxy runs iptables and conntrack: a Debian root under its binary.
proxy_root="$(kind_rootfs_tar bookworm-kube-proxy "iptables,conntrack,ipset,kmod")"
want="$(cat "$parts/.kubernetes.fingerprint"; echo "$imgpack_sum"; sha256sum < "$proxy_root"; image_of kube-proxy)"
if ! group kube-proxy-image "$(cache_key <<< "$want")"; then
  pack kube-proxy "$(image_of kube-proxy)" -layer "$proxy_root" -entrypoint /usr/local/bin/kube-proxy "$bin/kube-proxy:/usr/local/bin/kube-proxy"
  rm -f "$bin/kube-proxy"
  record kube-proxy-image "$(cache_key <<< "$want")"
fi

# module_build MODULE@VERSION PACKAGE OUT [MAIN_GO]: build PACKAGE of MODULE
# in a throwaway module (go install mod@ver refuses modules with replace
# directives); MAIN_GO, if given, is the main package's source, for modules
# whose command is a library call.
module_build() {
  local modver="$1" pkg="$2" out="$3" main="${4:-}" d="$tmp/mod-$RANDOM"
  mkdir -p "$d"
  (
    cd "$d"
    go mod init sidecar-kubelet.local/build > /dev/null 2>&1
    [ -z "$main" ] || printf '%s\n' "$main" > main.go
    go get "$modver" > /dev/null 2>&1 || { go get "$modver"; exit 1; }
    # The main.go's imports need tidy; a dependency's own main package must
    # not be tidied away.
    [ -z "$main" ] || go mod tidy > /dev/null 2>&1 || go mod tidy
    go build -trimpath -o "$out" "$pkg"
  )
}

want="$(printf '%s\n' "etcd $etcd_version $etcd_image" "$(go_env)"; echo "$imgpack_sum")"
if ! group etcd-image "$(cache_key <<< "$want")"; then
  start=$SECONDS
  with_progress "building etcd $etcd_version (static)" module_build "go.etcd.io/etcd/server/v3@$etcd_version" . "$tmp/etcd" \
    'package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// etcd, as upstream'"'"'s etcd binary: its main is etcdmain.Main.
func main() { etcdmain.Main(os.Args) }'
  static "$tmp/etcd"
  pack etcd "$etcd_image" -entrypoint /usr/local/bin/etcd "$tmp/etcd:/usr/local/bin/etcd"
  record etcd-image "$(cache_key <<< "$want")"
  log "built etcd $etcd_version in $((SECONDS - start))s"
fi

want="$(printf '%s\n' "coredns $coredns_version $coredns_image" "$(go_env)"; echo "$imgpack_sum")"
if ! group coredns-image "$(cache_key <<< "$want")"; then
  start=$SECONDS
  with_progress "building coredns $coredns_version (static)" module_build "github.com/coredns/coredns@$coredns_version" github.com/coredns/coredns "$tmp/coredns"
  static "$tmp/coredns"
  pack coredns "$coredns_image" -entrypoint /coredns "$tmp/coredns:/coredns"
  record coredns-image "$(cache_key <<< "$want")"
  log "built coredns $coredns_version in $((SECONDS - start))s"
fi

want="$(printf '%s\n' "$pause_image"; echo "$imgpack_sum")"
if ! group pause-image "$(cache_key <<< "$want")"; then
  go build -trimpath -o "$tmp/pause" "$ROOT/hack/images/pause"
  pack pause "$pause_image" -entrypoint /pause "$tmp/pause:/pause"
  record pause-image "$(cache_key <<< "$want")"
fi

# The default storage, as kind's images have it: rancher's local-path-provisioner
# (kind v0.33.0 ships v0.0.34; the newest the module proxy serves is built)
# and its helper pod's image, the static hack/images/localpath. Their names
# go to images/storage.txt, for the manifest (build-node-image.sh).
lpp_version="$(cd "$tmp" && served github.com/rancher/local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION")"
lpp_image="sidecar-kubelet.local/local-path-provisioner:$lpp_version"
want="$(printf '%s\n' "local-path-provisioner $lpp_version" "$(go_env)"; echo "$imgpack_sum")"
if ! group local-path-provisioner-image "$(cache_key <<< "$want")"; then
  start=$SECONDS
  with_progress "building local-path-provisioner $lpp_version (static)" module_build "github.com/rancher/local-path-provisioner@$lpp_version" \
    github.com/rancher/local-path-provisioner "$tmp/local-path-provisioner"
  static "$tmp/local-path-provisioner"
  pack local-path-provisioner "$lpp_image" -entrypoint /usr/local/bin/local-path-provisioner \
    "$tmp/local-path-provisioner:/usr/local/bin/local-path-provisioner"
  record local-path-provisioner-image "$(cache_key <<< "$want")"
  log "built local-path-provisioner $lpp_version in $((SECONDS - start))s"
fi
(cd "$ROOT" && go build -trimpath -o "$tmp/local-path-helper" ./hack/images/localpath)
static "$tmp/local-path-helper"
helper_image="sidecar-kubelet.local/local-path-helper:$(sha256sum < "$tmp/local-path-helper" | cut -c1-12)"
want="$(printf '%s\n' "$helper_image"; echo "$imgpack_sum")"
if ! group local-path-helper-image "$(cache_key <<< "$want")"; then
  pack local-path-helper "$helper_image" -entrypoint /local-path-helper "$tmp/local-path-helper:/local-path-helper"
  record local-path-helper-image "$(cache_key <<< "$want")"
fi
printf '%s\n' "local-path-provisioner $lpp_image" "local-path-helper $helper_image" > "$images/storage.txt"

printf '%s\n' "${wanted[@]}" > "$images/list.txt"
log "node parts for v$K8S_VERSION in ${parts#"$ROOT"/}: $(cd "$bin" && ls | paste -sd' '); images: $(cd "$images" && ls ./*.tar | xargs -n1 basename | paste -sd' ')"
