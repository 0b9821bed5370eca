#!/usr/bin/env bash
# The figures docs/benchmarks.md quotes, in its generated blocks (and the
# KEP draft, docs/kep/README.md, where it has the same blocks)
# (<!-- bench-NAME:begin (written by make bench; do not edit) --> ...
# <!-- bench-NAME:end -->), each opening with the run it comes from: written
# by bench figures (bench/report/figures.go) from a quiet run, never typed
# by hand.
#
#   hack/bench/docs-figures.sh DIR   write the blocks from the files bench
#                                    figures wrote into DIR (make bench, after
#                                    its report)
#   hack/bench/docs-figures.sh       run bench figures on the committed run in
#                                    docs/bench (samples.json, density.json,
#                                    the header of report.md, the time in
#                                    docs/results/bench.md) and write the
#                                    blocks from it (make docs-bench)
#
# bench figures refuses a run whose meta is not recorded as quiet (and
# make bench's committed report already comes only from quiet runs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

doc=docs/benchmarks.md
kep=docs/kep/README.md
dir="${1:-}"
if [ -z "$dir" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
  bench="$ROOT/docs/bench"
  density_args=()
  [ ! -s "$bench/density.json" ] || density_args=(-density "$bench/density.json")
  # The time it took, and, for a report written again from the run's raw
  # files (BENCH_REPORT_FROM), when: the blocks say both, as make bench
  # wrote them.
  took="$(sed -n 's/^`make bench` of .*, \([0-9][0-9]* s\(; its report written again from its raw files on [0-9-]* [0-9:]* UTC\)\{0,1\}\)[,;)].*/\1/p' "$ROOT/docs/results/bench.md" | head -n1)"
  (cd "$ROOT" && go run ./bench figures -samples "$bench/samples.json" "${density_args[@]}" \
    -meta "$bench/report.md" -took "$took" -out "$dir")
fi
# Six blocks, one rebuild of the build notes, after the last.
export DOC_NOTES_LATER=1
for name in bench-samples bench-single bench-density; do
  [ -f "$dir/$name.md" ] || die "$dir has no $name.md (bench figures writes it)"
  doc_has_block "$doc" "$name" || die "$doc has no <!-- $name:begin --> line"
  # The figures go in with a blank line on either side, as Markdown
  # wants around a table.
  { echo; cat "$dir/$name.md"; echo; } | write_doc_block "$doc" "$name"
  # The KEP draft quotes the same blocks where it has them.
  if doc_has_block "$kep" "$name"; then
    { echo; sed 's#](bench/#](../bench/#g' "$dir/$name.md"; echo; } | write_doc_block "$kep" "$name"
  fi
done
build_notes > /dev/null
log "wrote the figures of $doc and $kep"
