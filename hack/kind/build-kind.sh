#!/usr/bin/env bash
# Build kind $KIND_VERSION from the Go module proxy into _output/bin/kind
# (`go install sigs.k8s.io/kind@$KIND_VERSION` with GOBIN=_output/bin).
# Idempotent: does nothing when _output/bin/kind's `kind version` already
# says $KIND_VERSION. About a minute on 2 cores with a cold build cache.
#
# Env: OUTPUT (default _output), KIND_VERSION (default v0.33.0), GOFLAGS,
#      GOPROXY and the other go env vars as usual.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

KIND_VERSION="${KIND_VERSION:-v0.33.0}"
kind="$BIN_DIR/kind"
have="$("$kind" version 2> /dev/null || true)"
if [[ "$have" == "kind $KIND_VERSION "* ]]; then
  log "$kind is already $KIND_VERSION ($have)"
  exit 0
fi
command -v go > /dev/null || die "needs go"
mkdir -p "$BIN_DIR"
log "building kind $KIND_VERSION into $kind${have:+ (was: $have)}"
start=$SECONDS
# A temporary GOBIN, so that a failed build leaves the old binary in place.
tmp="$(mktemp -d "$BIN_DIR/.kind-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
GOBIN="$tmp" with_progress "building kind" go install "sigs.k8s.io/kind@$KIND_VERSION"
got="$("$tmp/kind" version)"
[[ "$got" == "kind $KIND_VERSION "* ]] || die "the built kind says '$got', not $KIND_VERSION"
mv -f "$tmp/kind" "$kind"
log "built $got in $((SECONDS - start))s"
