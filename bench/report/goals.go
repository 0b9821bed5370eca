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

import (
	"fmt"
	"io"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// A verdict is one goal judged on one way's figures of a run.
type verdict struct {
	Goal    string // the goal, as issue 17 states it
	Way     string
	Figure  string // the way's figures, p50 / p95 ms (n)
	Against string // what it is compared with, in the same run
	Met     string // "yes", "no", or "—" when the run lacks a figure
	// Beside is the same goal judged in the run's second configuration
	// (withBeside): its figure and whether it is met; empty when the run
	// measured one configuration.
	Beside string
}

// goals judges the run against the performance goals. Every comparison is
// between figures of the same run: the machine's load moves all of them.
func goals(sum map[string]map[string]*stats, benches []goBench) []verdict {
	var out []verdict
	get := func(key, way string) *stats { return sum[key][way] }
	fig := func(st *stats) string {
		return fmt.Sprintf("%s / %s (%d)", results.FormatMS(st.P50), results.FormatMS(st.P95), st.N)
	}
	judge := func(goal, key, way string, ok func(st *stats) (string, bool, bool)) {
		st := get(key, way)
		v := verdict{Goal: goal, Way: way, Figure: "—", Against: "—", Met: "—"}
		if st != nil {
			v.Figure = fig(st)
			text, met, known := ok(st)
			v.Against = text
			if known {
				v.Met = map[bool]string{true: "yes", false: "no"}[met]
			}
		}
		out = append(out, v)
	}

	// a′: p95 ≤ 250 ms, and below the postStart hook's p95 at the same
	// probe period. Then a′ without the runtime's part (a2): what the way
	// of waiting and the kubelet add before the app's CreateContainer,
	// against the hook's. Not a goal of its own: it says whether a missed a′
	// verdict is the runtime's start (the same CRI calls in every way) or the
	// wait.
	aPrime := []struct {
		goal, key string
		limit     float64 // p95 bound in ms, 0 for none
	}{
		{"a′. sidecar ready → first app start: p95 ≤ 250 ms and below the postStart hook's", "a0", 250},
		{"a′'s wait (/ready 200 → the app's CreateContainer): p95 below the postStart hook's", "a2", 0},
	}
	for _, g := range aPrime {
		for _, p := range []struct{ way, postStart string }{
			{"fork/annotated", "fork/poststart"},
			{"fork/annotated-p10", "fork/poststart-p10"},
			{"fork/native-wait-ready", "fork/poststart"},
			{"fork/native-wait-ready-p10", "fork/poststart-p10"},
		} {
			judge(g.goal, g.key, p.way, func(st *stats) (string, bool, bool) {
				ps := get(g.key, p.postStart)
				if ps == nil {
					return "—", false, false
				}
				return fmt.Sprintf("`%s` %s", p.postStart, fig(ps)), (g.limit == 0 || st.P95 <= g.limit) && st.P95 < ps.P95, true
			})
		}
	}
	// b: p95 ≤ 1000 ms, and no slower than a pod without sidecars on the
	// same kubelet (p95; the p50s are shown).
	for _, way := range []string{"fork/annotated", "fork/native-wait-ready"} {
		judge("b. Job: last app exit → Succeeded: p95 ≤ 1000 ms and ≤ no sidecars", "b", way,
			func(st *stats) (string, bool, bool) {
				ns := get("b", "fork/no-sidecars")
				if ns == nil {
					return "—", false, false
				}
				return "`fork/no-sidecars` " + fig(ns), st.P95 <= 1000 && st.P95 <= ns.P95, true
			})
	}
	// c: within 20 ms of the runtime's floor. c is the runtime's parts (the
	// last app's exit → its StopContainer returning; the sidecar's
	// StopContainer call → its SIGTERM) and the kubelet's between them.
	// Where containerd's log gave every sample's parts (c2), the goal is
	// judged sample by sample: the kubelet's part, p95 ≤ 20 ms. Runs
	// without it compare c's p95 with the floor's, measured on other pods
	// of the same lanes.
	for _, way := range []string{"fork/annotated", "fork/native-wait-ready"} {
		judge("c. last app exit → first sidecar SIGTERM: p95 within 20 ms of the floor", "c", way,
			func(st *stats) (string, bool, bool) {
				floor, kill, own := get("c0", way), get("c1", way), get("c2", way)
				var text []string
				if own != nil {
					text = append(text, "the kubelet's part (the last app's StopContainer returning → the first sidecar's StopContainer call) "+fig(own))
				}
				if floor != nil {
					text = append(text, "floor "+fig(floor))
				}
				if kill != nil {
					text = append(text, "kill path "+fig(kill))
				}
				switch {
				case own != nil:
					return strings.Join(text, ", "), own.P95 <= 20, true
				case floor != nil:
					return strings.Join(text, ", "), st.P95 <= floor.P95+20, true
				}
				return "—", false, false
			})
	}
	// e: create → all containers ready with 3 and 5 sidecars, no slower
	// than the postStart hook (medians; the p95s are shown).
	for _, key := range []string{"e3", "e5"} {
		for _, way := range []string{"fork/annotated", "fork/native-wait-ready"} {
			judge(fmt.Sprintf("e. create → all ready, %s sidecars: no slower than the postStart hook (p50)", key[1:]), key, way,
				func(st *stats) (string, bool, bool) {
					ps := get(key, "fork/poststart")
					if ps == nil {
						return "—", false, false
					}
					return "`fork/poststart` " + fig(ps), st.P50 <= ps.P50, true
				})
		}
	}
	// computePodActions: within 5% of upstream for a pod without sidecars,
	// as benchstat would judge it: a difference that is not significant
	// (Mann-Whitney U, p ≥ 0.05) is no difference.
	if up, pa, ok := goBenchRuns(benches, "BenchmarkComputePodActions/no-sidecars"); ok {
		c := compare(up, pa)
		out = append(out, verdict{
			Goal:    "computePodActions, a pod without sidecars: within 5% of upstream (benchstat's test, α = 0.05)",
			Way:     "patched tree",
			Figure:  fmt.Sprintf("%.2f µs, %s", c.Patched/1e3, c),
			Against: fmt.Sprintf("upstream %.2f µs", c.Upstream/1e3),
			Met:     map[bool]string{true: "yes", false: "no"}[!c.significant() || c.Delta <= 5],
		})
	}
	return out
}

// goBenchRuns are one benchmark's ns/op in each tree, run by run.
func goBenchRuns(benches []goBench, name string) (upstream, patched []float64, ok bool) {
	for _, b := range benches {
		if b.Name != name {
			continue
		}
		switch b.Tree {
		case "upstream":
			upstream = append(upstream, b.NsPerOp)
		case "patched":
			patched = append(patched, b.NsPerOp)
		}
	}
	return upstream, patched, len(upstream) > 0 && len(patched) > 0
}

// goalsTable writes the verdicts as a markdown table; besideLabel names
// the second configuration of a run that measured one (its column comes
// last: upstream's defaults are the headline).
func goalsTable(w io.Writer, verdicts []verdict, besideLabel string) {
	if besideLabel == "" {
		fmt.Fprintln(w, "| goal | way | p50 / p95 ms (n) | against, same run | met |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	} else {
		fmt.Fprintf(w, "| goal | way | p50 / p95 ms (n) | against, same run | met | with %s: p50 / p95 ms (n), met |\n", besideLabel)
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	}
	last := ""
	for _, v := range verdicts {
		goal := v.Goal
		if goal == last {
			goal = ""
		}
		last = v.Goal
		if besideLabel == "" {
			fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s |\n", goal, v.Way, v.Figure, v.Against, v.Met)
		} else {
			fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", goal, v.Way, v.Figure, v.Against, v.Met, v.Beside)
		}
	}
}
