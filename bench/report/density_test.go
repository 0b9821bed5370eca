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
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/pictures"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const tsec = int64(time.Second)

func TestSummarizeDensity(t *testing.T) {
	runs := []results.DensityRun{
		benchtest.DensityRun("fork/no-sidecars", 10, 0, 2000, 40, 0),
		benchtest.DensityRun("fork/annotated", 30, 0, 3000, 70, 150, 100, 300),
		benchtest.DensityRun("fork/annotated", 10, 0, 2000, 50, 100, 90),
		benchtest.DensityRun("fork/annotated", 10, 1, 3000, 70, 120, 110, 130),
		benchtest.DensityRun("fork/annotated", 10, 2, 2500, 60, 110, 120),
	}
	failed := benchtest.DensityRun("fork/annotated", 10, 3, 2000, 10, 190, 1)
	failed.Error = "3 of 10 pods Ready after 4m0s"
	runs = append(runs, failed)

	got := summarizeDensity(runs)
	nan := math.NaN()
	// Runs of the benchmark before the serve cgroups (benchtest.DensityRun has
	// none): every figure of the whole node unknown, never 0.
	notMeasured := func(s densitySummary) densitySummary {
		s.GroupPerPod = [len(results.ServeGroups)]float64{nan, nan, nan, nan}
		s.NodePerPod, s.NodePerPodMin, s.NodePerPodMax = nan, nan, nan
		s.TimeWaitReady, s.TimeWaitPeak = nan, nan
		s.APIAll, s.APIEventCreates, s.APIPodStatus = nan, nan, nan
		s.APIEventUpdates, s.APIEventUpdatesWhileGoing = nan, nan
		s.RuntimeOps = nan
		return s
	}
	want := []densitySummary{
		{Way: "fork/annotated", Kubelet: "fork", N: 10, Runs: 3, Failed: 1, Errors: []string{"run 3: 3 of 10 pods Ready after 4m0s"},
			AllReadyMs: []float64{2000, 3000, 2500}, AllReadyP50: 2500, AllReadyMin: 2000, AllReadyMax: 3000,
			AllReadyByRun: map[int]float64{0: 2000, 1: 3000, 2: 2500},
			APrimes:       []float64{90, 110, 120, 130}, APrimeP50: 110, APrimeP95: 130,
			KubeletPerPod: 60, KubeletPerPodMin: 50, KubeletPerPodMax: 70, ContainerdPerPod: nan,
			Periodic: 10, Extra: 110, Limited: 0, RatesKnown: true,
			PeakExtra: 190, MaxMeanExtra: 190, Tightest: results.Window{Runs: 190, Seconds: 1}, ExtraRatesKnown: true}, // the failed run's extra runs count
		{Way: "fork/annotated", Kubelet: "fork", N: 30, Runs: 1,
			AllReadyMs: []float64{3000}, AllReadyP50: 3000, AllReadyMin: 3000, AllReadyMax: 3000, AllReadyByRun: map[int]float64{0: 3000},
			APrimes: []float64{100, 300}, APrimeP50: 100, APrimeP95: 300,
			KubeletPerPod: 70, KubeletPerPodMin: 70, KubeletPerPodMax: 70, ContainerdPerPod: nan,
			Periodic: 30, Extra: 150, RatesKnown: true, PeakExtra: 150, MaxMeanExtra: 150, Tightest: results.Window{Runs: 150, Seconds: 1}, ExtraRatesKnown: true},
		{Way: "fork/no-sidecars", Kubelet: "fork", N: 10, Runs: 1,
			AllReadyMs: []float64{2000}, AllReadyP50: 2000, AllReadyMin: 2000, AllReadyMax: 2000, AllReadyByRun: map[int]float64{0: 2000},
			APrimeP50: nan, APrimeP95: nan,
			KubeletPerPod: 40, KubeletPerPodMin: 40, KubeletPerPodMax: 40, ContainerdPerPod: nan,
			Periodic: 10, RatesKnown: true, Tightest: results.Window{Seconds: 1}, ExtraRatesKnown: true},
	}
	for i := range want {
		want[i] = notMeasured(want[i])
	}
	// The a′ parts: TestDensityAPrimeParts.
	parts := cmpopts.IgnoreFields(densitySummary{}, "APrimeParts", "APrimePartP50", "APrimePartP95")
	if diff := cmp.Diff(want, got, parts, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("summarizeDensity (-want +got):\n%s", diff)
	}

	var b strings.Builder
	densityTable(&b, got)
	wantTable := "| way | pods | runs | all Ready, p50 s (range) | a′ p50 / p95 ms (pods) | probe runs/s: periodic + extra | extra runs/s, peak | held back/s |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| `fork/annotated` | 10 | 3 (1 failed) | 2.50 (2.00–3.00) | 110 / 130 (4) | 10 + 110 | 190 | 0 |\n" +
		"| `fork/annotated` | 30 | 1 | 3.00 | 100 / 300 (2) | 30 + 150 | 150 | 0 |\n" +
		"| `fork/no-sidecars` | 10 | 1 | 2.00 | — | 10 + 0 | 0 | 0 |\n" +
		"\nFailed runs (left out of the figures, but not of the extra runs' peak):\n\n" +
		"- `fork/annotated`, 10 pods, run 3: 3 of 10 pods Ready after 4m0s\n"
	if diff := cmp.Diff(wantTable, b.String()); diff != "" {
		t.Errorf("densityTable (-want +got):\n%s", diff)
	}
	// The node's table of such runs: the kubelet's own process from /proc,
	// containerd's daemon alone in brackets, nothing else measured.
	b.Reset()
	densityNodeTable(&b, got)
	wantNode := "| way | pods | kubelet | containerd + shims + runc | kube-apiserver | etcd | node, CPU ms/pod (range) | TIME_WAIT at Ready / peak | API requests/pod: events / pod status / all | event updates/pod (while the pods go) | the kubelet's runtime calls/pod: ListPodSandbox / all |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| `fork/annotated` | 10 | 60.0 | — | — | — | — | — / — | — | — | — |\n" +
		"| `fork/annotated` | 30 | 70.0 | — | — | — | — | — / — | — | — | — |\n" +
		"| `fork/no-sidecars` | 10 | 40.0 | — | — | — | — | — / — | — | — | — |\n"
	if diff := cmp.Diff(wantNode, b.String()); diff != "" {
		t.Errorf("densityNodeTable (-want +got):\n%s", diff)
	}

	// The JSON holds no NaN: unknown figures are null.
	js, err := densityJSON(runs, got)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summaries []map[string]any     `json:"summaries"`
		Runs      []results.DensityRun `json:"runs"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != len(runs) || len(doc.Summaries) != 3 {
		t.Fatalf("%d runs and %d summaries in the JSON, want %d and 3", len(doc.Runs), len(doc.Summaries), len(runs))
	}
	if s := doc.Summaries[2]; s["aPrimeP50Ms"] != nil || s["containerdCpuMsPerPodAboveIdle"] != nil || math.Abs(s["kubeletCpuMsPerPodAboveIdle"].(float64)-40) > 1e-9 {
		t.Errorf("no-sidecars' summary in the JSON: %v", s)
	}
}

func TestDensityIdleLine(t *testing.T) {
	runs := []results.DensityRun{
		{Kubelet: "fork", Idle: results.DensityIdle{Seconds: 8, Kubelet: 0.16, Containerd: 0.04, KubeletKnown: true, ContainerdKnown: true}},
		{Kubelet: "fork", Idle: results.DensityIdle{Seconds: 8, Kubelet: 9}}, // the same kubelet's: the first says it
		{Kubelet: "upstream", Idle: results.DensityIdle{Seconds: 8, Kubelet: 0.08, KubeletKnown: true}},
		{Kubelet: "other"}, // not measured
	}
	want := "Idle, no pod of ours (measured before the runs): with the fork kubelet, over 8 s: the kubelet 2.0% of a core, containerd 0.5%; " +
		"with the upstream kubelet, over 8 s: the kubelet 1.0% of a core, containerd unknown."
	if got := densityIdleLine(runs); got != want {
		t.Errorf("densityIdleLine =\n%q, want\n%q", got, want)
	}
	if got := densityIdleLine(nil); got != "" {
		t.Errorf("no runs: %q", got)
	}
}

func TestDensityGoals(t *testing.T) {
	// The runs' extra runs: meanExtra/s over 30 s, and peakExtra in their
	// busiest second; the tightest window is whichever is closer to the
	// bound.
	sum := func(way string, n int, readyS, cpuMs, meanExtra, peakExtra float64) densitySummary {
		tightest := results.Window{Runs: peakExtra, Seconds: 1}
		if long := (results.Window{Runs: meanExtra * 30, Seconds: 30}); long.Over() > tightest.Over() {
			tightest = long
		}
		return densitySummary{Way: way, N: n, Runs: 3, AllReadyP50: readyS * 1000, KubeletPerPod: cpuMs,
			MaxMeanExtra: meanExtra, PeakExtra: peakExtra, Tightest: tightest, ExtraRatesKnown: true,
			NodePerPod: math.NaN(), APrimeP95: math.NaN()} // judged in TestDensityGoalsWholeNode
	}
	nan := math.NaN()
	tests := []struct {
		name string
		sums []densitySummary
		want []string
	}{{
		name: "all met",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3.1, 60, 150, 210),
			sum("fork/annotated", 100, 9, 55, 200, 220), // 55 ≤ 1.25 × 50 and ≤ 60; the bound exactly
			sum("fork/no-sidecars", 100, 8, 50, 0, 0),
			sum("fork/poststart", 100, 9.5, 52, 0, 0),
			sum("upstream/native-startup", 100, 9, 51, 0, 0),
		},
		want: []string{
			"fork/annotated: yes: 55.0 ms at 100 pods (`fork/no-sidecars` 50.0), 60.0 ms at 10 pods",
			"fork/annotated: —: —",
			"fork/annotated: yes: mean ≤ 200/s, peak 220/s; tightest window 220 in 1.00 s (the bound: 220) (100 pods)",
			"fork/annotated: yes: 9.00 s at 100 pods (`fork/poststart` 9.50 s, `upstream/native-startup` 9.00 s)",
			"fork/annotated: —: —",
		},
	}, {
		name: "each missed",
		sums: []densitySummary{
			sum("fork/native-wait-ready", 10, 3, 40, 100, 150),
			sum("fork/native-wait-ready", 30, 7, 45, 201, 180), // more per pod than at 10; the mean over the bound
			sum("fork/no-sidecars", 10, 2.9, 35, 0, 0),
			sum("fork/no-sidecars", 30, 6, 40, 0, 0),
			sum("fork/poststart", 30, 6.9, 40, 0, 0), // earlier than the fork
		},
		want: []string{
			// The same pods without sidecars grew too: shown beside.
			"fork/native-wait-ready: no: 45.0 ms at 30 pods (`fork/no-sidecars` 40.0), 40.0 ms at 10 pods (`fork/no-sidecars` 40.0 and 35.0)",
			"fork/native-wait-ready: —: —",
			"fork/native-wait-ready: no: mean ≤ 201/s, peak 180/s; tightest window 6030 in 30.00 s (the bound: 6020) (30 pods)",
			"fork/native-wait-ready: no: 7.00 s at 30 pods (`fork/poststart` 6.90 s)",
			"fork/native-wait-ready: —: —",
		},
	}, {
		name: "CPU over 1.25× no sidecars; a second over the burst",
		sums: []densitySummary{
			sum("fork/annotated", 30, 5, 51, 100, 221),
			sum("fork/no-sidecars", 30, 5, 40, 0, 0),
		},
		want: []string{
			"fork/annotated: no: 51.0 ms at 30 pods (`fork/no-sidecars` 40.0)",
			"fork/annotated: —: —",
			"fork/annotated: no: mean ≤ 100/s, peak 221/s; tightest window 221 in 1.00 s (the bound: 220) (30 pods)",
			"fork/annotated: —: —", // no rival ran
			"fork/annotated: —: —",
		},
	}, {
		name: "only the counts a rival ran at are judged; no CPU figure at all",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, nan, 0, 0),
			sum("fork/annotated", 30, 7, nan, 0, 0),
			sum("upstream/native-startup", 10, 3.5, nan, 0, 0),
		},
		want: []string{
			"fork/annotated: —: —",
			"fork/annotated: —: —",
			"fork/annotated: yes: mean ≤ 0/s, peak 0/s; tightest window 0 in 1.00 s (the bound: 220) (30 pods)",
			"fork/annotated: yes: 3.00 s at 10 pods (`upstream/native-startup` 3.50 s)",
			"fork/annotated: —: —",
		},
	}, {
		name: "both fork ways, grouped by goal; equal figures as shown meet the goal",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 53.00000001, 100, 150),
			sum("fork/annotated", 30, 7, 53.04, 100, 150),
			sum("fork/native-wait-ready", 10, 3, 52.99999999, 100, 150),
			sum("fork/native-wait-ready", 30, 6.9999999, 53.00000002, 200.4, 220.3),
			sum("fork/no-sidecars", 30, 6, 42.4, 0, 0),
			sum("fork/poststart", 30, 7.0000001, 40, 0, 0),
		},
		want: []string{
			"fork/annotated: yes: 53.0 ms at 30 pods (`fork/no-sidecars` 42.4), 53.0 ms at 10 pods",
			"fork/native-wait-ready: yes: 53.0 ms at 30 pods (`fork/no-sidecars` 42.4), 53.0 ms at 10 pods",
			"fork/annotated: —: —",
			"fork/native-wait-ready: —: —",
			"fork/annotated: yes: mean ≤ 100/s, peak 150/s; tightest window 150 in 1.00 s (the bound: 220) (30 pods)",
			"fork/native-wait-ready: yes: mean ≤ 200/s, peak 220/s; tightest window 220 in 1.00 s (the bound: 220) (30 pods)",
			"fork/annotated: yes: 7.00 s at 30 pods (`fork/poststart` 7.00 s)",
			"fork/native-wait-ready: yes: 7.00 s at 30 pods (`fork/poststart` 7.00 s)",
			"fork/annotated: —: —",
			"fork/native-wait-ready: —: —",
		},
	}, {
		name: "no fork way ran: nothing to judge",
		sums: []densitySummary{sum("fork/no-sidecars", 10, 2, 40, 0, 0)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range densityGoals(tt.sums) {
				got = append(got, v.Way+": "+v.Met+": "+v.Figure)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDensityCurveAndGroups(t *testing.T) {
	sums := []densitySummary{
		{Way: "fork/annotated", N: 10, AllReadyP50: 3000, APrimes: []float64{1, 2}},
		{Way: "fork/annotated", N: 30, AllReadyP50: math.NaN()}, // no figure: no point
		{Way: "fork/annotated", N: 100, AllReadyP50: 9000, APrimes: []float64{3}},
		{Way: "fork/poststart", N: 10, AllReadyP50: 3500, APrimes: []float64{4}},
	}
	got := densityCurve(sums, func(s densitySummary) (float64, float64, float64) { return s.AllReadyP50 / 1000, 1, 2 })
	want := []pictures.Series{
		{Name: "fork/annotated", Color: pictures.WayColor("fork/annotated"), Points: []pictures.SeriesPoint{{X: 10, Y: 3, Lo: 1, Hi: 2}, {X: 100, Y: 9, Lo: 1, Hi: 2}}},
		{Name: "fork/poststart", Color: pictures.WayColor("fork/poststart"), Points: []pictures.SeriesPoint{{X: 10, Y: 3.5, Lo: 1, Hi: 2}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("densityCurve (-want +got):\n%s", diff)
	}
	var labels []string
	for _, g := range densityBoxGroups(sums) {
		labels = append(labels, g.Label)
	}
	if diff := cmp.Diff([]string{"fork/annotated, 10 pods", "fork/poststart, 10 pods", "fork/annotated, 100 pods"}, labels); diff != "" {
		t.Errorf("densityBoxGroups: by pod count, then way (-want +got):\n%s", diff)
	}

	sum := map[string]map[string]*stats{"a0": {
		"fork/annotated": {SamplesMillis: []float64{5, 6}},
		"fork/poststart": {SamplesMillis: []float64{7}},
	}}
	groups := sampleBoxGroups(sum, []string{"fork/poststart", "fork/no-sidecars", "fork/annotated"})
	wantGroups := []pictures.BoxGroup{
		{Label: "fork/poststart", Color: pictures.WayColor("fork/poststart"), Values: []float64{7}},
		{Label: "fork/annotated", Color: pictures.WayColor("fork/annotated"), Values: []float64{5, 6}},
	}
	if diff := cmp.Diff(wantGroups, groups); diff != "" {
		t.Errorf("sampleBoxGroups (-want +got):\n%s", diff)
	}
}

func TestDensityAPrimeParts(t *testing.T) {
	const up = 100 * tsec
	pod := results.DensityPod{Containers: []results.Container{
		{Name: "sc1", Sidecar: true, Started: up - 500*msNS, Up: up, Ready: up + 30*msNS},
		{Name: "app", Created: up + 1030*msNS, Started: up + 1100*msNS},
	}}
	parts, ok := pod.APrimeParts()
	if diff := cmp.Diff([3]float64{30, 1000, 70}, parts); !ok || diff != "" {
		t.Errorf("APrimeParts (-want +got), ok %v:\n%s", ok, diff)
	}
	if a, _ := pod.APrime(); parts[0]+parts[1]+parts[2] != a {
		t.Errorf("parts add up to %v, a′ is %v", parts[0]+parts[1]+parts[2], a)
	}
	if _, ok := (results.DensityPod{Containers: pod.Containers[1:]}).APrimeParts(); ok {
		t.Error("a pod without a sidecar has a′ parts")
	}
	sums := summarizeDensity([]results.DensityRun{{Way: "fork/annotated", Kubelet: "fork", N: 1, Pods: []results.DensityPod{pod}}})
	var b strings.Builder
	densityAPrimeSplit(&b, sums)
	if want := "| `fork/annotated` | 1 | 1100 / 1100 | 30.0 / 30.0 | 1000 / 1000 | 70.0 / 70.0 |"; !strings.Contains(b.String(), want) {
		t.Errorf("densityAPrimeSplit wrote\n%s\nwant a row\n%s", b.String(), want)
	}
}

// A line of density.jsonl written before the serve cgroups: none of the
// new figures, each reported as not measured.
func TestDensityOldRunLine(t *testing.T) {
	line := `{"way":"fork/annotated","kubelet":"fork","probe":"Readiness","n":10,"run":0,"seed":28,"start":100000000000,"allReady":104000000000,` +
		`"delete":105000000000,"allGone":107000000000,` +
		`"cpu":{"start":{"at":100000000000,"kubelet":10,"containerd":5,"kubeletStart":7,"containerdStart":9},` +
		`"ready":{"at":104000000000,"kubelet":10.5,"containerd":5.3,"kubeletStart":7,"containerdStart":9},` +
		`"delete":{"at":105000000000,"kubelet":10.6,"containerd":5.35,"kubeletStart":7,"containerdStart":9},` +
		`"gone":{"at":107000000000,"kubelet":10.9,"containerd":5.5,"kubeletStart":7,"containerdStart":9}},` +
		`"idle":{"seconds":10,"kubelet":0.1,"containerd":0.05,"kubeletKnown":true,"containerdKnown":true},"scrapes":[],"pods":[]}`
	path := filepath.Join(t.TempDir(), "density.jsonl")
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := results.ReadDensityRuns(path)
	if err != nil || len(runs) != 1 {
		t.Fatalf("ReadDensityRuns: %d runs, %v", len(runs), err)
	}
	r := runs[0]
	if r.API != nil || r.TimeWait != nil || r.Idle.API != nil || r.CPU.Start.Groups != nil {
		t.Errorf("an old line read with new figures: %+v", r)
	}
	if v := r.NodePerPodMs(); !math.IsNaN(v) {
		t.Errorf("NodePerPodMs = %v, want NaN", v)
	}
	if v := r.KubeletFigureMs(); math.Abs(v-74) > 1e-9 {
		t.Errorf("KubeletFigureMs = %v, want /proc's 74", v)
	}
	sums := summarizeDensity(runs)
	var b strings.Builder
	densityNodeTable(&b, sums)
	want := "| `fork/annotated` | 10 | 74.0 | — (daemon alone 42.0) | — | — | — | — / — | — | — | — |\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("densityNodeTable of an old run:\n%s\nwant the row\n%s", b.String(), want)
	}
	js, err := densityJSON(runs, sums)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summaries []map[string]any `json:"summaries"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Summaries[0]
	for _, k := range []string{"nodeCpuMsPerPodAboveIdle", "timeWaitAtReady", "timeWaitPeak", "apiRequestsPerPod", "apiEventCreatesPerPod", "apiPodStatusWritesPerPod", "apiEventUpdatesPerPod", "apiEventUpdatesWhileGoingPerPod", "runtimeCallsPerPod"} {
		if v, ok := s[k]; !ok || v != nil {
			t.Errorf("density.json %s = %v (present %v), want null", k, v, ok)
		}
	}
	if groups, _ := s["cpuMsPerPodAboveIdle"].(map[string]any); len(groups) != len(results.ServeGroups) || groups["containerd"] != nil {
		t.Errorf("density.json cpuMsPerPodAboveIdle = %v, want every group null", s["cpuMsPerPodAboveIdle"])
	}
}

func TestDensityNodeTableAndIdleLine(t *testing.T) {
	a, b := benchtest.WholeNodeRun(), benchtest.WholeNodeRun()
	b.Run = 1
	b.CPU.Gone.Groups["etcd"] = 8.3 // 10 ms more per pod
	b.TimeWait = &results.DensitySockets{Start: 0, Ready: 310, Peak: 500}
	sums := summarizeDensity([]results.DensityRun{a, b})
	var sb strings.Builder
	densityNodeSection(&sb, sums)
	want := "| `fork/annotated` | 10 | 74.0 | 177 | 58.0 | 14.0 | 323 (323–333) | 300 / 420 | 6.0 / 5.0 / 19.0 | 3.2 (3.0) | 4.8 / 17.5 |\n\n"
	if !strings.HasSuffix(sb.String(), want) || !strings.HasPrefix(sb.String(), densityNodeNote) {
		t.Errorf("densityNodeSection:\n%s\nwant the note, then a table ending in\n%s", sb.String(), want)
	}
	line := densityIdleLine([]results.DensityRun{a})
	wantLine := "Idle, no pod of ours (measured before the runs): with the fork kubelet, over 10 s: kubelet 1.0% of a core, " +
		"containerd + shims + runc 0.5%, kube-apiserver 2.0%, etcd 1.0%, 5.0 API requests a second."
	if line != wantLine {
		t.Errorf("densityIdleLine =\n%q, want\n%q", line, wantLine)
	}
	// The same run's progress line: measure's TestReadDensityRunsAndRunLine.
}

func TestDensityGoalsWholeNode(t *testing.T) {
	nan := math.NaN()
	sum := func(way string, n, runs int, readyS, nodeMs, aPrimeP95 float64) densitySummary {
		return densitySummary{Way: way, N: n, Runs: runs, AllReadyP50: readyS * 1000, KubeletPerPod: nan,
			NodePerPod: nodeMs, APrimeP95: aPrimeP95}
	}
	withNodeRange := func(s densitySummary, lo, hi float64) densitySummary {
		s.NodePerPodMin, s.NodePerPodMax = lo, hi
		return s
	}
	withReadyRange := func(s densitySummary, lo, hi float64) densitySummary {
		s.AllReadyMin, s.AllReadyMax = lo*1000, hi*1000
		return s
	}
	// byRun gives a summary its runs' figures by index, the node's CPU per
	// pod in ms and the time to all Ready in s.
	byRun := func(s densitySummary, node, readyS []float64) densitySummary {
		s.NodeByRun, s.AllReadyByRun = map[int]float64{}, map[int]float64{}
		for i, v := range node {
			s.NodeByRun[i] = v
		}
		for i, v := range readyS {
			s.AllReadyByRun[i] = v * 1000
		}
		return s
	}
	tests := []struct {
		name string
		sums []densitySummary
		want []string // the node's CPU, time to all Ready and a′ verdicts
	}{{
		name: "all met at every N",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 4, 110, 150),
			// The goal is judged on the p50; the runs' range is shown where they differ.
			withReadyRange(sum("fork/annotated", 110, 3, 40, 99.04, 900), 38.5, 43), // 1.1 × 90 = 99.0 as shown
			sum("fork/poststart", 10, 3, 4.2, 100, 160),
			sum("fork/poststart", 110, 3, 41, 95, 950),
			sum("upstream/native-startup", 10, 3, 4.5, 100, 600),
			withReadyRange(sum("upstream/native-startup", 110, 3, 40.4, 90, 1500), 39, 41), // 40.0 ≤ 40.4: whole seconds as shown
		},
		want: []string{
			"yes: 110 ms at 10 pods (`upstream/native-startup` 100); 99.0 ms at 110 pods (`upstream/native-startup` 90.0); 110 pods against 10: 99.0 against 110 ms (`upstream/native-startup` 90.0 against 100)",
			"yes: 4.00 s at 10 pods (`fork/poststart` 4.20 s, `upstream/native-startup` 4.50 s); 40.00 (38.50–43.00) s at 110 pods (`fork/poststart` 41.00 s, `upstream/native-startup` 40.40 (39.00–41.00) s)",
			"yes: 150 ms at 10 pods (`fork/poststart` 160); 900 ms at 110 pods (`fork/poststart` 950)",
		},
	}, {
		name: "a miss at one N misses the goal",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 4.6, 111, 160), // over 1.1 × 100; a′ p95 equal: not below
			sum("fork/annotated", 110, 3, 40, 95, 900),  // fine here
			sum("fork/poststart", 10, 3, 4.2, 100, 160), // earlier than the fork at 10
			sum("fork/poststart", 110, 3, 41, 95, 950),
			sum("upstream/native-startup", 10, 3, 4.5, 100, 600),
			sum("upstream/native-startup", 110, 3, 41, 90, 1500),
		},
		want: []string{
			"no: 111 ms at 10 pods (`upstream/native-startup` 100); 95.0 ms at 110 pods (`upstream/native-startup` 90.0); 110 pods against 10: 95.0 against 111 ms (`upstream/native-startup` 90.0 against 100)",
			"no: 4.60 s at 10 pods (`fork/poststart` 4.20 s, `upstream/native-startup` 4.50 s); 40.00 s at 110 pods (`fork/poststart` 41.00 s, `upstream/native-startup` 41.00 s)",
			"no: 160 ms at 10 pods (`fork/poststart` 160); 900 ms at 110 pods (`fork/poststart` 950)",
		},
	}, {
		// Upstream's native sidecars with a readiness probe, where the run
		// has them: beside the rivals, never in the verdict (the fork
		// misses against upstream/native-startup, and is cheaper and
		// earlier than this way).
		name: "the same probe's way shown beside",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 4, 70, nan),
			sum("fork/annotated", 110, 3, 43, 112, nan),
			sum("upstream/native-startup", 10, 3, 4.5, 70, nan),
			sum("upstream/native-startup", 110, 3, 42, 100, nan),
			sum("upstream/native-startup-ready", 10, 3, 4.5, 72, nan),
			sum("upstream/native-startup-ready", 110, 3, 44, 116, nan),
		},
		want: []string{
			"no: 70.0 ms at 10 pods (`upstream/native-startup` 70.0; `upstream/native-startup-ready` 72.0); " +
				"112 ms at 110 pods (`upstream/native-startup` 100; `upstream/native-startup-ready` 116); " +
				"110 pods against 10: 112 against 70.0 ms (`upstream/native-startup` 100 against 70.0; `upstream/native-startup-ready` 116 against 72.0)",
			"no: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s, beside: `upstream/native-startup-ready` 4.50 s); " +
				"43.00 s at 110 pods (`upstream/native-startup` 42.00 s, beside: `upstream/native-startup-ready` 44.00 s)",
			"—: —",
		},
	}, {
		name: "more per pod at the largest N than at the smallest",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 4, 90, nan),
			sum("fork/annotated", 110, 3, 40, 95, nan),
			sum("upstream/native-startup", 10, 3, 4.5, 100, nan),
			sum("upstream/native-startup", 110, 3, 41, 100, nan),
		},
		want: []string{
			"no: 90.0 ms at 10 pods (`upstream/native-startup` 100); 95.0 ms at 110 pods (`upstream/native-startup` 100); 110 pods against 10: 95.0 against 90.0 ms (`upstream/native-startup` 100 against 100)",
			"yes: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s); 40.00 s at 110 pods (`upstream/native-startup` 41.00 s)",
			"—: —",
		},
	}, {
		name: "fewer than 3 runs on either side: not judged",
		sums: []densitySummary{
			sum("fork/annotated", 10, 1, 4, nan, nan),
			sum("fork/annotated", 30, 3, 9, nan, nan),
			sum("fork/poststart", 10, 3, 4.2, nan, nan),
			sum("fork/poststart", 30, 2, 9.5, nan, nan), // the rival's runs count too
			sum("fork/native-wait-ready", 10, 1, 4, nan, nan),
			sum("fork/native-wait-ready", 30, 3, 10, nan, nan),
			sum("upstream/native-startup", 30, 3, 9.5, nan, nan),
		},
		want: []string{
			"—: —",
			"—: —",
			"—: 4.00 s at 10 pods (`fork/poststart` 4.20 s), fewer than 3 runs: not judged; 9.00 s at 30 pods (`fork/poststart` 9.50 s, `upstream/native-startup` 9.50 s), fewer than 3 runs: not judged",
			"—: 4.00 s at 10 pods (`fork/poststart` 4.20 s), fewer than 3 runs: not judged; 10.00 s at 30 pods (`fork/poststart` 9.50 s, `upstream/native-startup` 9.50 s), fewer than 3 runs: not judged",
			"—: —",
			"—: —",
		},
	}, {
		name: "a judged miss beside an unjudged N: missed",
		sums: []densitySummary{
			sum("fork/annotated", 10, 1, 4, nan, nan),
			sum("fork/annotated", 30, 3, 10, nan, nan),
			sum("upstream/native-startup", 10, 3, 4.5, nan, nan),
			sum("upstream/native-startup", 30, 3, 9.4, nan, nan),
		},
		want: []string{
			"—: —",
			"no: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s), fewer than 3 runs: not judged; 10.00 s at 30 pods (`upstream/native-startup` 9.40 s)",
			"—: —",
		},
	}, {
		name: "the node's CPU per pod: each p50 with its runs' range; fewer than 3 runs not judged",
		sums: []densitySummary{
			withNodeRange(sum("fork/annotated", 10, 3, 4, 1024, nan), 607, 1100),
			withNodeRange(sum("fork/annotated", 30, 2, 9, 1077, nan), 1000, 1200),
			withNodeRange(sum("upstream/native-startup", 10, 3, 4.5, 851, nan), 800, 900),
			withNodeRange(sum("upstream/native-startup", 30, 3, 9.5, 967, nan), 967, 967),
		},
		want: []string{
			"no: 1024 (607–1100) ms at 10 pods (`upstream/native-startup` 851 (800–900)); 1077 (1000–1200) ms at 30 pods (`upstream/native-startup` 967), fewer than 3 runs: not judged; 30 pods against 10: 1077 against 1024 ms (`upstream/native-startup` 967 against 851), fewer than 3 runs: not judged",
			"—: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s); 9.00 s at 30 pods (`upstream/native-startup` 9.50 s), fewer than 3 runs: not judged",
			"—: —",
		},
	}, {
		name: "no upstream figure at some N: that N is not judged",
		sums: []densitySummary{
			sum("fork/annotated", 10, 3, 4, 100, nan),
			sum("fork/annotated", 30, 3, 9, 98, nan),
			sum("upstream/native-startup", 10, 3, 4.5, 100, nan),
		},
		want: []string{
			"—: 100 ms at 10 pods (`upstream/native-startup` 100); 98.0 ms at 30 pods (no `upstream/native-startup` figure); 30 pods against 10: 98.0 against 100 ms",
			"yes: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s)",
			"—: —",
		},
	}, {
		// Upstream's runs 120, 90, 140 ms and the fork's 140, 98, 150: the
		// p50s are 1.17× apart, the pairs' p50 1.09×. The times to all
		// Ready: the fork's p50 is later (9.6 s against 9.5 s), the pairs'
		// p50 0.99×.
		name: "where 3 runs pair up by index, the pairs decide: met",
		sums: []densitySummary{
			byRun(withNodeRange(sum("fork/annotated", 10, 3, 9.6, 140, nan), 98, 150), []float64{140, 98, 150}, []float64{9.6, 9.0, 10.1}),
			byRun(withNodeRange(sum("upstream/native-startup", 10, 3, 9.5, 120, nan), 90, 140), []float64{120, 90, 140}, []float64{9.7, 8.9, 10.2}),
		},
		want: []string{
			"yes: 140 (98.0–150) ms at 10 pods (`upstream/native-startup` 120 (90.0–140)); paired by run ×1.09 (1.07–1.17), 3 pairs",
			"yes: 9.60 s at 10 pods (`upstream/native-startup` 9.50 s, paired by run ×0.99 (0.99–1.01), 3 pairs)",
			"—: —",
		},
	}, {
		// Equal p50s, but two pairs of three 1.15× and more apart; the
		// same times to all Ready, the pairs' p50 1.05×.
		name: "where 3 runs pair up by index, the pairs decide: missed",
		sums: []densitySummary{
			byRun(withNodeRange(sum("fork/annotated", 30, 3, 20, 200, nan), 120, 230), []float64{120, 230, 200}, []float64{20, 21, 19}),
			byRun(withNodeRange(sum("upstream/native-startup", 30, 3, 20, 200, nan), 100, 300), []float64{100, 200, 300}, []float64{19, 20, 18}),
		},
		want: []string{
			"no: 200 (120–230) ms at 30 pods (`upstream/native-startup` 200 (100–300)); paired by run ×1.15 (0.67–1.20), 3 pairs",
			"no: 20.00 s at 30 pods (`upstream/native-startup` 20.00 s, paired by run ×1.05 (1.05–1.06), 3 pairs)",
			"—: —",
		},
	}, {
		name: "fewer than 3 pairs: the p50s decide",
		sums: []densitySummary{
			byRun(sum("fork/annotated", 10, 3, 9.4, 140, nan), []float64{140, 98}, []float64{9.4, 11}),
			byRun(sum("upstream/native-startup", 10, 3, 9.5, 120, nan), []float64{120, 90, 140}, []float64{9.7, 8.9, 10.2}),
		},
		want: []string{
			"no: 140 ms at 10 pods (`upstream/native-startup` 120)",
			"yes: 9.40 s at 10 pods (`upstream/native-startup` 9.50 s)",
			"—: —",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range densityGoals(tt.sums) {
				if strings.HasPrefix(v.Goal, "the node's CPU") || strings.HasPrefix(v.Goal, "all pods Ready") || strings.HasPrefix(v.Goal, "a′ p95") {
					got = append(got, v.Met+": "+v.Figure)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeDensityByRun(t *testing.T) {
	a, b := benchtest.WholeNodeRun(), benchtest.WholeNodeRun()
	b.Run = 1
	b.CPU.Gone.Groups["etcd"] = 8.3 // 10 ms more per pod
	s := summarizeDensity([]results.DensityRun{a, b})[0]
	if diff := cmp.Diff(map[int]float64{0: a.NodePerPodMs(), 1: b.NodePerPodMs()}, s.NodeByRun); diff != "" {
		t.Errorf("NodeByRun (-want +got):\n%s", diff)
	}
	readyA, _ := a.AllReadyMs()
	readyB, _ := b.AllReadyMs()
	if diff := cmp.Diff(map[int]float64{0: readyA, 1: readyB}, s.AllReadyByRun); diff != "" {
		t.Errorf("AllReadyByRun (-want +got):\n%s", diff)
	}
	if pr := pairRuns(s.NodeByRun, map[int]float64{0: a.NodePerPodMs() / 2, 1: b.NodePerPodMs() / 2, 2: 1}); pr.Pairs != 2 || pr.P50 != 2 || pr.Min != 2 || pr.Max != 2 {
		t.Errorf("pairRuns = %+v, want 2 pairs of ratio 2", pr)
	}
	// Two runs of one index (two invocations' files joined): no pairs.
	b.Run = 0
	if s := summarizeDensity([]results.DensityRun{a, b})[0]; s.NodeByRun != nil || s.AllReadyByRun != nil || s.Runs != 2 {
		t.Errorf("a repeated run index: NodeByRun %v, AllReadyByRun %v, %d runs; want nil, nil, 2", s.NodeByRun, s.AllReadyByRun, s.Runs)
	}
	if got := pairRuns(nil, map[int]float64{0: 1}).String(); got != "no runs pair up" {
		t.Errorf("no pairs: %q", got)
	}
}

func TestDensityCgroupsLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []results.DensityRun
		want string
	}{
		{name: "runs of older benchmarks: not recorded", runs: []results.DensityRun{{Way: "fork/annotated"}}, want: ""},
		{
			name: "dropped before each run",
			runs: []results.DensityRun{{MemoryCgroups: 14, Reclaimed: true}, {MemoryCgroups: 11, Reclaimed: true}, {MemoryCgroups: 20, Reclaimed: true}, {}},
			want: "Memory cgroups on the host at the runs' starts, dying ones included: 11 to 20 (p50 14, 3 runs); " +
				"the host's page cache was dropped before each run (BENCH_RECLAIM=1), so each began on the same host.",
		},
		{
			name: "left to pile up",
			runs: []results.DensityRun{{MemoryCgroups: 10}, {MemoryCgroups: 1900}, {MemoryCgroups: 3722}},
			want: "Memory cgroups on the host at the runs' starts, dying ones included: 10 to 3722 (p50 1900, 3 runs); " +
				"left as the runs left them (BENCH_RECLAIM=0): a host with thousands starts containers slower, and the later runs drift.",
		},
		{
			name: "some of each (runs appended from two benchmarks)",
			runs: []results.DensityRun{{MemoryCgroups: 10, Reclaimed: true}, {MemoryCgroups: 900}},
			want: "Memory cgroups on the host at the runs' starts, dying ones included: 10 to 900 (p50 10, 2 runs); the host's page cache was dropped before 1 of them.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, densityCgroupsLine(tc.runs)); diff != "" {
				t.Errorf("densityCgroupsLine (-want +got):\n%s", diff)
			}
		})
	}
}
