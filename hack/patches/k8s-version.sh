#!/usr/bin/env bash
# Print the upstream release that K8S_VERSION resolves to (see hack/lib.sh):
# unset gives the default (the pinned release of the newest minor pinned to a
# release), X.Y the pinned release of that minor, X.Y.Z or X.Y.Z-pre itself.
# With --all, print every supported minor, oldest first, as
#   <minor> <pinned release> <series folder> release|pre-release [default]
# ("default" on the minor an unset K8S_VERSION resolves to).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if [ "${1:-}" = --all ]; then
  default="$(default_minor)"
  for m in $(supported_minors); do
    v="$(pinned_version "$m")"
    kind=release
    ! is_prerelease "$v" || kind=pre-release
    [ "$m" != "$default" ] || kind="$kind default"
    echo "$m $v patches/v$m $kind"
  done
else
  echo "$K8S_VERSION"
fi
