#!/usr/bin/env bash
# Fetch the pinned upstream Kubernetes source and lay it out for building:
#
#   _output/v$K8S_VERSION/kubernetes   upstream as a git work tree; the tag
#                                      "upstream" marks the pristine release
#   _output/v$K8S_VERSION/go.mod       the build module
#
# The source comes from the Go module proxy (k8s.io/kubernetes@v$K8S_VERSION).
# That zip has no staging/ folder, so the build module pins every k8s.io
# staging module to its published v0.Y.Z release instead (v0.Y.Z-pre for a
# pre-release, or, where the proxy serves none of that, the newest version
# below it: see staging-versions below).
#
# The build module also requires this repository (for kubelet/), whose
# go.mod asks for the default release's dependencies (k8s.io/* v0.37.x,
# grpc, klog, kube-openapi, golang.org/x/... of that release). Minimal
# version selection takes the highest version any module asks for, so
# without more, a build of an older minor would quietly link newer
# third-party modules than the release was tested with (e.g. grpc 1.82
# instead of 1.72 for v1.35). So every module upstream's go.mod requires
# is pinned with a replace to the version upstream requires: the kubelet
# is built from exactly the release's dependency set, and kubelet/ must
# compile against it (it only uses api, apimachinery, component-base and
# klog, whose APIs it needs are old). The go directive is the higher of
# upstream's and ours (the go command would raise it anyway), and
# upstream's godebug lines are kept, so the binary's GODEBUG defaults are
# the release's.
#
# Idempotent: an existing work tree is left as it is.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

if [ ! -d "$TREE/.git" ]; then
  log "downloading k8s.io/kubernetes@v$K8S_VERSION"
  # A release the module proxy does not serve (a typo, one not out yet)
  # fails here, before anything is written under _output.
  if ! json="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" 2>&1)"; then
    err="$(printf '%s\n' "$json" | sed -n 's/^\t"Error": "\(.*\)",\{0,1\}$/\1/p' | head -n1)"
    die "cannot download k8s.io/kubernetes@v$K8S_VERSION: ${err:-$json}
Is v$K8S_VERSION an upstream release? The supported minors and their pinned releases: hack/patches/k8s-version.sh --all"
  fi
  moddir="$(printf '%s\n' "$json" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$moddir" ] || die "go mod download gave no source folder for k8s.io/kubernetes@v$K8S_VERSION"
  mkdir -p "$BUILD_DIR"

  tmp="$TREE.tmp.$$"
  trap 'rm -rf "$tmp"' EXIT
  rm -rf "$tmp"
  cp -r "$moddir" "$tmp"
  chmod -R u+w "$tmp"
  log "creating the work tree $TREE"
  git -C "$tmp" init -q -b "$PATCH_BRANCH"
  git -C "$tmp" config core.autocrlf false
  git -C "$tmp" config gc.auto 0
  git -C "$tmp" add -A -f
  GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
    git -C "$tmp" commit -q --no-verify -m "upstream v$K8S_VERSION" \
    -m "k8s.io/kubernetes@v$K8S_VERSION as served by the Go module proxy."
  git -C "$tmp" tag "$UPSTREAM_TAG"
  mv "$tmp" "$TREE"
  trap - EXIT
fi

mkdir -p "$BUILD_DIR"

# The build module. Generated every time (cheap) so that a change of this
# script or of the root go.mod reaches it; the go command may rewrite go.mod
# when it resolves it, so the generated text is kept beside it to compare.
upstream_gomod="$TREE/go.mod"
upstream_go="$(sed -n 's/^go //p' "$upstream_gomod" | head -n1)"
own_go="$(sed -n 's/^go //p' "$ROOT/go.mod" | head -n1)"
go_directive="$(printf '%s\n' "$upstream_go" "$own_go" | sort -V | tail -n1)"
# Staging modules: those upstream replaces with ./staging/src/...
staging="$(sed -n '/^replace (/,/^)/p' "$upstream_gomod" | awk '/=> *\.\/staging\// {print $1}')"

# The version of each staging module: the release's v0.Y.Z. For a
# pre-release, the module proxy may not serve every staging module at
# v0.Y.Z-pre (upstream's publishing does not tag each one for each
# pre-release); such a module is pinned to the newest version the proxy
# serves below it, said in the log and in the build module, and make
# verify-versions names those the kubelet links. Asked once per work tree
# and kept in $BUILD_DIR/staging-versions ("module version" lines; absent
# for a release, whose staging modules are all at v0.Y.Z).
staging_versions="$BUILD_DIR/staging-versions"
if is_prerelease "$K8S_VERSION" && [ ! -s "$staging_versions" ]; then
  log "asking the module proxy which staging modules it serves at $STAGING_VERSION"
  empty="$(mktemp -d)"
  # shellcheck disable=SC2046  # a list of module@version
  served="$(cd "$empty" && GOFLAGS= GOWORK=off go list -m -e -f '{{.Path}} {{if .Error}}-{{else}}{{.Version}}{{end}}' \
    $(for m in $staging; do echo "$m@$STAGING_VERSION"; done))" || { rmdir "$empty"; die "cannot ask the module proxy for the staging modules at $STAGING_VERSION"; }
  while read -r m v; do
    [ -n "$m" ] || continue
    if [ "$v" = - ]; then
      v="$(cd "$empty" && GOFLAGS= GOWORK=off go list -m -e -versions -f '{{range .Versions}}{{.}} {{end}}' "$m" |
        tr ' ' '\n' | while read -r c; do [ -z "$c" ] || ! semver_lt "$c" "$STAGING_VERSION" || echo "$c"; done | tail -n1)"
      if [ -n "$v" ]; then
        log "$m: not served at $STAGING_VERSION; pinned to $v, the newest version below it"
      else
        v="$STAGING_VERSION"
        log "$m: not served at $STAGING_VERSION, nor at any version below it; a build that needs it fails"
      fi
    fi
    echo "$m $v"
  done <<< "$served" > "$staging_versions.tmp"
  rmdir "$empty"
  mv "$staging_versions.tmp" "$staging_versions"
fi
# staging_version MODULE prints the version MODULE is pinned to.
staging_version() {
  local v=""
  [ ! -s "$staging_versions" ] || v="$(awk -v m="$1" '$1 == m { print $2 }' "$staging_versions")"
  echo "${v:-$STAGING_VERSION}"
}
# Every other module upstream requires, with its version.
pinned="$(awk -v skip="k8s.io/kubernetes $(echo $staging)" '
  BEGIN { n = split(skip, a, " "); for (i = 1; i <= n; i++) drop[a[i]] = 1 }
  /^require \($/ { r = 1; next }
  r && /^\)/ { r = 0 }
  r && NF >= 2 && !($1 in drop) { print $1, $2 }
  /^require [^(]/ && !($2 in drop) { print $2, $3 }' "$upstream_gomod" | sort -u)"
{
  echo "// Generated by hack/patches/fetch-upstream.sh. Do not edit."
  echo "module sidecar-kubelet.build/v$K8S_VERSION"
  echo
  echo "go $go_directive"
  grep '^godebug' "$upstream_gomod" || true
  echo
  echo "require ("
  echo "	k8s.io/kubernetes v$K8S_VERSION"
  echo "	$OWN_MODULE v0.0.0"
  echo ")"
  echo
  echo "replace ("
  echo "	k8s.io/kubernetes => ./kubernetes"
  echo "	$OWN_MODULE => $(realpath --relative-to="$BUILD_DIR" "$ROOT")"
  echo
  echo "	// The staging modules, at the release's v0.Y.Z."
  for m in $staging; do
    v="$(staging_version "$m")"
    [ "$v" = "$STAGING_VERSION" ] ||
      echo "	// $m: not served at $STAGING_VERSION; the newest version below it."
    echo "	$m => $m $v"
  done
  echo
  echo "	// Every other module upstream requires, at the version it requires,"
  echo "	// however high this repository's go.mod asks."
  printf '%s\n' "$pinned" | while read -r m v; do
    [ -n "$m" ] || continue
    echo "	$m => $m $v"
  done
  echo ")"
} > "$BUILD_DIR/go.mod.new"
# Regenerated too when something rewrote go.mod since (a go command with
# -mod=mod may, e.g. when this repository's go.mod asked for more).
if ! cmp -s "$BUILD_DIR/go.mod.new" "$BUILD_DIR/go.mod.generated" ||
   ! cmp -s "$BUILD_DIR/go.mod" "$BUILD_DIR/go.mod.generated"; then
  cp "$BUILD_DIR/go.mod.new" "$BUILD_DIR/go.mod"
  # Upstream's go.sum has every third-party module of the release; ours adds
  # what kubelet/ needs. The go command adds the staging modules' sums.
  cat "$TREE/go.sum" "$ROOT/go.sum" 2>/dev/null | sort -u > "$BUILD_DIR/go.sum"
  log "resolving the build module"
  if ! (cd "$BUILD_DIR" && GOFLAGS=-mod=mod go list -m all >/dev/null); then
    rm -f "$BUILD_DIR/go.mod" "$BUILD_DIR/go.mod.generated"   # so that the next run tries again
    die "could not resolve the build module in $BUILD_DIR"
  fi
  mv "$BUILD_DIR/go.mod.new" "$BUILD_DIR/go.mod.generated"
else
  rm -f "$BUILD_DIR/go.mod.new"
fi
log "upstream v$K8S_VERSION is at $TREE"
