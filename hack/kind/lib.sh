# Shared by hack/kind/*.sh (sourced after hack/lib.sh): the Docker engine the
# kind scripts talk to, and Debian root file systems with systemd.

KIND_DIR="$OUTPUT/kind"
KIND_CACHE="$KIND_DIR/cache"
KIND_ENGINE="$ROOT/hack/kind/engine.sh"
KIND_BIN="${KIND_BIN:-$BIN_DIR/kind}"
# The node parts' kubectl (build-node-parts.sh), there whether or not the
# local cluster's binaries were ever built.
KIND_KUBECTL="$KIND_DIR/v$K8S_VERSION/bin/kubectl"

# published_node_image prints kind's published node image of release
# v$K8S_VERSION, pinned by digest (kind-config/published-node-images), or
# nothing when kind publishes none of that release.
published_node_image() {
  awk -v release="v$K8S_VERSION" '!/^#/ && $1 == release { print $2 }' "$ROOT/kind-config/published-node-images"
}

# kind_config CONFIG IMAGE CRI_DIR EVENTED prints the kind config CONFIG
# (kind-config/*.yaml) as make kind-up gives it to kind: every node's image,
# the placeholder sidecar-kubelet/node:pinned in the file, is IMAGE; node n
# gets the folder CRI_DIR/n at its /run/containerd (so that the e2e suite
# reaches its CRI socket); and when EVENTED is 1 the EventedPLEG gate is
# added after SidecarContainerOrdering in the KubeletConfiguration patch.
# The configs carry upstream's defaults plus the fork's gate only:
# EventedPLEG is alpha and off upstream, on only when the user asks for it
# (KUBELET_FEATURE_GATES=EventedPLEG=true, hack/kind/cluster.sh).
kind_config() {
  awk -v image="$2" -v dir="$3" -v evented="$4" '
    /^  image: / {
      print "  image: " image
      print "  extraMounts:"
      print "  - hostPath: " dir "/" n + 0
      print "    containerPath: /run/containerd"
      n++
      next
    }
    { print }
    /^    SidecarContainerOrdering: true$/ && evented == 1 { print "    EventedPLEG: true"; added = 1 }
    # A config without that line would silently lose the gate the user asked for.
    END { if (evented == 1 && !added) { print "kind_config: no SidecarContainerOrdering: true line in " FILENAME " to add EventedPLEG after" > "/dev/stderr"; exit 1 } }' "$1"
}

# kind_cluster NODES prints the name of the project's kind cluster of NODES
# nodes: sidecar-kubelet (1: a control plane that is also the worker) or
# sidecar-kubelet-multi (3: a control plane and two workers).
kind_cluster() {
  case "$1" in
    1) echo sidecar-kubelet ;;
    3) echo sidecar-kubelet-multi ;;
    *) die "NODES must be 1 or 3, not '$1'" ;;
  esac
}

# ensure_engine: a Docker engine that answers, for docker and kind: one that
# answers already (a user's) is used as it is, else hack/kind/engine.sh
# starts the project's.
ensure_engine() {
  use_engine
  docker info > /dev/null 2>&1 && return 0
  "$KIND_ENGINE" up
  use_engine
}

# use_engine: point docker at the engine hack/kind/engine.sh runs (its socket
# file), or at the default socket when another engine answers there.
use_engine() {
  local sock
  sock="$(cat "$KIND_DIR/docker/socket" 2> /dev/null || echo /var/run/docker.sock)"
  export DOCKER_HOST="unix://$sock"
}

# kind_rootfs_tar NAME PACKAGES: the path of a tarball of a Debian bookworm
# minbase root file system with PACKAGES (comma-separated); with systemd
# among them, trimmed for a container as kind trims its base image (no units wanted by
# default, journald not reading /dev/kmsg, /sbin/init is systemd), made by
# debootstrap the first time and cached as $KIND_CACHE/NAME.tar, with the
# package list beside it: another list makes it again. bookworm, not a newer
# Debian: systemd 256 and later refuse to boot on a cgroup v1 host.
kind_rootfs_tar() {
  local name="$1" packages="$2" tarball="$KIND_CACHE/$1.tar" rootfs t0
  if [ -s "$tarball" ] && [ "$(cat "$tarball.packages" 2> /dev/null || true)" = "$packages" ]; then
    echo "$tarball"
    return
  fi
  [ "$(id -u)" = 0 ] || die "debootstrap needs root"
  command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >&2
  mkdir -p "$KIND_CACHE"
  rootfs="$KIND_CACHE/$name.rootfs.tmp"
  # debootstrap mounts /proc and /sys in the target while it installs; a run
  # that stopped half-way may have left them.
  unmount_under "$rootfs" || die "cannot clear $rootfs"
  rm -rf "$rootfs"
  log "debootstrap bookworm (minbase + $packages) into $rootfs" >&2
  t0=$SECONDS
  debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$KIND_CACHE/$name.debootstrap.log" 2>&1 ||
    { tail -n 20 "$KIND_CACHE/$name.debootstrap.log" >&2; unmount_under "$rootfs" && rm -rf "$rootfs"; die "debootstrap failed (log: $KIND_CACHE/$name.debootstrap.log)"; }
  log "debootstrap took $((SECONDS - t0))s" >&2
  if [ -x "$rootfs/usr/lib/systemd/systemd" ]; then
    find "$rootfs/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
    rm -f "$rootfs"/lib/systemd/system/multi-user.target.wants/* "$rootfs"/etc/systemd/system/*.wants/* \
      "$rootfs"/lib/systemd/system/local-fs.target.wants/* "$rootfs"/lib/systemd/system/sockets.target.wants/*udev* \
      "$rootfs"/lib/systemd/system/sockets.target.wants/*initctl* "$rootfs"/lib/systemd/system/basic.target.wants/*
    echo "ReadKMsg=no" >> "$rootfs/etc/systemd/journald.conf"
    ln -sf /usr/lib/systemd/systemd "$rootfs/sbin/init"
    ln -sf /dev/null "$rootfs/etc/systemd/system/systemd-binfmt.service"
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" --numeric-owner --xattrs -cf "$tarball.tmp" .
  mv -f "$tarball.tmp" "$tarball"
  echo "$packages" > "$tarball.packages"
  unmount_under "$rootfs" && rm -rf "$rootfs"
  log "cached $tarball ($(du -h "$tarball" | cut -f1))" >&2
  echo "$tarball"
}
