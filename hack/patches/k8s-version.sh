#!/usr/bin/env bash
# Print the upstream release that K8S_VERSION resolves to (see hack/lib.sh):
# unset gives the pinned release of the newest minor, X.Y the pinned release
# of that minor, X.Y.Z itself. With --all, print every supported minor as
# "<minor> <pinned release> <series folder>", oldest first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
if [ "${1:-}" = --all ]; then
  for m in $(supported_minors); do
    echo "$m $(pinned_version "$m") patches/v$m"
  done
else
  echo "$K8S_VERSION"
fi
