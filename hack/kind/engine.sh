#!/usr/bin/env bash
# A Docker engine for kind on this machine, started by hand (no systemd):
#
#   hack/kind/engine.sh up       install Debian's docker.io if dockerd is
#                                missing, start dockerd, wait for `docker info`
#   hack/kind/engine.sh down     stop dockerd by its pidfile and leave nothing
#                                behind: no container process, no mount under
#                                _output/kind/docker, no docker0 or br-* bridge,
#                                no veth, no DOCKER* iptables chain
#   hack/kind/engine.sh status   say whether it runs, and where (exit 1 if not)
#
# dockerd keeps everything under _output/kind/docker: --data-root data/ (the
# images, kept from one `up` to the next), --exec-root exec/ (its containerd,
# netns mounts), --pidfile dockerd.pid, --config-file daemon.json (written
# here; /etc/docker/daemon.json is not read) and its key.json. It listens on the default socket
# /var/run/docker.sock, so that kind's plain `docker` finds it, unless another
# engine already answers there; then on _output/kind/docker.sock, and `status`
# prints the DOCKER_HOST to export. Its log: _output/kind/dockerd.log.
#
# Installing docker.io brings Debian's containerd (/usr/bin/containerd, which
# dockerd starts as its own child under exec/) and runc (the one the local
# cluster already uses). An `exit 101` /usr/sbin/policy-rc.d keeps the
# packages' postinst from starting anything; it is removed again only if this
# script created it.
#
# Idempotent: `up` with dockerd running does nothing; `down` with nothing up
# does nothing. It never touches the local cluster (its containerd runs from
# _output/bin with its own socket, state and cgroup root).
#
# Env: OUTPUT (default _output), DOCKERD (default: dockerd on PATH),
#      ENGINE_TIMEOUT (seconds to wait for dockerd, default 60),
#      DOCKERD_EXTRA_ARGS (more dockerd flags, split on blanks).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

KIND_DIR="$OUTPUT/kind"
ENGINE_DIR="$KIND_DIR/docker"
DATA_ROOT="$ENGINE_DIR/data"
EXEC_ROOT="$ENGINE_DIR/exec"
PIDFILE="$ENGINE_DIR/dockerd.pid"
SOCK_FILE="$ENGINE_DIR/socket" # the socket this dockerd listens on
LOGFILE="$KIND_DIR/dockerd.log"
DEFAULT_SOCK=/var/run/docker.sock
OWN_SOCK="$KIND_DIR/docker.sock"
timeout="${ENGINE_TIMEOUT:-60}"

[ "$(id -u)" = 0 ] || die "dockerd runs as root"

# The real docker CLI (this script may run with hack/kind/standin first on PATH).
docker_cli() {
  local c
  for c in /usr/bin/docker /usr/local/bin/docker; do
    [ -x "$c" ] && { echo "$c"; return; }
  done
  die "no docker CLI (install docker.io)"
}

# engine_pid prints the pid of our dockerd if it runs.
engine_pid() {
  local pid exe
  [ -f "$PIDFILE" ] || return 1
  pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  exe="$(readlink "/proc/$pid/exe" 2> /dev/null)" || return 1
  [[ "${exe% (deleted)}" == */dockerd ]] || return 1
  grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2> /dev/null && return 1
  echo "$pid"
}

engine_sock() { cat "$SOCK_FILE" 2> /dev/null || echo "$DEFAULT_SOCK"; }
docker_info() { local s="$1"; shift; "$(docker_cli)" -H "unix://$s" info "$@"; }

install_docker() {
  command -v dockerd > /dev/null && return 0
  log "installing Debian's docker.io (dockerd, containerd, runc)"
  local made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# hack/kind/engine.sh: start no service at install\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 0755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  local runc_before rc=0
  runc_before="$(runc --version 2> /dev/null | head -n1 || true)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io >&2 || rc=$?
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || die "apt-get install docker.io failed (try apt-get update first)"
  [ "$(runc --version 2> /dev/null | head -n1 || true)" = "$runc_before" ] ||
    log "note: runc changed: was '$runc_before', now '$(runc --version | head -n1)'"
}

cmd_up() {
  local pid sock
  if pid="$(engine_pid)"; then
    log "dockerd already runs (pid $pid) on $(engine_sock)"
    return 0
  fi
  install_docker
  mkdir -p "$DATA_ROOT" "$EXEC_ROOT"
  sock="$DEFAULT_SOCK"
  if [ -S "$DEFAULT_SOCK" ] && docker_info "$DEFAULT_SOCK" > /dev/null 2>&1; then
    log "another engine answers on $DEFAULT_SOCK; ours listens on $OWN_SOCK"
    sock="$OWN_SOCK"
  fi
  # A socket left by a dockerd that died is in the way of a new one.
  [ ! -S "$sock" ] || rm -f "$sock"
  echo "$sock" > "$SOCK_FILE"
  local extra=()
  # shellcheck disable=SC2206 # split on blanks, as documented
  [ -z "${DOCKERD_EXTRA_ARGS:-}" ] || extra=(${DOCKERD_EXTRA_ARGS})
  [ ! -f "$LOGFILE" ] || mv -f "$LOGFILE" "$LOGFILE.prev"
  # Our own daemon.json instead of /etc/docker/daemon.json; it also keeps the
  # engine's identity key here instead of /etc/docker/key.json.
  printf '{\n  "deprecated-key-path": "%s"\n}\n' "$ENGINE_DIR/key.json" > "$ENGINE_DIR/daemon.json"
  log "starting dockerd on $sock (data root $DATA_ROOT, log $LOGFILE)"
  # setsid: its own session, so that the caller's Ctrl-C does not reach it.
  setsid "${DOCKERD:-dockerd}" \
    --data-root "$DATA_ROOT" --exec-root "$EXEC_ROOT" --pidfile "$PIDFILE" \
    --config-file "$ENGINE_DIR/daemon.json" \
    -H "unix://$sock" "${extra[@]}" < /dev/null >> "$LOGFILE" 2>&1 &
  local started=$!
  up_or_gone() { docker_info "$sock" || pid_gone "$started"; }
  if ! wait_for "dockerd to answer on $sock" "$timeout" up_or_gone || ! docker_info "$sock" > /dev/null 2>&1; then
    tail -n 20 "$LOGFILE" >&2 || true
    kill -TERM "$started" 2> /dev/null || true
    die "dockerd did not answer on $sock (see $LOGFILE)"
  fi
  pid="$(engine_pid)" || die "dockerd answers but its pidfile $PIDFILE does not name it"
  log "dockerd runs (pid $pid): $(docker_info "$sock" --format '{{.ServerVersion}}, {{.Driver}}, cgroup {{.CgroupDriver}} v{{.CgroupVersion}}' 2> /dev/null || true)"
  [ "$sock" = "$DEFAULT_SOCK" ] || log "export DOCKER_HOST=unix://$sock"
}

# Our containers' processes still running: shims whose containerd address is
# under our exec root, and what runs in docker's cgroups. None after a clean
# stop.
leftovers() {
  local p exe h
  for p in /proc/[0-9]*; do
    exe="$(readlink "$p/exe" 2> /dev/null || true)"
    [[ "${exe% (deleted)}" == */containerd-shim* || "${exe% (deleted)}" == */containerd ]] || continue
    tr '\0' '\n' < "$p/cmdline" 2> /dev/null | grep -q "^$EXEC_ROOT/" || continue
    echo "${p#/proc/}"
  done
  for h in /sys/fs/cgroup/*/docker; do
    [ -d "$h" ] && find "$h" -name cgroup.procs -exec cat {} + 2> /dev/null
  done
  true
}

# drop_iptables removes what dockerd put in iptables: the rules that jump to
# a DOCKER* chain or name a docker bridge, then the DOCKER* chains. Rules of
# anyone else (the local cluster's KUBE-* and CNI chains) stay.
drop_iptables() {
  local t rule chain
  for t in filter nat; do
    iptables -t "$t" -S > /dev/null 2>&1 || continue
    while read -r rule; do
      [ -n "$rule" ] || continue
      # shellcheck disable=SC2086 # a rule as iptables -S prints it
      iptables -t "$t" ${rule/#-A/-D} 2> /dev/null || log "cannot delete iptables -t $t $rule"
    done < <(iptables -t "$t" -S | grep -E '^-A ' | grep -E -- '-j DOCKER|(-i|-o) (docker0|br-[0-9a-f]{12})( |$)' | grep -vE '^-A DOCKER' || true)
    while read -r chain; do
      iptables -t "$t" -F "$chain" 2> /dev/null || true
    done < <(iptables -t "$t" -S | awk '$1 == "-N" && $2 ~ /^DOCKER/ {print $2}')
    while read -r chain; do
      iptables -t "$t" -X "$chain" 2> /dev/null || log "cannot delete iptables chain $t/$chain"
    done < <(iptables -t "$t" -S | awk '$1 == "-N" && $2 ~ /^DOCKER/ {print $2}')
  done
}

cmd_down() {
  local pid sock bridges=() b
  sock="$(engine_sock)"
  if pid="$(engine_pid)"; then
    # The bridges of our networks (docker0 and br-<id>), named before dockerd goes.
    mapfile -t bridges < <("$(docker_cli)" -H "unix://$sock" network ls -q --filter driver=bridge 2> /dev/null |
      while read -r b; do
        "$(docker_cli)" -H "unix://$sock" network inspect -f '{{with index .Options "com.docker.network.bridge.name"}}{{.}}{{else}}br-{{printf "%.12s" $.Id}}{{end}}' "$b" 2> /dev/null
      done)
    log "stopping dockerd (pid $pid); it stops its containers first"
    kill -TERM "$pid"
    # dockerd gives each container its stop timeout (10 s by default) in parallel.
    if ! wait_for "dockerd (pid $pid) to exit" 90 pid_gone "$pid"; then
      log "dockerd (pid $pid) still runs after 90s: SIGKILL"
      kill -KILL "$pid" 2> /dev/null || true
      wait_for "dockerd (pid $pid) to exit after SIGKILL" 10 pid_gone "$pid" || die "cannot stop dockerd (pid $pid)"
    fi
  else
    log "dockerd is not running"
  fi
  kill_leftovers
  [ ! -d "$ENGINE_DIR" ] || unmount_under "$ENGINE_DIR" || die "cannot unmount everything under $ENGINE_DIR"
  # dockerd does not delete its bridges; their veths go with the containers' netns.
  for b in docker0 "${bridges[@]}"; do
    [ -n "$b" ] || continue
    if ip link show "$b" > /dev/null 2>&1; then
      log "deleting the bridge $b"
      ip link delete "$b" || log "cannot delete $b"
    fi
  done
  drop_iptables
  local h
  for h in /sys/fs/cgroup/*/docker; do
    [ -d "$h" ] || continue
    find "$h" -depth -type d -exec rmdir {} + 2> /dev/null || log "cannot remove the cgroups under $h"
  done
  # dockerd removes its socket when it exits; one left by a killed dockerd
  # goes too, but only if we know it was ours.
  if [ -f "$SOCK_FILE" ] && [ -S "$sock" ]; then rm -f "$sock"; fi
  rm -f "$PIDFILE" "$SOCK_FILE"
  # dockerd's plugin folder is fixed at /run/docker/plugins; gone if empty.
  rmdir /run/docker/plugins /run/docker 2> /dev/null || true
  log "the engine is down"
}

cmd_status() {
  local pid sock
  if pid="$(engine_pid)"; then
    sock="$(engine_sock)"
    echo "dockerd runs (pid $pid) on unix://$sock, data root $DATA_ROOT"
    [ "$sock" = "$DEFAULT_SOCK" ] || echo "export DOCKER_HOST=unix://$sock"
    docker_info "$sock" --format 'server {{.ServerVersion}}, {{.Driver}}, cgroup {{.CgroupDriver}} v{{.CgroupVersion}}, {{.ContainersRunning}} running / {{.Containers}} containers, {{.Images}} images'
  else
    echo "dockerd is not running"
    return 1
  fi
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) die "usage: $0 up|down|status" ;;
esac
