#!/usr/bin/env bash
# Build the UNPATCHED kubelet of the pinned release into
# $K8S_BIN_DIR/kubelet-upstream, for comparisons (make e2e-node KUBELET=upstream).
#
# The source is the work tree's tag "upstream" (the pristine release), checked
# out as a git worktree at _output/v$K8S_VERSION/upstream/kubernetes, and built
# from a copy of the build module that points there. The binary is stamped
# v$K8S_VERSION, as upstream's own release is.
#
# Incremental and idempotent: a fingerprint of the inputs is kept beside the
# binary; when it matches, go is not run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# The work tree, and the build module as fetch-upstream.sh writes it (ours
# is derived from it).
"$ROOT/hack/patches/fetch-upstream.sh"

up_dir="$BUILD_DIR/upstream"
up_tree="$up_dir/kubernetes"
commit="$(tree_git rev-parse "$UPSTREAM_TAG^{commit}")"

# The worktree, at the tag, clean. A worktree at another commit, a dirty one or
# a stale registration (e.g. after make clean) is made anew.
if [ -e "$up_tree/.git" ] && [ "$(git -C "$up_tree" rev-parse HEAD 2>/dev/null || true)" = "$commit" ] &&
  [ -z "$(git -C "$up_tree" status --porcelain 2>/dev/null || echo dirty)" ]; then
  :
else
  log "checking out the pristine release ($UPSTREAM_TAG, ${commit:0:12}) at $up_tree"
  tree_git worktree remove --force "$up_tree" 2>/dev/null || rm -rf "$up_tree"
  tree_git worktree prune
  mkdir -p "$up_dir"
  tree_git worktree add -q --detach "$up_tree" "$commit"
fi

# Its build module: the main one, with the relative replace of this
# repository adjusted to the deeper folder (k8s.io/kubernetes => ./kubernetes
# stays: the worktree sits beside it).
own_rel="$(realpath --relative-to="$up_dir" "$ROOT")"
sed -e "s|^\(\t$OWN_MODULE => \).*|\1$own_rel|" \
  -e "s|^module .*|module sidecar-kubelet.build/v$K8S_VERSION/upstream|" \
  "$BUILD_DIR/go.mod" > "$up_dir/go.mod.new"
if cmp -s "$up_dir/go.mod.new" "$up_dir/go.mod"; then rm -f "$up_dir/go.mod.new"; else mv "$up_dir/go.mod.new" "$up_dir/go.mod"; fi
cmp -s "$BUILD_DIR/go.sum" "$up_dir/go.sum" 2>/dev/null || cp "$BUILD_DIR/go.sum" "$up_dir/go.sum"

version="v$K8S_VERSION"
[[ "$version" =~ ^v([0-9]+)\.([0-9]+) ]] || die "bad version $version"
VERSION_LDFLAGS=()
add_version_ldflag gitVersion "$version"
add_version_ldflag gitMajor "${BASH_REMATCH[1]}"
add_version_ldflag gitMinor "${BASH_REMATCH[2]}"
add_version_ldflag gitCommit "$commit"
add_version_ldflag gitTreeState clean
add_version_ldflag buildDate "$(date -u --date="@$(tree_git log -1 --format=%ct "$commit")" +%Y-%m-%dT%H:%M:%SZ)"
ldflags="${VERSION_LDFLAGS[*]}"

want="$(
  {
    echo "k8s $K8S_VERSION upstream $commit"
    echo "ldflags $ldflags"
    go env GOVERSION GOOS GOARCH GOAMD64 CGO_ENABLED GOEXPERIMENT
    sha256sum "$up_dir/go.mod"
  } | cache_key
)"
build_kubelet "the unpatched kubelet $version (${commit:0:12})" \
  "$K8S_BIN_DIR/kubelet-upstream" "$version" "$want" "$up_dir" "$ldflags"
