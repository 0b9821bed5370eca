#!/usr/bin/env bash
# Table test of the docker stand-in's argument rewriting (hack/kind/standin/docker):
# runs it with STANDIN_PRINT=1 (print, run nothing) on sample argument lists,
# for this machine's bounding set (CapBnd 000001fffeffffff, no
# CAP_SYS_RESOURCE) and for a full one, and compares with what is expected.
# Needs no Docker engine and no docker CLI. Exits 1 on a mismatch.
#
# Env: none.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../lib.sh"

standin="$ROOT/hack/kind/standin/docker"
export STANDIN_DOCKER=/bin/false STANDIN_PRINT=1 STANDIN_NO_INSPECT=1 STANDIN_CAP_LAST=40
export STANDIN_IMAGE_CMD="/usr/local/bin/entrypoint /sbin/init"
init="$ROOT/hack/kind/standin/standin-init:/.standin-init:ro"

caps=()
for c in CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP \
  LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER \
  SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE \
  SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE \
  MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ; do
  caps+=(--cap-add "$c")
done
priv=("${caps[@]}" --security-opt seccomp=unconfined --security-opt apparmor=unconfined
  --security-opt systempaths=unconfined --device-cgroup-rule 'a *:* rwm' --device /dev/kmsg)
[ ! -e /dev/fuse ] || priv+=(--device /dev/fuse)

fails=0 count=0
# check NAME CAPBND CGROUP_RW -- ARGS... -- EXPECTED...
check() {
  local name="$1" capbnd="$2" rw="$3" args=() want=() got
  shift 4
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  want=("$@")
  count=$((count + 1))
  got="$(STANDIN_CAPBND="$capbnd" STANDIN_CGROUP_RW="$rw" "$standin" "${args[@]}")"
  if [ "$got" != "$(printf '%s\n' "${want[@]}")" ]; then
    fails=$((fails + 1))
    echo "FAIL $name"
    diff <(printf '%s\n' "${want[@]}") <(echo "$got") | sed 's/^/    /' || true
  else
    echo "ok   $name"
  fi
}
here=000001fffeffffff full=000001ffffffffff

check "run as kind runs a node" "$here" 1 -- \
  run --name n --hostname n --label io.x-k8s.kind.role=control-plane --privileged \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined --tmpfs /tmp --tmpfs /run \
  --volume /var --volume /lib/modules:/lib/modules:ro -e KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER \
  --detach --tty --label io.x-k8s.kind.cluster=kind --net kind --restart=on-failure:1 --init=false \
  --cgroupns=private --publish=127.0.0.1:40000:6443/tcp kindest/node:v1 -- \
  run --name n --hostname n --label io.x-k8s.kind.role=control-plane \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined --tmpfs /tmp --tmpfs /run \
  --volume /var --volume /lib/modules:/lib/modules:ro -e KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER \
  --detach --tty --label io.x-k8s.kind.cluster=kind --net kind --restart=on-failure:1 --init=false \
  --cgroupns=private --publish=127.0.0.1:40000:6443/tcp "${priv[@]}" \
  --volume "$init" --entrypoint /.standin-init kindest/node:v1 /usr/local/bin/entrypoint /sbin/init

check "run without the cgroup init" "$here" 0 -- \
  run -d --privileged img -- \
  run -d "${priv[@]}" img

check "create, global flags, --privileged=true, command after the image" "$here" 0 -- \
  -H unix:///x.sock --debug container create --privileged=true -e A=1 img sh -c 'echo --privileged' -- \
  -H unix:///x.sock --debug container create -e A=1 "${priv[@]}" img sh -c 'echo --privileged'

check "run with a command after the image keeps the image's entrypoint" "$here" 1 -- \
  run --privileged img /bin/bash -- \
  run "${priv[@]}" --volume "$init" --entrypoint /.standin-init img /bin/bash

check "run with its own --entrypoint gets no cgroup init" "$here" 1 -- \
  run --entrypoint=sleep --privileged img infinity -- \
  run --entrypoint=sleep "${priv[@]}" img infinity

check "run without --privileged is unchanged" "$here" 1 -- \
  run -d --rm -it img --privileged -- \
  run -d --rm -it img --privileged

check "--privileged=false is dropped" "$here" 1 -- \
  run --privileged=false img -- \
  run img

check "exec drops --privileged, not the command's" "$here" 1 -- \
  exec --privileged -i n sh -c 'x --privileged' -- \
  exec -i n sh -c 'x --privileged'

check "exec with value flags" "$here" 1 -- \
  exec -e A=1 --privileged -w /tmp -u root n ls -- \
  exec -e A=1 -w /tmp -u root n ls

check "a value that looks like a flag is a value" "$here" 1 -- \
  run -e --privileged img -- \
  run -e --privileged img

check "other commands pass unchanged" "$here" 1 -- \
  inspect --privileged x -- \
  inspect --privileged x

check "a full bounding set: nothing changes" "$full" 1 -- \
  run --privileged -d img -- \
  run --privileged -d img

check "a full bounding set: exec unchanged" "$full" 1 -- \
  exec --privileged n true -- \
  exec --privileged n true

echo "$((count - fails)) of $count passed"
[ "$fails" = 0 ]
