#!/usr/bin/env bash
# Start (or check) a single-node Kubernetes cluster on this machine, running
# the patched kubelet: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, containerd and the kubelet, all on 127.0.0.1, all state
# under _output/cluster. Needs root. `make up` builds the binaries first
# (make kubelet, hack/cluster/build-bins.sh) and then runs this.
#
# Idempotent: a component that runs, is healthy and would be started with the
# same binary and configuration is left alone; one whose binary or
# configuration changed is restarted alone (e.g. a new kubelet). Every image
# tarball in _output/images/*.tar is imported into containerd (again when it
# changed). The admission policy of contract rule 16
# (deploy/sidecar-annotation-policy.yaml) is applied once the API server
# answers.
#
# Env: KUBELET_FEATURE_GATES="Gate=true|false,..." (the kubelet's feature
# gates on top of SidecarContainerOrdering=true); KUBELET_BIN (another
# kubelet binary); CLUSTER_INSTANCE=N (a second cluster beside the first, see
# hack/lib/cluster.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster_settings
started=$SECONDS

[ "$(id -u)" = 0 ] || die "the local cluster runs as root"
cluster_lock
check_cluster_version
for b in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$K8S_BIN_DIR/$b" ] || die "$K8S_BIN_DIR/$b is missing: run make up K8S_VERSION=$K8S_VERSION (it builds everything first)"
  # Every component must be of this release (a binary stamped for another
  # release in this folder would be a bug of the build scripts).
  if [ "$b" = kubectl ]; then got="$("$K8S_BIN_DIR/$b" version --client 2>&1 | head -n1 || true)"; else got="$("$K8S_BIN_DIR/$b" --version 2>&1 || true)"; fi
  [[ "$got" == *" v$K8S_VERSION-sidecar-kubelet+"* ]] || die "$K8S_BIN_DIR/$b reports '$got', not v$K8S_VERSION"
done
for b in containerd containerd-shim-runc-v2 ctr crisweep; do
  [ -x "$BIN_DIR/$b" ] || die "$BIN_DIR/$b is missing: run make up (it builds everything first)"
done
[ -x "$KUBELET_BIN" ] || die "$KUBELET_BIN is missing: run make up (it builds everything first)"
# The kubelet may be the unpatched one (KUBELET_BIN), but of this release too.
got="$("$KUBELET_BIN" --version 2>&1 || true)"
[[ "$got" == *" v$K8S_VERSION" || "$got" == *" v$K8S_VERSION-"* ]] || die "$KUBELET_BIN reports '$got', not v$K8S_VERSION"
[ -f "$IMAGES_DIR/pause.tar" ] || die "$IMAGES_DIR/pause.tar is missing: run make up"

# --- host prerequisites ------------------------------------------------------------
# shellcheck disable=SC2086 # one item a word
install_debian_deps $DEBIAN_DEPS

# The API server reaches the kubelet by the node's name (Hostname address):
# it must resolve to loopback, as /etc/hosts has it here.
node_addr="$(getent ahostsv4 "$NODE_NAME" | awk 'NR==1 {print $1}')"
[[ "$node_addr" == 127.* ]] ||
  die "the hostname $NODE_NAME resolves to '${node_addr:-nothing}', not to 127.x; add '127.0.0.1 $NODE_NAME' to /etc/hosts"
# The pod and service ranges must not overlap the machine's routes.
for net in "$POD_SUBNET" "$SERVICE_CIDR"; do
  # match: routes that cover the range; root: routes inside it.
  via="$({ ip -4 route show match "$net"; ip -4 route show root "$net"; } | grep -v '^default' | grep -v " dev $CNI_BRIDGE " || true)"
  [ -z "$via" ] || die "$net clashes with a route of this machine: $via"
done

# Logs of the previous cluster go to logs.prev when this one starts from scratch.
any_running=""
for c in $COMPONENTS; do ! proc_pid "$c" > /dev/null || any_running=1; done
if [ -z "$any_running" ] && [ -d "$LOG_DIR" ]; then
  rm -rf "$LOG_DIR.prev"
  mv "$LOG_DIR" "$LOG_DIR.prev"
fi
mkdir -p "$RUN_DIR" "$LOG_DIR" "$PKI_DIR" "$CONF_DIR"
[ -s "$CLUSTER_VERSION_FILE" ] || echo "$K8S_VERSION" > "$CLUSTER_VERSION_FILE"

# --- certificates and kubeconfigs ------------------------------------------------------
gen_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$PKI_DIR/$1.key" 2> /dev/null && chmod 600 "$PKI_DIR/$1.key"; }
# gen_ca NAME CN
gen_ca() {
  gen_key "$1"
  openssl req -x509 -new -key "$PKI_DIR/$1.key" -subj "/CN=$2" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$PKI_DIR/$1.crt" 2> /dev/null
}
# gen_cert CA NAME SUBJECT EXTENDED-KEY-USAGE [SUBJECT-ALT-NAMES]
gen_cert() {
  local ca="$1" name="$2" subj="$3" eku="$4" sans="${5:-}"
  gen_key "$name"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -z "$sans" ] || echo "subjectAltName=$sans"
  } > "$PKI_DIR/$name.ext"
  openssl req -new -key "$PKI_DIR/$name.key" -subj "$subj" 2> /dev/null |
    openssl x509 -req -CA "$PKI_DIR/$ca.crt" -CAkey "$PKI_DIR/$ca.key" -set_serial "0x$(openssl rand -hex 16)" \
      -days 365 -sha256 -extfile "$PKI_DIR/$name.ext" -out "$PKI_DIR/$name.crt" 2> /dev/null
  rm -f "$PKI_DIR/$name.ext"
}
# mk_kubeconfig FILE CERT-NAME
mk_kubeconfig() {
  local f="$1.tmp"
  rm -f "$f"
  "$KUBECTL" --kubeconfig="$f" config set-cluster sidecar-kubelet --server="https://127.0.0.1:$APISERVER_PORT" \
    --certificate-authority="$PKI_DIR/ca.crt" --embed-certs > /dev/null
  "$KUBECTL" --kubeconfig="$f" config set-credentials "$2" --client-certificate="$PKI_DIR/$2.crt" \
    --client-key="$PKI_DIR/$2.key" --embed-certs > /dev/null
  "$KUBECTL" --kubeconfig="$f" config set-context sidecar-kubelet --cluster=sidecar-kubelet --user="$2" > /dev/null
  "$KUBECTL" --kubeconfig="$f" config use-context sidecar-kubelet > /dev/null
  chmod 600 "$f"
  mv "$f" "$1"
}
if [ ! -f "$PKI_DIR/done" ]; then
  log "generating certificates in $PKI_DIR"
  rm -rf "${PKI_DIR:?}"/*
  gen_ca ca sidecar-kubelet-ca
  gen_ca etcd-ca sidecar-kubelet-etcd-ca
  gen_cert etcd-ca etcd-server "/CN=etcd" serverAuth,clientAuth "IP:127.0.0.1,DNS:localhost"
  gen_cert etcd-ca apiserver-etcd-client "/CN=kube-apiserver-etcd-client" clientAuth
  gen_cert ca apiserver "/CN=kube-apiserver" serverAuth \
    "IP:127.0.0.1,IP:${SERVICE_CIDR%.*/*}.1,DNS:localhost,DNS:$NODE_NAME,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  gen_cert ca apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  gen_cert ca admin "/O=system:masters/CN=kubernetes-admin" clientAuth
  gen_cert ca kube-controller-manager "/CN=system:kube-controller-manager" clientAuth
  gen_cert ca kube-scheduler "/CN=system:kube-scheduler" clientAuth
  gen_cert ca kubelet-client "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  gen_cert ca kubelet "/CN=$NODE_NAME" serverAuth "DNS:$NODE_NAME,IP:127.0.0.1"
  gen_cert ca serving "/CN=localhost" serverAuth "IP:127.0.0.1,DNS:localhost"  # controller-manager, scheduler
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI_DIR/sa.key" 2> /dev/null
  openssl pkey -in "$PKI_DIR/sa.key" -pubout -out "$PKI_DIR/sa.pub" 2> /dev/null
  chmod 600 "$PKI_DIR/sa.key"
  mk_kubeconfig "$CONF_DIR/kube-controller-manager.kubeconfig" kube-controller-manager
  mk_kubeconfig "$CONF_DIR/kube-scheduler.kubeconfig" kube-scheduler
  mk_kubeconfig "$CONF_DIR/kubelet.kubeconfig" kubelet-client
  mk_kubeconfig "$ADMIN_KUBECONFIG" admin
  touch "$PKI_DIR/done"
fi

# --- configuration files ----------------------------------------------------------------
write_cni_conflist "$CLUSTER_DIR/cni/net.d/10-sidecar-kubelet.conflist" sidecar-kubelet
write_containerd_config "$CONF_DIR/containerd.toml" "$PAUSE_IMAGE"

make_cgroup_root

# --- components ----------------------------------------------------------------------------
# ensure NAME HEALTH-CHECK TIMEOUT CMD... leaves NAME alone when it runs with
# this exact command line (binaries and files named in it included), in its
# serve cgroup (hack/lib/cluster.sh, SERVE_CGROUP) and is healthy; otherwise
# (re)starts it. Returns once it is healthy.
ensure() {
  local name="$1" health="$2" timeout="$3" fp pid
  shift 3
  fp="$(command_fingerprint "$@")"
  if pid="$(proc_pid "$name")" && [ "$(cat "$RUN_DIR/$name.fingerprint" 2> /dev/null)" = "$fp" ]; then
    if ! in_serve_cgroup "$name" "$pid"; then
      log "$name (pid $pid) runs outside its cgroup $SERVE_CGROUP/$name: restarting it there"
    elif wait_for "$name to be healthy" "$timeout" "$health"; then
      log "$name is running (pid $pid), unchanged"
      return 0
    else
      log "$name (pid $pid) is not healthy: restarting it"
    fi
  fi
  stop_proc "$name"
  start_proc "$name" "$fp" "$@"
  if ! wait_for "$name to be healthy" "$timeout" "$health"; then
    tail -n 20 "$LOG_DIR/$name.log" >&2 || true
    die "$name did not become healthy; its log is $LOG_DIR/$name.log"
  fi
}

ensure etcd etcd_healthy 60 \
  "$(command -v etcd)" --name=sidecar-kubelet --data-dir="$CLUSTER_DIR/etcd" \
  --logger=zap --log-outputs=stderr \
  --listen-client-urls="https://127.0.0.1:$ETCD_PORT" --advertise-client-urls="https://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="https://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="https://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="sidecar-kubelet=https://127.0.0.1:$ETCD_PEER_PORT" \
  --listen-metrics-urls= \
  --cert-file="$PKI_DIR/etcd-server.crt" --key-file="$PKI_DIR/etcd-server.key" \
  --trusted-ca-file="$PKI_DIR/etcd-ca.crt" --client-cert-auth \
  --peer-cert-file="$PKI_DIR/etcd-server.crt" --peer-key-file="$PKI_DIR/etcd-server.key" \
  --peer-trusted-ca-file="$PKI_DIR/etcd-ca.crt" --peer-client-cert-auth

# containerd finds its shim on PATH.
PATH="$BIN_DIR:$PATH" ensure containerd containerd_healthy 60 \
  "$BIN_DIR/containerd" --config="$CONF_DIR/containerd.toml"

# Images: every tarball in $IMAGES_DIR, imported again when it changed or
# when containerd no longer holds one of its tags (the kubelet's image
# garbage collection removes an unused image under disk pressure). The list
# is read whole first: grep -q quitting at the first match would make ctr
# die of SIGPIPE, which pipefail reports as a missing image.
mkdir -p "$RUN_DIR/images"
images="$(ctr -n k8s.io images ls -q)"
for tar in "$IMAGES_DIR"/*.tar; do
  [ -f "$tar" ] || continue
  sum="$(sha256sum "$tar" | cut -d' ' -f1)"
  stamp="$RUN_DIR/images/$(basename "$tar").sha256"
  missing=""
  for tag in $(tar -xOf "$tar" manifest.json | grep -o '"RepoTags":\[[^]]*\]' | grep -o '"[^"]*"' | tr -d '"' | grep -vx RepoTags); do
    grep -qxF "$tag" <<< "$images" || missing="$missing $tag"
  done
  [ "$(cat "$stamp" 2> /dev/null || true)" != "$sum" ] || [ -n "$missing" ] || continue
  log "importing $tar${missing:+ (containerd lacks$missing)}"
  ctr -n k8s.io images import "$tar" >&2
  echo "$sum" > "$stamp"
done
images="$(ctr -n k8s.io images ls -q)"
grep -qxF "$PAUSE_IMAGE" <<< "$images" ||
  die "the pause image $PAUSE_IMAGE is not in containerd after the import"

ensure kube-apiserver apiserver_healthy 120 \
  "$K8S_BIN_DIR/kube-apiserver" \
  --bind-address=127.0.0.1 --secure-port="$APISERVER_PORT" --advertise-address=127.0.0.1 \
  --etcd-servers="https://127.0.0.1:$ETCD_PORT" --etcd-cafile="$PKI_DIR/etcd-ca.crt" \
  --etcd-certfile="$PKI_DIR/apiserver-etcd-client.crt" --etcd-keyfile="$PKI_DIR/apiserver-etcd-client.key" \
  --tls-cert-file="$PKI_DIR/apiserver.crt" --tls-private-key-file="$PKI_DIR/apiserver.key" \
  --client-ca-file="$PKI_DIR/ca.crt" \
  --kubelet-client-certificate="$PKI_DIR/apiserver-kubelet-client.crt" \
  --kubelet-client-key="$PKI_DIR/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$PKI_DIR/ca.crt" \
  --kubelet-preferred-address-types=Hostname \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$PKI_DIR/sa.pub" --service-account-signing-key-file="$PKI_DIR/sa.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --endpoint-reconciler-type=none \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --allow-privileged=true

ensure kube-controller-manager kcm_healthy 60 \
  "$K8S_BIN_DIR/kube-controller-manager" \
  --kubeconfig="$CONF_DIR/kube-controller-manager.kubeconfig" \
  --authentication-kubeconfig="$CONF_DIR/kube-controller-manager.kubeconfig" \
  --authorization-kubeconfig="$CONF_DIR/kube-controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" \
  --tls-cert-file="$PKI_DIR/serving.crt" --tls-private-key-file="$PKI_DIR/serving.key" \
  --client-ca-file="$PKI_DIR/ca.crt" \
  --use-service-account-credentials \
  --service-account-private-key-file="$PKI_DIR/sa.key" --root-ca-file="$PKI_DIR/ca.crt" \
  --cluster-signing-cert-file="$PKI_DIR/ca.crt" --cluster-signing-key-file="$PKI_DIR/ca.key" \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --leader-elect=false

ensure kube-scheduler scheduler_healthy 60 \
  "$K8S_BIN_DIR/kube-scheduler" \
  --kubeconfig="$CONF_DIR/kube-scheduler.kubeconfig" \
  --authentication-kubeconfig="$CONF_DIR/kube-scheduler.kubeconfig" \
  --authorization-kubeconfig="$CONF_DIR/kube-scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" \
  --tls-cert-file="$PKI_DIR/serving.crt" --tls-private-key-file="$PKI_DIR/serving.key" \
  --client-ca-file="$PKI_DIR/ca.crt" \
  --leader-elect=false

start_kubelet ""
wait_kubelet_node_ready
wait_for "the default ServiceAccount" 60 kctl -n default get serviceaccount default ||
  die "no default ServiceAccount; see $LOG_DIR/kube-controller-manager.log"
# contract rule 16's admission policy (deploy/README.md): applied every time,
# which changes nothing when it is there and unchanged.
apply_admission_policy kctl ||
  die "the API server does not enforce the admission policy ${ADMISSION_POLICY#"$ROOT"/}; see $LOG_DIR/kube-apiserver.log"

log "cluster up in $((SECONDS - started))s: node $NODE_NAME Ready, kubelet $("$KUBELET_BIN" --version | cut -d' ' -f2)"
cat << EOF

Use it with:
  export KUBECONFIG=$ADMIN_KUBECONFIG
  $KUBECTL get nodes
Images come from _output/images/*.tar (no registry): use imagePullPolicy: Never
(pause: $PAUSE_IMAGE). Logs: $LOG_DIR/. Stop with: make down${CLUSTER_SUFFIX:+ CLUSTER_INSTANCE=$CLUSTER_INSTANCE}
EOF
