#!/usr/bin/env bash
# Probe whether a kind node can run on this machine's Docker engine: start a
# Debian bookworm container with systemd the way kind v0.33.0 starts a node
# (its `docker run` flags, --privileged included), through the docker
# stand-in (hack/kind/standin) first on PATH, and check
#
#   1. systemd boots as PID 1: `systemctl is-system-running --wait` within
#      PROBE_TIMEOUT seconds says running (or degraded, with the failed units);
#   2. `docker exec --privileged` works, and which capabilities it gets;
#   3. /sys/fs/cgroup is writable the way kind's entrypoint needs on this
#      cgroup v1 host: mkdir of kubelet and kubelet.slice under each
#      subsystem, cpuset.cpus/mems copied, a self bind mount (then undone).
#
# The rootfs: debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus
# bookworm, with kind's base-image systemd trimming, cached as
# _output/kind/cache/bookworm-systemd.tar (hack/kind/node-image.sh rootfs; a
# second run reuses it; delete it to rebuild), imported as $PROBE_IMAGE when the engine lacks it. Prints a
# summary, one line a check, and exits 1 if a check failed. Removes its
# container and network at the end; starts the engine (hack/kind/engine.sh)
# if it is down and stops it again afterwards.
#
# Env: OUTPUT (default _output), PROBE_IMAGE (default
#      sidecar-kubelet/systemd-probe:bookworm), PROBE_TIMEOUT (default 60),
#      STANDIN_CGROUP_RW (passed to the stand-in: 1 (default) makes the
#      cgroup mounts writable, 0 leaves them as Docker mounts them),
#      KEEP=1 (leave the container running), DEBIAN_MIRROR (default
#      http://deb.debian.org/debian).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, dockerd)"
IMAGE="${PROBE_IMAGE:-sidecar-kubelet/systemd-probe:bookworm}"
NAME=sidecar-kubelet-systemd-probe
NET=sidecar-kubelet-probe
timeout="${PROBE_TIMEOUT:-60}"
export PATH="$ROOT/hack/kind/standin:$PATH"
ENGINE="$KIND_ENGINE"

started_engine=""
cleanup() {
  local rc=$?
  if [ "${KEEP:-}" != 1 ] && docker_ok; then
    docker rm -f -v "$NAME" > /dev/null 2>&1 || true
    docker network rm "$NET" > /dev/null 2>&1 || true
  fi
  [ -z "$started_engine" ] || [ "${KEEP:-}" = 1 ] || "$ENGINE" down || true
  exit "$rc"
}
trap cleanup EXIT
docker_ok() { docker info > /dev/null 2>&1; }

if ! "$ENGINE" status > /dev/null 2>&1; then
  "$ENGINE" up
  started_engine=1
fi
use_engine

# The rootfs tarball (cached).
TARBALL="$("$ROOT/hack/kind/node-image.sh" rootfs bookworm-systemd systemd,systemd-sysv,dbus)"

# The image, labelled with the tarball's hash so that a new tarball re-imports.
sum="$(sha256sum "$TARBALL" | cut -c1-16)"
if [ "$(docker image inspect -f '{{index .Config.Labels "io.sidecar-kubelet.rootfs"}}' "$IMAGE" 2> /dev/null || true)" != "$sum" ]; then
  log "importing $IMAGE"
  t0=$SECONDS
  # Docker 20.10's import takes no STOPSIGNAL change; a one-line build from
  # the imported image (local, so nothing is pulled) adds it.
  docker import "$TARBALL" "$IMAGE-rootfs" > /dev/null
  printf '%s\n' "FROM $IMAGE-rootfs" 'ENV container=docker' 'STOPSIGNAL SIGRTMIN+3' \
    'ENTRYPOINT ["/sbin/init"]' "LABEL io.sidecar-kubelet.rootfs=$sum" |
    DOCKER_BUILDKIT=0 docker build -q -t "$IMAGE" - > /dev/null
  docker rmi "$IMAGE-rootfs" > /dev/null
  log "import took $((SECONDS - t0))s"
fi

docker rm -f -v "$NAME" > /dev/null 2>&1 || true
docker network inspect "$NET" > /dev/null 2>&1 || docker network create "$NET" > /dev/null
# kind v0.33.0's node flags (pkg/cluster/internal/providers/docker/provision.go),
# but the port and the cluster's network name.
log "docker run (kind's flags, --privileged, through $(command -v docker))"
t0=$SECONDS
docker run --name "$NAME" --hostname "$NAME" --label io.x-k8s.kind.role=control-plane \
  --privileged --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
  --tmpfs /tmp --tmpfs /run --volume /var --volume /lib/modules:/lib/modules:ro \
  -e KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER \
  --detach --tty --label io.x-k8s.kind.cluster=probe --net "$NET" --restart=on-failure:1 \
  --init=false --cgroupns=private --publish=127.0.0.1::6443/tcp "$IMAGE" > /dev/null

results=() failed=0
result() { # OK|FAIL TEXT
  results+=("$1 $2")
  [ "$1" = OK ] || failed=1
}

# Until systemd listens on its bus, systemctl says "Failed to connect to bus".
state=""
while ((SECONDS - t0 < timeout)); do
  state="$(docker exec "$NAME" timeout "$((timeout - (SECONDS - t0)))" systemctl is-system-running --wait 2>&1 || true)"
  case "$state" in running | degraded | maintenance | stopping) break ;; esac
  sleep 0.5
done
boot=$((SECONDS - t0))
pid1="$(docker exec "$NAME" cat /proc/1/comm 2>&1 || true)"
case "$state" in
  running) result OK "systemd boots as PID 1 ($pid1): is-system-running=running after ${boot}s" ;;
  degraded) result FAIL "systemd boots as PID 1 ($pid1) but is degraded after ${boot}s; failed: $(docker exec "$NAME" systemctl --failed --no-legend --plain 2>&1 | awk '{print $1}' | paste -sd' ')" ;;
  *) result FAIL "systemd is not running after ${boot}s (PID 1 $pid1): ${state//$'\n'/ }; docker logs: $(docker logs "$NAME" 2>&1 | tail -n 5 | tr '\n' ' ')" ;;
esac

if out="$(docker exec --privileged "$NAME" sh -c 'grep CapEff /proc/self/status' 2>&1)"; then
  result OK "docker exec --privileged works: ${out//$'\t'/ }"
else
  result FAIL "docker exec --privileged: $out"
fi

# What kind's entrypoint does under cgroupns on cgroup v1 (fix_cgroup,
# mount_kubelet_cgroup_root), undone again.
cgroup_script='
set -e
cur=$(grep -E "^[^:]*:([^:]*,)?cpu(,[^,:]*)?:" /proc/self/cgroup | cut -d: -f3)
echo "cpu cgroup path: $cur"
subs=$(findmnt -lun -o source,target -t cgroup | grep -F "$cur" | awk "{print \$2}")
for s in $subs; do
  for r in kubelet kubelet.slice; do
    mkdir -p "$s/$r"
    if [ "$s" = /sys/fs/cgroup/cpuset ]; then
      cat "$s/cpuset.cpus" > "$s/$r/cpuset.cpus"; cat "$s/cpuset.mems" > "$s/$r/cpuset.mems"
    fi
    mount --bind "$s/$r" "$s/$r"
  done
done
echo "made kubelet and kubelet.slice under: $(echo $subs)"
for s in $subs; do for r in kubelet kubelet.slice; do umount "$s/$r"; rmdir "$s/$r"; done; done
'
if out="$(docker exec --privileged "$NAME" bash -c "$cgroup_script" 2>&1)"; then
  result OK "cgroups writable as kind's entrypoint needs: ${out//$'\n'/; }"
else
  ro="$(docker exec "$NAME" sh -c 'findmnt -rn -o TARGET,OPTIONS | grep "^/sys/fs/cgroup" | head -n 3' 2>&1 | tr '\n' ' ')"
  result FAIL "cgroups not writable: ${out//$'\n'/; } (mounts: $ro)"
fi

echo "summary (STANDIN_CGROUP_RW=${STANDIN_CGROUP_RW:-1}, engine $(docker version -f '{{.Server.Version}}' 2> /dev/null)):"
printf '  %s\n' "${results[@]}"
exit "$failed"
