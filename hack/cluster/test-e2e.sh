#!/usr/bin/env bash
# The e2e part of `make test`: bring up the local cluster with the e2e
# images, run the whole e2e suite against it, and take the cluster down
# again, whatever the outcome. On a failure the tail of the kubelet's log is
# printed, since that is where the reason usually is.
#
# A cluster that was already running before (a developer's `make up`) is
# left running.
set -euo pipefail
CLUSTER_FOLLOWS_RECORDED_VERSION=1
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cluster_settings
# The scripts below run with the same release (the running cluster's, unless
# K8S_VERSION says otherwise).
export K8S_VERSION

kubeconfig="$OUTPUT/cluster/kubeconfig"
suite_log="$OUTPUT/e2e/suite.log"
rm -f "$suite_log"
was_up=false
if [ -f "$kubeconfig" ] && [ -x "$KUBECTL" ] && "$KUBECTL" --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null 2>&1; then
  was_up=true
fi

teardown() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -f "$OUTPUT/cluster/logs/kubelet.log" ]; then
    log "e2e failed (exit $rc); the kubelet's last log lines:"
    tail -n 60 "$OUTPUT/cluster/logs/kubelet.log" >&2 || true
  fi
  if [ "$was_up" = false ]; then
    "$ROOT/hack/cluster/down.sh" || rc=1
  fi
  # The outcome last, so that the tail of a CI log names what failed.
  if [ "$rc" -ne 0 ] && [ -s "$suite_log" ]; then
    log "e2e failed (exit $rc): $(ginkgo_summary "$suite_log")"
    ginkgo_failed_specs "$suite_log" >&2
    log "their messages (the whole output: $suite_log):"
    ginkgo_failure_messages "$suite_log" >&2
  fi
  exit "$rc"
}
trap teardown EXIT

start=$SECONDS
"$ROOT/hack/images/build.sh"
"$ROOT/hack/cluster/build-bins.sh"
"$ROOT/hack/cluster/up.sh"
log "cluster ready after $((SECONDS - start))s"
mkdir -p "$(dirname "$suite_log")"
suite_start=$SECONDS
status=0
KUBECONFIG="$kubeconfig" "$ROOT/e2e/run.sh" 2>&1 | tee "$suite_log" || status=$?

# The outcome of a whole-suite run, per release, for make verify-versions'
# table: the counts as ginkgo printed them, and the kubelet that ran, so
# that a later series (another kubelet version) reads as not run on it.
if [ -z "${FOCUS:-}${SKIP:-}${LABEL_FILTER:-}" ]; then
  summary="$(ginkgo_summary "$suite_log")"
  if [[ "$summary" =~ $GINKGO_SUMMARY_RE ]]; then
    printf '%s\t%s\t%s of %s specs: %s passed, %s failed, %ss\n' \
      "$("$K8S_BIN_DIR/kubelet" --version | cut -d' ' -f2)" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
      "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]}" "${BASH_REMATCH[5]}" $((SECONDS - suite_start)) \
      > "$BUILD_DIR/e2e-result"
    # And in docs/results, one file per release and feature gates, with
    # the specs that failed.
    failed_specs="$(ginkgo_failed_specs "$suite_log")"
    {
      echo "\`make test-e2e${KUBELET_FEATURE_GATES:+ KUBELET_FEATURE_GATES=$KUBELET_FEATURE_GATES}\` on the local cluster of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, kubelet \`$("$K8S_BIN_DIR/kubelet" --version | cut -d' ' -f2)\`: $(ginkgo_counts "$summary"), in $((SECONDS - suite_start)) s."
      [ -z "$failed_specs" ] || printf '\nThe specs that failed:\n\n%s\n' "$failed_specs"
    } | record_result "e2e-local-v$K8S_VERSION$(gates_result_suffix)" "make test-e2e"
  fi
fi
[ "$status" -eq 0 ] || exit "$status"
log "e2e suite passed; $((SECONDS - start))s with the cluster"
