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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func chainPods(way string, spans ...float64) []results.ChainPod {
	var out []results.ChainPod
	for i, detect := range spans {
		out = append(out, results.ChainPod{Way: way, Pod: fmt.Sprintf("%s-%d", way, i), Containers: benchtest.ChainContainers(20, 1e6, 500, detect, 5, 100)})
	}
	return out
}

func TestSummarizeChainAndGoals(t *testing.T) {
	var pods []results.ChainPod
	// Listed out of Ways' order: the summary puts them in it.
	pods = append(pods, chainPods("upstream/native-startup", 9500, 9400)...)
	pods = append(pods, chainPods("fork/annotated", 125, 200)...)         // 14.6 s, 16.1 s against 17 s
	pods = append(pods, chainPods("fork/native-wait-ready", 125, 300)...) // 14.6 s, 18.1 s: one over
	pods = append(pods, chainPods("fork/poststart", 60)...)
	pods = append(pods, results.ChainPod{Way: "fork/poststart", Pod: "ps-failed", Error: "sc3 restarted"})

	sums := summarizeChain(pods)
	var ways []string
	for _, s := range sums {
		ways = append(ways, s.Way)
	}
	if diff := cmp.Diff([]string{"fork/annotated", "fork/native-wait-ready", "fork/poststart", "upstream/native-startup"}, ways); diff != "" {
		t.Fatalf("ways (-want +got):\n%s", diff)
	}
	a := sums[0]
	if a.Pods != 2 || a.Missed != 0 || a.SpanP50 != 14600 || a.SpanMax != 16100 || a.Tightest.Span != 16100 || len(a.Detect) != 40 || a.MeanRuntime != 100 {
		t.Errorf("fork/annotated: %d pods, %d missed, p50 %v, max %v, tightest %v, %d steps, mean runtime %v",
			a.Pods, a.Missed, a.SpanP50, a.SpanMax, a.Tightest.Span, len(a.Detect), a.MeanRuntime)
	}
	if ps := sums[2]; ps.Pods != 1 || len(ps.Errors) != 1 {
		t.Errorf("fork/poststart: %d pods, errors %v; want 1 and the failed one's", ps.Pods, ps.Errors)
	}

	got := chainGoals(sums)
	want := []rateVerdict{{
		Goal: "exec chain, 20 sidecars (exec readiness probe, periodSeconds 10, each ready 0.5 s after its start): " +
			"first sidecar start → app start ≤ 20 × (0.5 s + the runtime's start) + 5 s, every pod",
		Way: "fork/annotated`, `fork/native-wait-ready", // the table quotes it: two ways
		Figure: "`fork/annotated` p50 14.6 s, max 16.1 s (n = 2), the tightest 16.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s); " +
			"`fork/native-wait-ready` p50 14.6 s, max 18.1 s (n = 2), the tightest 18.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s); " +
			"p50 `fork/poststart` 13.3 s, `upstream/native-startup` 200.1 s",
		Met: "no: `fork/native-wait-ready`",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}

	// A way whose every pod failed is judged on nothing, and fails; a
	// failed pod beside measured ones fails the verdict too; one judged
	// way alone is judged on its own.
	for _, tt := range []struct {
		pods   []results.ChainPod
		figure string
		met    string
	}{{
		pods: append(chainPods("fork/annotated", 100),
			results.ChainPod{Way: "fork/annotated", Pod: "x", Error: "sc2 restarted"},
			results.ChainPod{Way: "fork/native-wait-ready", Pod: "y", Error: "create: forbidden"}),
		figure: "`fork/annotated` p50 14.1 s, max 14.1 s (n = 1), the tightest 14.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s), 1 failed; " +
			"`fork/native-wait-ready` no pod measured (1 failed: y: create: forbidden)",
		met: "no: `fork/annotated`, `fork/native-wait-ready`",
	}, {
		pods: chainPods("fork/annotated", 100),
		figure: "`fork/annotated` p50 14.1 s, max 14.1 s (n = 1), the tightest 14.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s); " +
			"`fork/native-wait-ready` not measured",
		met: "yes, of the ways measured",
	}} {
		got := chainGoals(summarizeChain(tt.pods))
		if diff := cmp.Diff([]string{tt.figure, tt.met}, []string{got[0].Figure, got[0].Met}); diff != "" {
			t.Errorf("verdict (-want +got):\n%s", diff)
		}
	}
}

// TestChainNotMeasured: a run without chain pods (skipped, or from before
// the scenario) says so in its verdicts and its section: no figure.
func TestChainNotMeasured(t *testing.T) {
	got := chainGoals(summarizeChain(nil))
	want := []rateVerdict{{Goal: chainGoal(20), Way: "fork/annotated`, `fork/native-wait-ready", Figure: "not measured", Met: "—"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	var b strings.Builder
	chainSection(&b, nil)
	if diff := cmp.Diff("\n## Exec chain: many sidecars one after another\n\n"+
		"Not measured in this run (`BENCH_CHAIN=0`, or the raw files of a run from before `bench chain`).\n", b.String()); diff != "" {
		t.Errorf("section (-want +got):\n%s", diff)
	}
}

func TestChainTable(t *testing.T) {
	pods := append(chainPods("fork/annotated", 125), chainPods("upstream/native-startup", 9500)...)
	pods = append(pods, results.ChainPod{Way: "fork/poststart", Pod: "p", Error: "boom"})
	var b strings.Builder
	chainTable(&b, summarizeChain(pods))
	want := "| | `fork/annotated` | `fork/poststart` | `upstream/native-startup` |\n" +
		"| --- | ---: | ---: | ---: |\n" +
		"| sidecars, pods measured (failed) | 20, 1 (0) | —, 0 (1) | 20, 1 (0) |\n" +
		"| first sidecar start → app start, p50 / max (s) | 14.60 / 14.60 | — | 202.10 / 202.10 |\n" +
		"| the goal's bound of the tightest pod (s) | 17.00 (its span 14.60) | — | 17.00 (its span 202.10) |\n" +
		"| pods within their bound | 1 of 1 | — | 0 of 1 |\n" +
		"| step: the sidecar's start → its /ready 200 | 500 / 500 | — | 500 / 500 |\n" +
		"| step: /ready 200 → readiness seen (probe or hook) | 125 / 125 | — | 9500 / 9500 |\n" +
		"| step: seen → the next CreateContainer (the kubelet) | 5.0 / 5.0 | — | 5.0 / 5.0 |\n" +
		"| step: CreateContainer → start (the runtime's start) | 100 / 100 | — | 100 / 100 |\n" +
		"| step: a sidecar's start → the next one's | 730 / 730 | — | 10105 / 10105 |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestReportChainAndNeverReady: bench report of a run with both scenarios
// writes their sections and verdicts; of the raw files of a run without
// them (an earlier run, or one that skipped them), it says they were not
// measured, with no figure.
func TestReportChainAndNeverReady(t *testing.T) {
	in := t.TempDir()
	samplesPath := filepath.Join(in, "samples.jsonl")
	writeJSONLines(t, samplesPath, []results.Sample{benchtest.ServiceSample("fork/annotated", 1000, 1040, 2000, 2010)})
	chainPath := filepath.Join(in, "chain.jsonl")
	writeJSONLines(t, chainPath, chainPods("fork/annotated", 125))
	neverPath := filepath.Join(in, "never-ready.jsonl")
	writeJSONLines(t, neverPath, []results.NeverReadyRun{benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1.0, 1.0)})

	read := func(dir, name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	with := t.TempDir()
	if err := Command([]string{"-samples", samplesPath, "-chain", chainPath, "-never-ready", neverPath, "-out", with}); err != nil {
		t.Fatal(err)
	}
	md, goals := read(with, "report.md"), read(with, "goals.md")
	for _, want := range []string{"## Exec chain: many sidecars one after another", chainNote, "## Sidecars that stay not ready for a minute", neverReadyNote,
		"| `fork/annotated`, `fork/native-wait-ready` | `fork/annotated` p50 14.6 s, max 14.6 s (n = 1)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "Not measured") {
		t.Error("report.md says a measured scenario was not measured")
	}
	if !strings.Contains(goals, "| `fork/annotated-p10` | `fork/annotated-p10` 1.00/s per waiting sidecar") {
		t.Errorf("goals.md lacks the never-ready verdict:\n%s", goals)
	}

	without := t.TempDir()
	if err := Command([]string{"-samples", samplesPath, "-out", without}); err != nil {
		t.Fatal(err)
	}
	md, goals = read(without, "report.md"), read(without, "goals.md")
	for _, want := range []string{"Not measured in this run (`BENCH_CHAIN=0`", "Not measured in this run (`BENCH_NEVER_READY=0`"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if n := strings.Count(goals, "| not measured | — |"); n != 2 {
		t.Errorf("goals.md has %d verdicts not measured, want 2 (the chain's, never-ready's):\n%s", n, goals)
	}
	for _, figure := range []string{"/s per waiting sidecar", "mean runtime start", "a′ p95"} {
		if strings.Contains(goals, figure) {
			t.Errorf("goals.md shows a figure (%q) of a scenario not measured:\n%s", figure, goals)
		}
	}
}
