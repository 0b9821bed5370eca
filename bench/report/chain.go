/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package report

// bench chain in the report: one summary per way, the verdict of issue
// 36's goal, the table and the section of report.md.

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// chainSummary is one way's chain pods.
type chainSummary struct {
	Way      string
	Sidecars int // of the measured pods (0: none measured)
	Pods     int // measured
	Errors   []string
	// Spans of the measured pods, sorted, ms; their p50 and max.
	Spans          []float64
	SpanP50        float64
	SpanMax        float64
	Missed         int                  // pods whose span went over their bound
	Tightest       results.ChainFigures // the pod with the least room under its bound (or the furthest over)
	MeanRuntime    float64              // ms, a step's runtime start over every step
	Own, Detect    []float64            // every step's, sorted, ms
	Kubelet        []float64
	RuntimeStart   []float64
	Whole          []float64
	SidecarsDiffer bool // the measured pods have different chain lengths
}

// summarizeChain groups the chain pods by way, in the order of Ways.
func summarizeChain(pods []results.ChainPod) []chainSummary {
	byWay := map[string]*chainSummary{}
	var order []string
	for _, p := range pods {
		s := byWay[p.Way]
		if s == nil {
			s = &chainSummary{Way: p.Way}
			byWay[p.Way] = s
			order = append(order, p.Way)
		}
		f, err := p.Figures()
		if err != nil {
			s.Errors = append(s.Errors, fmt.Sprintf("%s: %v", p.Pod, err))
			continue
		}
		if s.Pods > 0 && s.Sidecars != f.Sidecars {
			s.SidecarsDiffer = true
		}
		s.Pods++
		s.Sidecars = f.Sidecars
		s.Spans = append(s.Spans, f.Span)
		if !f.Met() {
			s.Missed++
		}
		if s.Pods == 1 || f.Bound-f.Span < s.Tightest.Bound-s.Tightest.Span {
			s.Tightest = f
		}
		for _, st := range f.Steps {
			s.Own = append(s.Own, st.Own())
			s.Detect = append(s.Detect, st.Detect())
			s.Kubelet = append(s.Kubelet, st.Kubelet())
			s.RuntimeStart = append(s.RuntimeStart, st.RuntimeStart())
			s.Whole = append(s.Whole, st.Whole())
		}
	}
	var out []chainSummary
	for _, w := range order {
		s := byWay[w]
		for _, v := range [][]float64{s.Spans, s.Own, s.Detect, s.Kubelet, s.RuntimeStart, s.Whole} {
			sort.Float64s(v)
		}
		s.SpanP50, s.SpanMax = results.Percentile(s.Spans, 50), math.NaN()
		if len(s.Spans) > 0 {
			s.SpanMax = s.Spans[len(s.Spans)-1]
		}
		s.MeanRuntime = math.NaN()
		if len(s.RuntimeStart) > 0 {
			sum := 0.0
			for _, v := range s.RuntimeStart {
				sum += v
			}
			s.MeanRuntime = sum / float64(len(s.RuntimeStart))
		}
		out = append(out, *s)
	}
	sort.SliceStable(out, func(i, j int) bool { return wayOrder(out[i].Way) < wayOrder(out[j].Way) })
	return out
}

// chainJudged are the ways the chain's goal judges: the fork's two ways of
// waiting for a ready sidecar. The others are what users have instead.
var chainJudged = []string{"fork/annotated", "fork/native-wait-ready"}

// chainGoal is the goal as the verdicts state it.
func chainGoal(sidecars int) string {
	if sidecars == 0 {
		sidecars = 20
	}
	return fmt.Sprintf("exec chain, %d sidecars (exec readiness probe, periodSeconds 10, each ready %s after its start): first sidecar start → app start ≤ %d × (%s + the runtime's start) + %s, every pod",
		sidecars, results.FormatDuration(results.ChainReadyAfter), sidecars, results.FormatDuration(results.ChainReadyAfter), results.FormatDuration(results.ChainSlack))
}

// chainGoals is the chain's one verdict line (the README's table of
// verdicts has a bound of lines): the fork's ways judged together, every
// pod of each within its own bound, the alternatives' spans (p50) of the
// same run beside them. Without chain runs (a run that skipped them, or
// the raw files of a run from before the scenario) the line says so.
func chainGoals(sums []chainSummary) []rateVerdict {
	sidecars := 0
	for _, s := range sums {
		sidecars = max(sidecars, s.Sidecars)
	}
	v := rateVerdict{Goal: chainGoal(sidecars), Way: strings.Join(chainJudged, "`, `"), Figure: "not measured", Met: "—"}
	var figures, rivals, missed []string
	measured := 0
	for _, way := range chainJudged {
		fig := fmt.Sprintf("`%s` not measured", way)
		for _, s := range sums {
			if s.Way != way {
				continue
			}
			if s.Pods == 0 {
				fig = fmt.Sprintf("`%s` no pod measured (%d failed: %s)", way, len(s.Errors), strings.Join(s.Errors, "; "))
				missed = append(missed, fmt.Sprintf("`%s`", way))
				measured++
				continue
			}
			t := s.Tightest
			fig = fmt.Sprintf("`%s` p50 %.1f s, max %.1f s (n = %d), the tightest %.1f s against %.1f s (%d × (%s + %.0f ms mean runtime start) + %s)",
				way, s.SpanP50/1000, s.SpanMax/1000, s.Pods, t.Span/1000, t.Bound/1000, t.Sidecars, results.FormatDuration(results.ChainReadyAfter),
				t.RuntimeStarts/float64(t.Sidecars), results.FormatDuration(results.ChainSlack))
			if len(s.Errors) > 0 {
				fig += fmt.Sprintf(", %d failed", len(s.Errors))
			}
			if s.Missed > 0 || len(s.Errors) > 0 {
				missed = append(missed, fmt.Sprintf("`%s`", way))
			}
			measured++
		}
		figures = append(figures, fig)
	}
	for _, s := range sums {
		if !contains(chainJudged, s.Way) && s.Pods > 0 {
			rivals = append(rivals, fmt.Sprintf("`%s` %.1f s", s.Way, s.SpanP50/1000))
		}
	}
	if measured == 0 {
		return []rateVerdict{v}
	}
	v.Figure = strings.Join(figures, "; ")
	if len(rivals) > 0 {
		v.Figure += "; p50 " + strings.Join(rivals, ", ")
	}
	v.Met = "yes"
	if measured < len(chainJudged) {
		v.Met = "yes, of the ways measured"
	}
	if len(missed) > 0 {
		v.Met = "no: " + strings.Join(missed, ", ")
	}
	return []rateVerdict{v}
}

// chainNote explains the chain's table.
const chainNote = "`bench chain`: for each way, pods of N sidecars and one app, one pod at a time; every sidecar turns ready\n" +
	"0.5 s after it starts and is waited on through an exec probe (`testserver wait-ready` asking its own /ready)\n" +
	"left at the API's defaults, periodSeconds 10: the readiness probe of `fork/annotated`, `fork/native-wait-ready`\n" +
	"and `fork/poststart` (whose apps wait for the postStart hook, polling /ready every 100 ms), the startup probe\n" +
	"of `upstream/native-startup` on the unpatched kubelet. The goal's bound is each pod's own: N × (0.5 s + the\n" +
	"runtime's start) + 5 s, the runtime's start being each step's CRI CreatedAt → StartedAt of the next container\n" +
	"in the same pod (bench/results/chain.go, ChainStep.RuntimeStart, says why that one). A step is one sidecar's turn:\n" +
	"its start → its /ready turning 200 (the server's own, 0.5 s) → its readiness seen (the probe served 200, or\n" +
	"the hook returned) → the next container's CreateContainer (the result's way back, the kubelet's sync and\n" +
	"its create call) → that container's start (the runtime's start). Per-step figures are p50 / p95 over every\n" +
	"step of every pod of the way, in ms.\n\n"

// chainTable writes the chain runs, the ways as columns.
func chainTable(w io.Writer, sums []chainSummary) {
	fmt.Fprint(w, "| |")
	for _, s := range sums {
		fmt.Fprintf(w, " `%s` |", s.Way)
	}
	fmt.Fprint(w, "\n| --- |")
	for range sums {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprintln(w)
	row := func(label string, cell func(chainSummary) string) {
		fmt.Fprintf(w, "| %s |", label)
		for _, s := range sums {
			fmt.Fprintf(w, " %s |", cell(s))
		}
		fmt.Fprintln(w)
	}
	measured := func(s chainSummary, f func() string) string {
		if s.Pods == 0 {
			return "—"
		}
		return f()
	}
	pq := func(pick func(chainSummary) []float64) func(chainSummary) string {
		return func(s chainSummary) string {
			return measured(s, func() string {
				v := pick(s)
				return fmt.Sprintf("%s / %s", results.FormatMS(results.Percentile(v, 50)), results.FormatMS(results.Percentile(v, 95)))
			})
		}
	}
	row("sidecars, pods measured (failed)", func(s chainSummary) string {
		return fmt.Sprintf("%s, %d (%d)", map[bool]string{true: "—", false: strconv.Itoa(s.Sidecars)}[s.Pods == 0], s.Pods, len(s.Errors))
	})
	row("first sidecar start → app start, p50 / max (s)", func(s chainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%.2f / %.2f", s.SpanP50/1000, s.SpanMax/1000) })
	})
	row("the goal's bound of the tightest pod (s)", func(s chainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%.2f (its span %.2f)", s.Tightest.Bound/1000, s.Tightest.Span/1000) })
	})
	row("pods within their bound", func(s chainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%d of %d", s.Pods-s.Missed, s.Pods) })
	})
	row("step: the sidecar's start → its /ready 200", pq(func(s chainSummary) []float64 { return s.Own }))
	row("step: /ready 200 → readiness seen (probe or hook)", pq(func(s chainSummary) []float64 { return s.Detect }))
	row("step: seen → the next CreateContainer (the kubelet)", pq(func(s chainSummary) []float64 { return s.Kubelet }))
	row("step: CreateContainer → start (the runtime's start)", pq(func(s chainSummary) []float64 { return s.RuntimeStart }))
	row("step: a sidecar's start → the next one's", pq(func(s chainSummary) []float64 { return s.Whole }))
}

// chainSection writes the chain's section of the report: the table, the
// failed pods' errors, or that the run did not measure it.
func chainSection(md io.Writer, pods []results.ChainPod) {
	fmt.Fprint(md, "\n## Exec chain: many sidecars one after another\n\n")
	if len(pods) == 0 {
		fmt.Fprint(md, "Not measured in this run (`BENCH_CHAIN=0`, or the raw files of a run from before `bench chain`).\n")
		return
	}
	fmt.Fprint(md, chainNote)
	sums := summarizeChain(pods)
	chainTable(md, sums)
	for _, s := range sums {
		if s.SidecarsDiffer {
			fmt.Fprintf(md, "\n`%s`: its pods had chains of different lengths; the figures mix them.\n", s.Way)
		}
		for _, e := range s.Errors {
			fmt.Fprintf(md, "\n`%s`, failed: %s\n", s.Way, e)
		}
	}
}

// readChainAndNeverReady reads the raw files of bench chain and bench
// never-ready for the report; an empty path (a run that skipped them, or
// one from before them) reads as none.
func readChainAndNeverReady(chainPath, neverReadyPath string) ([]results.ChainPod, []results.NeverReadyRun, error) {
	var chains []results.ChainPod
	var never []results.NeverReadyRun
	var err error
	if chainPath != "" {
		if chains, err = results.ReadChainPods(chainPath); err != nil {
			return nil, nil, err
		}
	}
	if neverReadyPath != "" {
		if never, err = results.ReadNeverReadyRuns(neverReadyPath); err != nil {
			return nil, nil, err
		}
	}
	return chains, never, nil
}

// chainAndNeverReadyGoals are the verdicts of both scenarios, "not
// measured" where the run has none.
func chainAndNeverReadyGoals(chains []results.ChainPod, never []results.NeverReadyRun) []rateVerdict {
	return append(chainGoals(summarizeChain(chains)), neverReadyGoals(never)...)
}
