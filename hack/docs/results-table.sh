#!/usr/bin/env bash
# The README's results table (hack/lib.sh's results_table): one row per
# file of docs/results, and whether the kubelet each names is a build of
# the series as they are now; and the same said under each generated block
# of docs/ that names a build of the fork's kubelet (build_notes).
#
#   hack/docs/results-table.sh         write them (make docs-results)
#   hack/docs/results-table.sh check   fail if the README's table or a note is
#                                      not what it would write now (make test-docs)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

case "${1:-write}" in
  write)
    write_results_table
    log "wrote the README's results table"
    build_notes
    ;;
  check)
    readme_has_block results || exit 0
    if ! diff -u <(sed -n '/^<!-- results:begin/,/^<!-- results:end/p' "$ROOT/README.md" | sed '1d;$d') <(results_table) >&2; then
      die "the README's results table is not what docs/results and the series say now (above: - the README, + now): run make docs-results"
    fi
    echo "results: the README's table is up to date with docs/results and the series"
    build_notes -check
    ;;
  *) die "usage: $0 [write|check]" ;;
esac
