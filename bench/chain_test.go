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

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
)

func TestChainPod(t *testing.T) {
	tests := []struct {
		way               string
		inits, containers int
		annotations       map[string]string
		probe             string // the sidecars' one probe: Readiness or Startup
		hook              bool
	}{
		{"fork/annotated", 0, 21, map[string]string{"sidecar-kubelet.io/sidecars": "sc1,sc2,sc3,sc4,sc5,sc6,sc7,sc8,sc9,sc10,sc11,sc12,sc13,sc14,sc15,sc16,sc17,sc18,sc19,sc20"}, "Readiness", false},
		{"fork/native-wait-ready", 20, 1, map[string]string{"sidecar-kubelet.io/wait-ready": "true"}, "Readiness", false},
		{"fork/poststart", 0, 21, nil, "Readiness", true},
		{"upstream/native-startup", 20, 1, nil, "Startup", false},
	}
	for _, tt := range tests {
		t.Run(tt.way, func(t *testing.T) {
			w, _ := WayByName(tt.way)
			pod := chainPod(w, "ch-x", 20)
			if len(pod.Spec.InitContainers) != tt.inits || len(pod.Spec.Containers) != tt.containers {
				t.Fatalf("%d init containers and %d containers, want %d and %d", len(pod.Spec.InitContainers), len(pod.Spec.Containers), tt.inits, tt.containers)
			}
			if diff := cmp.Diff(tt.annotations, pod.Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if pod.Labels[chainLabel] != "true" || pod.Labels["bench.sidecar-kubelet.io"] != "true" {
				t.Errorf("labels %v", pod.Labels)
			}
			all := append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
			if last := all[len(all)-1]; last.Name != "app" || last.ReadinessProbe != nil || last.StartupProbe != nil {
				t.Errorf("the last container: %s, probes %v %v; want the app, without probes", last.Name, last.ReadinessProbe, last.StartupProbe)
			}
			for i, c := range all[:20] {
				if want := fmt.Sprintf("sc%d", i+1); c.Name != want {
					t.Fatalf("container %d is %s, want %s", i, c.Name, want)
				}
				env := map[string]string{}
				for _, e := range c.Env {
					env[e.Name] = e.Value
				}
				if env["READY_AFTER"] != "500ms" {
					t.Errorf("%s: READY_AFTER %q, want 500ms", c.Name, env["READY_AFTER"])
				}
				probe, other := c.ReadinessProbe, c.StartupProbe
				if tt.probe == "Startup" {
					probe, other = other, probe
				}
				if probe == nil || other != nil {
					t.Fatalf("%s: want one %s probe, have readiness %v, startup %v", c.Name, tt.probe, c.ReadinessProbe, c.StartupProbe)
				}
				want := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{
					"/testserver", "wait-ready", "--timeout", "1ms", "--out", "/dev/null", "http://127.0.0.1:" + env["PORT"] + "/ready"}}}}
				if diff := cmp.Diff(want, probe); diff != "" {
					t.Errorf("%s: probe (-want +got):\n%s", c.Name, diff)
				}
				if has := c.Lifecycle != nil && c.Lifecycle.PostStart != nil; has != tt.hook {
					t.Errorf("%s: postStart hook %v, want %v", c.Name, has, tt.hook)
				}
			}
		})
	}
}

// chainContainers builds a chain's containers: sidecar i starts at
// starts[i] ms, its /ready turns 200 at +own, is seen detect later; the
// next container is created kubelet ms after that and starts runtime ms
// after its creation. The app comes last.
func chainContainers(n int, first, own, detect, kubelet, runtime float64) []Container {
	at := func(msec float64) int64 { return int64(msec * 1e6) }
	var out []Container
	start := first
	created := first - runtime
	for i := 1; i <= n; i++ {
		up := start + own
		seen := up + detect
		out = append(out, Container{Name: sidecarName(i), Sidecar: true, Created: at(created), Started: at(start), Up: at(up), Ready: at(seen)})
		created = seen + kubelet
		start = created + runtime
	}
	return append(out, Container{Name: "app", Created: at(created), Started: at(start)})
}

func TestChainFigures(t *testing.T) {
	base := 1_000_000.0 // ms
	tests := []struct {
		name    string
		pod     ChainPod
		want    ChainFigures
		steps   []float64 // the first step's Own, Detect, Kubelet, RuntimeStart, Whole
		wantErr string
	}{{
		// 20 steps of 510 + 125 + 5 + 100 ms: 14.8 s against 20 × (0.5 s
		// + 100 ms) + 5 s = 17 s.
		name:  "within the bound",
		pod:   ChainPod{Way: "fork/annotated", Containers: chainContainers(20, base, 510, 125, 5, 100)},
		want:  ChainFigures{Sidecars: 20, Span: 14800, RuntimeStarts: 2000, Bound: 17000},
		steps: []float64{510, 125, 5, 100, 740},
	}, {
		// 20 steps of 500 + 400 + 30 + 100 ms: 20.6 s, over 17 s: the
		// ordering took 8.6 s of the chain.
		name:  "over the bound",
		pod:   ChainPod{Way: "fork/annotated", Containers: chainContainers(20, base, 500, 400, 30, 100)},
		want:  ChainFigures{Sidecars: 20, Span: 20600, RuntimeStarts: 2000, Bound: 17000},
		steps: []float64{500, 400, 30, 100, 1030},
	}, {
		// The runtime's start is each pod's own: a slow runtime widens the
		// bound by what it took, step by step.
		name:  "a slow runtime widens the bound",
		pod:   ChainPod{Way: "fork/annotated", Containers: chainContainers(2, base, 500, 100, 10, 900)},
		want:  ChainFigures{Sidecars: 2, Span: 3020, RuntimeStarts: 1800, Bound: 7800},
		steps: []float64{500, 100, 10, 900, 1510},
	}, {
		name:    "a failed pod has no figures",
		pod:     ChainPod{Way: "fork/annotated", Error: "containers not ready after 8m0s", Containers: chainContainers(2, base, 500, 100, 10, 100)},
		wantErr: "containers not ready after 8m0s",
	}, {
		name: "a missing time is named",
		pod: ChainPod{Way: "fork/annotated", Containers: func() []Container {
			cs := chainContainers(2, base, 500, 100, 10, 100)
			cs[1].Up = 0
			cs[2].Started = 0
			return cs
		}()},
		wantErr: "no time of sc2's /ready turning 200, app's start",
	}, {
		name:    "no app",
		pod:     ChainPod{Way: "fork/annotated", Containers: chainContainers(2, base, 500, 100, 10, 100)[:2]},
		wantErr: "2 sidecars and no app, or no sidecar",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.pod.Figures()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(ChainFigures{}, "Steps"), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("Figures() (-want +got):\n%s", diff)
			}
			if got.Met() != (tt.want.Span <= tt.want.Bound) {
				t.Errorf("Met() = %v with span %v and bound %v", got.Met(), got.Span, got.Bound)
			}
			s := got.Steps[0]
			if diff := cmp.Diff(tt.steps, []float64{s.Own(), s.Detect(), s.Kubelet(), s.RuntimeStart(), s.Whole()}, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("the first step (-want +got):\n%s", diff)
			}
			if n := len(got.Steps); n != got.Sidecars || got.Steps[n-1].NextStarted != tt.pod.Containers[n].Started {
				t.Errorf("%d steps, the last one's next start %d; want %d and the app's", n, got.Steps[n-1].NextStarted, got.Sidecars)
			}
		})
	}
}

// TestChainStepsHook: the postStart way's readiness is seen when its hook's
// poll is served 200, or when the hook returns if that is earlier (the
// server's log lost the first line, say), as Intervals takes it.
func TestChainStepsHook(t *testing.T) {
	cs := chainContainers(1, 1000, 500, 100, 10, 100)
	cs[0].Hook = cs[0].Ready - int64(20e6)
	steps, err := ChainPod{Containers: cs}.ChainSteps()
	if err != nil {
		t.Fatal(err)
	}
	if got := steps[0].Detect(); got != 80 {
		t.Errorf("Detect() = %v, want 80 (the hook's return)", got)
	}
	s := Sample{Kind: KindService, Sidecars: 1, Containers: cs}
	if iv := Intervals(&s)["a"]; iv[0] != steps[0].Seen {
		t.Errorf("Intervals' ready %d, the chain's seen %d: the two differ", iv[0], steps[0].Seen)
	}
}

func chainPods(way string, spans ...float64) []ChainPod {
	var out []ChainPod
	for i, detect := range spans {
		out = append(out, ChainPod{Way: way, Pod: fmt.Sprintf("%s-%d", way, i), Containers: chainContainers(20, 1e6, 500, detect, 5, 100)})
	}
	return out
}

func TestSummarizeChainAndGoals(t *testing.T) {
	var pods []ChainPod
	// Listed out of Ways' order: the summary puts them in it.
	pods = append(pods, chainPods("upstream/native-startup", 9500, 9400)...)
	pods = append(pods, chainPods("fork/annotated", 125, 200)...)         // 14.6 s, 16.1 s against 17 s
	pods = append(pods, chainPods("fork/native-wait-ready", 125, 300)...) // 14.6 s, 18.1 s: one over
	pods = append(pods, chainPods("fork/poststart", 60)...)
	pods = append(pods, ChainPod{Way: "fork/poststart", Pod: "ps-failed", Error: "sc3 restarted"})

	sums := SummarizeChain(pods)
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

	got := ChainGoals(sums)
	want := []RateVerdict{{
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
		pods   []ChainPod
		figure string
		met    string
	}{{
		pods: append(chainPods("fork/annotated", 100),
			ChainPod{Way: "fork/annotated", Pod: "x", Error: "sc2 restarted"},
			ChainPod{Way: "fork/native-wait-ready", Pod: "y", Error: "create: forbidden"}),
		figure: "`fork/annotated` p50 14.1 s, max 14.1 s (n = 1), the tightest 14.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s), 1 failed; " +
			"`fork/native-wait-ready` no pod measured (1 failed: y: create: forbidden)",
		met: "no: `fork/annotated`, `fork/native-wait-ready`",
	}, {
		pods: chainPods("fork/annotated", 100),
		figure: "`fork/annotated` p50 14.1 s, max 14.1 s (n = 1), the tightest 14.1 s against 17.0 s (20 × (0.5 s + 100 ms mean runtime start) + 5 s); " +
			"`fork/native-wait-ready` not measured",
		met: "yes, of the ways measured",
	}} {
		got := ChainGoals(SummarizeChain(tt.pods))
		if diff := cmp.Diff([]string{tt.figure, tt.met}, []string{got[0].Figure, got[0].Met}); diff != "" {
			t.Errorf("verdict (-want +got):\n%s", diff)
		}
	}
}

// TestChainNotMeasured: a run without chain pods (skipped, or from before
// the scenario) says so in its verdicts and its section: no figure.
func TestChainNotMeasured(t *testing.T) {
	got := ChainGoals(SummarizeChain(nil))
	want := []RateVerdict{{Goal: chainGoal(20), Way: "fork/annotated`, `fork/native-wait-ready", Figure: "not measured", Met: "—"}}
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
	pods = append(pods, ChainPod{Way: "fork/poststart", Pod: "p", Error: "boom"})
	var b strings.Builder
	ChainTable(&b, SummarizeChain(pods))
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
	writeJSONLines(t, samplesPath, []Sample{svcSample("fork/annotated", 1000, 1040, 2000, 2010)})
	chainPath := filepath.Join(in, "chain.jsonl")
	writeJSONLines(t, chainPath, chainPods("fork/annotated", 125))
	neverPath := filepath.Join(in, "never-ready.jsonl")
	writeJSONLines(t, neverPath, []NeverReadyRun{steadyNeverReadyRun("fork/annotated-p10", 1.0, 1.0)})

	read := func(dir, name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	with := t.TempDir()
	if err := reportCmd([]string{"-samples", samplesPath, "-chain", chainPath, "-never-ready", neverPath, "-out", with}); err != nil {
		t.Fatal(err)
	}
	md, goals := read(with, "report.md"), read(with, "goals.md")
	for _, want := range []string{"## Exec chain: many sidecars one after another", ChainNote, "## Sidecars that stay not ready for a minute", NeverReadyNote,
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
	if err := reportCmd([]string{"-samples", samplesPath, "-out", without}); err != nil {
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
