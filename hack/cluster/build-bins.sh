#!/usr/bin/env bash
# Build what the local cluster runs besides the kubelet (hack/patches/build-kubelet.sh
# builds that):
#
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
#       into $K8S_BIN_DIR (_output/vX.Y.Z/bin, beside the kubelet), from the
#       same build module and work tree as the kubelet, stamped with the same
#       version (v$K8S_VERSION-sidecar-kubelet+<series hash>): the control
#       plane follows K8S_VERSION
#   and, into $BIN_DIR (_output/bin), what does not depend on the release:
#   containerd, containerd-shim-runc-v2, ctr
#       github.com/containerd/containerd/v2 at $CONTAINERD_VERSION, from the
#       Go module proxy, build tag no_btrfs
#   imgpack, crisweep    hack/tools (a module of its own)
#   _output/images/pause.tar
#       the pod sandbox image $PAUSE_IMAGE (hack/images/pause)
#
# Incremental like build-kubelet.sh: each group keeps a fingerprint of its
# inputs beside its outputs, and go is not run when it matches.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster_settings

mkdir -p "$BIN_DIR" "$K8S_BIN_DIR" "$IMAGES_DIR"
tmp="$(mktemp -d "$BIN_DIR/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# A group of outputs built together keeps one stamp, DIR/.GROUP.fingerprint
# (hack/lib.sh's build cache).
# up_to_date GROUP KEY OUTPUT...: the stamp is in the folder of the first OUTPUT.
up_to_date() { cache_fresh "$(dirname "$3")/.$1.fingerprint" "$2" "${@:3}"; }
# record GROUP KEY DIR
record() { cache_record "$3/.$1.fingerprint" "$2"; }
go_env() { go env GOVERSION GOOS GOARCH GOAMD64 CGO_ENABLED GOEXPERIMENT; }

# --- upstream components --------------------------------------------------------
[ -d "$TREE/.git" ] || die "no work tree at $TREE: run make kubelet first"
k8s_cmds="kube-apiserver kube-controller-manager kube-scheduler kubectl"
version_stamp
version="$VERSION" commit="$TREE_COMMIT" status="$TREE_STATUS"
# buildDate is the work tree's commit date (SOURCE_DATE_EPOCH overrides it),
# not the time of the build: then a rebuild that changes nothing a binary
# links gives the same bytes, the old file is kept, and make up does not
# restart that component (a kubelet/ change rebuilds all four; only
# kube-controller-manager links kubelet/ code).
add_version_ldflag buildDate "$(date -u --date="@${SOURCE_DATE_EPOCH:-$(tree_git log -1 --format=%ct)}" +%Y-%m-%dT%H:%M:%SZ)"
ldflags=("${VERSION_LDFLAGS[@]}")
stable_ldflags="${ldflags[*]}"
want="$(
  {
    echo "k8s $K8S_VERSION $k8s_cmds"
    echo "tree $commit"
    printf '%s\n' "$status" "$TREE_EDITS"
    echo "ldflags $stable_ldflags"
    go_env
    # The build module links this repository too (kubelet/).
    cache_hash_fork_module
  } | cache_key
)"
outs=()
for c in $k8s_cmds; do outs+=("$K8S_BIN_DIR/$c"); done
if up_to_date k8s-components "$want" "${outs[@]}"; then
  log "$k8s_cmds up to date"
else
  log "building $k8s_cmds $version"
  start=$SECONDS
  pkgs=()
  for c in $k8s_cmds; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  go_build_k8s() { (set -e; cd "$BUILD_DIR" && GOFLAGS=-mod=mod go build -o "$tmp/" -ldflags "${ldflags[*]}" "${pkgs[@]}"); }
  with_progress "building $k8s_cmds" go_build_k8s
  for c in $k8s_cmds; do
    # A mistyped -X is silently ignored by the linker; make sure the stamp took.
    if [ "$c" = kubectl ]; then got="$("$tmp/$c" version --client 2>&1 | head -n1 || true)"; else got="$("$tmp/$c" --version 2>&1 || true)"; fi
    [[ "$got" == *"$version" ]] || die "the built $c reports '$got', expected $version"
  done
  for c in $k8s_cmds; do
    if cmp -s "$tmp/$c" "$K8S_BIN_DIR/$c"; then log "$c: same bytes as before, kept"; else mv "$tmp/$c" "$K8S_BIN_DIR/$c"; fi
  done
  record k8s-components "$want" "$K8S_BIN_DIR"
  log "built $k8s_cmds in $((SECONDS - start))s"
fi

# --- containerd -------------------------------------------------------------------
ctrd_cmds="containerd containerd-shim-runc-v2 ctr"
ctrd_mod="github.com/containerd/containerd/v2"
ctrd_ldflags="-X $ctrd_mod/version.Version=$CONTAINERD_VERSION"
want="$(printf '%s\n' "$ctrd_mod@$CONTAINERD_VERSION" "$ctrd_cmds" "$CONTAINERD_TAGS" "$ctrd_ldflags" "$(go_env)" | cache_key)"
outs=()
for c in $ctrd_cmds; do outs+=("$BIN_DIR/$c"); done
if up_to_date containerd "$want" "${outs[@]}"; then
  log "containerd $CONTAINERD_VERSION up to date"
else
  log "building containerd $CONTAINERD_VERSION ($ctrd_cmds)"
  start=$SECONDS
  pkgs=()
  for c in $ctrd_cmds; do pkgs+=("$ctrd_mod/cmd/$c@$CONTAINERD_VERSION"); done
  # go install pkg@version builds in module mode outside any module.
  (cd "$tmp" && GOBIN="$tmp" go install -tags "$CONTAINERD_TAGS" -ldflags "$ctrd_ldflags" "${pkgs[@]}")
  got="$("$tmp/containerd" --version)"
  [[ "$got" == *" $CONTAINERD_VERSION"* ]] || die "the built containerd reports '$got', expected $CONTAINERD_VERSION"
  for c in $ctrd_cmds; do mv "$tmp/$c" "$BIN_DIR/$c"; done
  record containerd "$want" "$BIN_DIR"
  log "built containerd $CONTAINERD_VERSION in $((SECONDS - start))s"
fi

# --- hack/tools ---------------------------------------------------------------------
tools="imgpack crisweep"
tools_fp() {
  echo "$tools"
  go_env
  cache_hash_files "$ROOT/hack/tools" . \( -name '*.go' -o -name go.mod -o -name go.sum \)
}
want="$(tools_fp | cache_key)"
outs=()
for c in $tools; do outs+=("$BIN_DIR/$c"); done
if up_to_date tools "$want" "${outs[@]}"; then
  log "hack/tools ($tools) up to date"
else
  log "building hack/tools ($tools)"
  pkgs=()
  for c in $tools; do pkgs+=("./$c"); done
  (cd "$ROOT/hack/tools" && go build -o "$tmp/" "${pkgs[@]}")
  for c in $tools; do mv "$tmp/$c" "$BIN_DIR/$c"; done
  record tools "$want" "$BIN_DIR"
fi

# --- the pause image ---------------------------------------------------------------
want="$(
  {
    echo "$PAUSE_IMAGE"
    cat "$BIN_DIR/.tools.fingerprint"
    go_env
    cache_hash_files "$ROOT" hack/images/pause
  } | cache_key
)"
if up_to_date pause-image "$want" "$IMAGES_DIR/pause.tar"; then
  log "pause image up to date ($IMAGES_DIR/pause.tar)"
else
  log "building the pause image $PAUSE_IMAGE"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$tmp/pause" ./hack/images/pause)
  "$BIN_DIR/imgpack" -o "$IMAGES_DIR/pause.tar" -tag "$PAUSE_IMAGE" -entrypoint /pause "$tmp/pause:/pause"
  record pause-image "$want" "$IMAGES_DIR"
  log "wrote $IMAGES_DIR/pause.tar"
fi
