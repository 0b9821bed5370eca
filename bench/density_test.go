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
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDensityDelays(t *testing.T) {
	// The same seed, count and run give the same delays, whatever the way;
	// another run or seed others; all within [0.5 s, 3 s] in whole ms.
	a, b := DensityDelays(28, 100, 1), DensityDelays(28, 100, 1)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two draws of the same run differ (-first +second):\n%s", diff)
	}
	for _, other := range [][]time.Duration{DensityDelays(28, 100, 2), DensityDelays(29, 100, 1)} {
		if cmp.Equal(a, other) {
			t.Errorf("another run or seed drew the same delays")
		}
	}
	if got := DensityDelays(28, 30, 0); len(got) != 30 || cmp.Equal(got, DensityDelays(28, 100, 0)[:30]) {
		t.Errorf("30 pods: %d delays, or the same as the first 30 of 100 (the count seeds the draw)", len(got))
	}
	low, high := time.Duration(math.MaxInt64), time.Duration(0)
	for _, d := range DensityDelays(1, 2000, 0) {
		if d < densityReadyMin || d > densityReadyMax || d%time.Millisecond != 0 {
			t.Fatalf("delay %v outside [0.5 s, 3 s] or not whole ms", d)
		}
		low, high = min(low, d), max(high, d)
	}
	if low > 600*time.Millisecond || high < 2900*time.Millisecond {
		t.Errorf("2000 delays span only %v to %v: not spread over the range", low, high)
	}
	if got := DensityDelays(1, 0, 0); len(got) != 0 {
		t.Errorf("no pods: %v", got)
	}
}

func TestParseDensityList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "0", want: nil},
		{in: " 0 ", want: nil},
		{in: "10,30", want: []int{10, 30}},
		{in: "10, 30 ,100", want: []int{10, 30, 100}},
		{in: "100,10", want: []int{100, 10}}, // run in the order given
		{in: "10,,30", wantErr: true},
		{in: "10,0", wantErr: true},
		{in: "-5", wantErr: true},
		{in: "ten", wantErr: true},
		{in: "10,10", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDensityList(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDensityList(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDensityList(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDensityPod(t *testing.T) {
	tests := []struct {
		way         string
		inits       int
		containers  int
		probe       string
		annotations map[string]string
	}{
		{"fork/annotated", 0, 2, "Readiness", map[string]string{"sidecar-kubelet.io/sidecars": "sc1"}},
		{"fork/native-wait-ready", 1, 1, "Readiness", map[string]string{"sidecar-kubelet.io/wait-ready": "true"}},
		{"fork/poststart", 0, 2, "Readiness", nil},
		{"fork/no-sidecars", 0, 2, "Readiness", nil},
		{"upstream/native-startup", 1, 1, "Startup", nil},
	}
	for _, tt := range tests {
		t.Run(tt.way, func(t *testing.T) {
			w, ok := WayByName(tt.way)
			if !ok {
				t.Fatalf("no way %s", tt.way)
			}
			name := densityPodName(w, 30, 2, 17)
			if want := "dn-" + strings.ReplaceAll(tt.way, "/", "-") + "-n30-r2-17"; name != want {
				t.Errorf("name %q, want %q", name, want)
			}
			pod := densityPod(w, name, 1234*time.Millisecond)
			if len(pod.Spec.InitContainers) != tt.inits || len(pod.Spec.Containers) != tt.containers {
				t.Errorf("%d init containers and %d containers, want %d and %d", len(pod.Spec.InitContainers), len(pod.Spec.Containers), tt.inits, tt.containers)
			}
			if diff := cmp.Diff(tt.annotations, pod.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if pod.Labels[densityLabel] != "true" || pod.Labels["bench.sidecar-kubelet.io"] != "true" {
				t.Errorf("labels %v: the run's watch or the clean-up would miss the pod", pod.Labels)
			}
			if got := densityProbe(w); got != tt.probe {
				t.Errorf("densityProbe = %q, want %q", got, tt.probe)
			}
			readyAfter := map[string]string{}
			for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
				for _, e := range c.Env {
					if e.Name == "READY_AFTER" {
						readyAfter[c.Name] = e.Value
					}
				}
			}
			if diff := cmp.Diff(map[string]string{"sc1": "1.234s"}, readyAfter); diff != "" {
				t.Errorf("READY_AFTER (-want +got):\n%s", diff)
			}
		})
	}
}

const tsec = int64(time.Second)

// densityPodOf is a pod whose sidecar's /ready turned 200 at upAt ns and
// whose app started aPrime ms later.
func densityPodOf(name string, upAt int64, aPrime float64) DensityPod {
	return DensityPod{Name: name, Containers: []Container{
		{Name: "sc1", Sidecar: true, Started: upAt - 500*msNS, Up: upAt, Ready: upAt + 20*msNS},
		{Name: "app", Created: upAt + 25*msNS, Started: upAt + int64(aPrime*1e6)},
	}}
}

// testDensityRun is a run of n pods from 100 s: every pod Ready readyMs
// after the first create, the kubelet kubeletMs CPU per pod above an idle
// rate of 0 (containerd not read), extra probe runs at extra/s and one
// periodic run per pod and second, over scrapes 1 s apart; a′ of its pods.
func testDensityRun(way string, n, run int, readyMs, kubeletMs, extra float64, aPrimes ...float64) DensityRun {
	start := 100 * tsec
	ready := start + int64(readyMs*1e6)
	used := kubeletMs / 1000 * float64(n)
	r := DensityRun{Way: way, Kubelet: strings.Split(way, "/")[0], N: n, Run: run, Start: start, AllReady: ready,
		Delete: ready + tsec, AllGone: ready + 3*tsec,
		Idle: DensityIdle{Seconds: 10, KubeletKnown: true},
		CPU: DensityCPU{
			Start:  CPUMark{At: start, Kubelet: 10},
			Ready:  CPUMark{At: ready, Kubelet: 10 + used/2},
			Delete: CPUMark{At: ready + tsec, Kubelet: 10 + used/2 + 1}, // the benchmark's own reading: not counted
			Gone:   CPUMark{At: ready + 3*tsec, Kubelet: 10 + used + 1},
		},
	}
	for i := int64(0); i*tsec <= ready-start; i++ {
		r.Scrapes = append(r.Scrapes, ProbeScrape{At: start + i*tsec, Runs: float64(i) * (float64(n) + extra), Extra: float64(i) * extra})
	}
	for i, a := range aPrimes {
		r.Pods = append(r.Pods, densityPodOf("p"+string(rune('a'+i)), start+tsec, a))
	}
	return r
}

func TestDensityRunFigures(t *testing.T) {
	mark := func(at int64, kubelet, containerd float64) CPUMark {
		return CPUMark{At: at * tsec, Kubelet: kubelet, Containerd: containerd, KubeletStart: 7, ContainerdStart: 9}
	}
	run := DensityRun{N: 10, Start: 100 * tsec, AllReady: 104 * tsec,
		Idle: DensityIdle{Seconds: 10, Kubelet: 0.1, Containerd: 0.05, KubeletKnown: true, ContainerdKnown: true},
		CPU: DensityCPU{
			Start: mark(100, 10, 5), Ready: mark(104, 10.5, 5.3),
			Delete: mark(105, 10.6, 5.35), Gone: mark(107, 10.9, 5.5),
		},
		Pods: []DensityPod{
			densityPodOf("a", 101*tsec, 120),
			{Name: "not started", Containers: []Container{{Name: "sc1", Sidecar: true, Up: 101 * tsec, Ready: 101 * tsec}, {Name: "app"}}},
			densityPodOf("b", 102*tsec, 80.5),
			{Name: "no sidecar", Containers: []Container{{Name: "sc1", Up: 101 * tsec, Ready: 101 * tsec}, {Name: "app", Started: 102 * tsec}}},
		},
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	if got, ok := run.AllReadyMs(); !ok || got != 4000 {
		t.Errorf("AllReadyMs = %v, %v; want 4000", got, ok)
	}
	if diff := cmp.Diff([]float64{120, 80.5}, run.APrimes(), approx); diff != "" {
		t.Errorf("APrimes (-want +got):\n%s", diff)
	}
	// Over 4 + 2 s: the kubelet 0.8 s, less 6 s at 0.01 of a core, over
	// 10 pods; containerd 0.45 s less 6 s at 0.005.
	if got := run.KubeletPerPodMs(); math.Abs(got-74) > 1e-9 {
		t.Errorf("KubeletPerPodMs = %v, want 74", got)
	}
	if got := run.ContainerdPerPodMs(); math.Abs(got-42) > 1e-9 {
		t.Errorf("ContainerdPerPodMs = %v, want 42", got)
	}
	if why := run.CPU.restarted(); why != "" {
		t.Errorf("restarted() = %q for one process throughout", why)
	}

	unknown := map[string]func(r *DensityRun){
		"no idle measured":           func(r *DensityRun) { r.Idle = DensityIdle{} },
		"kubelet's idle not read":    func(r *DensityRun) { r.Idle.KubeletKnown = false },
		"a mark not read":            func(r *DensityRun) { r.CPU.Gone.Kubelet = 0 },
		"a mark not taken (no time)": func(r *DensityRun) { r.CPU.Delete.At = 0 },
		"no pods":                    func(r *DensityRun) { r.N = 0 },
	}
	for name, change := range unknown {
		r := run
		change(&r)
		if got := r.KubeletPerPodMs(); !math.IsNaN(got) {
			t.Errorf("%s: KubeletPerPodMs = %v, want NaN", name, got)
		}
	}
	if _, ok := (DensityRun{Start: 1}).AllReadyMs(); ok {
		t.Error("AllReadyMs of a run whose pods never were all Ready")
	}

	restarted := run.CPU
	restarted.Gone.KubeletStart = 8
	if why := restarted.restarted(); !strings.Contains(why, "kubelet") {
		t.Errorf("restarted() = %q, want the kubelet named", why)
	}
	restarted = run.CPU
	restarted.Ready.ContainerdStart = 1
	if why := restarted.restarted(); !strings.Contains(why, "containerd") {
		t.Errorf("restarted() = %q, want containerd named", why)
	}
	// A process not read at a mark (0) is no restart.
	restarted = run.CPU
	restarted.Ready.KubeletStart = 0
	if why := restarted.restarted(); why != "" {
		t.Errorf("restarted() = %q for a mark without the kubelet's start time", why)
	}
}

func TestSpacedScrapes(t *testing.T) {
	at := func(secs ...float64) []ProbeScrape {
		var out []ProbeScrape
		for _, s := range secs {
			out = append(out, ProbeScrape{At: int64(s * 1e9)})
		}
		return out
	}
	tests := []struct {
		name     string
		in, want []ProbeScrape
	}{
		{"a second apart: all kept", at(0, 1, 2, 3), at(0, 1, 2, 3)},
		{"the last close to the one before: it replaces it", at(0, 1, 2, 2.3), at(0, 1, 2.3)},
		{"one close in the middle: dropped", at(0, 0.3, 1, 1.2, 2), at(0, 1, 2)},
		{"two, the last close: only the first (no rate)", at(0, 0.2), at(0)},
		{"the last exactly gap after: kept", at(0, 1, 1.5), at(0, 1, 1.5)},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, spacedScrapes(tt.in, 500*time.Millisecond)); diff != "" {
				t.Errorf("spacedScrapes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDensityRunProbeRates(t *testing.T) {
	r := DensityRun{Way: "fork/annotated", N: 10, Scrapes: []ProbeScrape{
		{At: 0, Runs: 0, Extra: 0, CPU: 1},
		{At: tsec, Runs: 150, Extra: 140, Limited: 0, CPU: 1.2},
		{At: 2 * tsec, Runs: 260, Extra: 240, Limited: 5, CPU: 1.3},
		{At: 2*tsec + 200*msNS, Runs: 300, Extra: 275, Limited: 5, CPU: 1.4}, // every pod Ready: closes the span
	}}
	got, err := r.ProbeRates()
	if err != nil {
		t.Fatal(err)
	}
	// Over 2.2 s; the last 1.2 s in one step: 150 runs, 135 extra.
	want := Rates{Seconds: 2.2, Runs: 300 / 2.2, Extra: 275 / 2.2, Periodic: 25 / 2.2, Limited: 5 / 2.2,
		PeakRuns: 150, PeakExtra: 140, PerSidecar: 30 / 2.2, KubeletCores: 0.4 / 2.2,
		Tightest: Window{Runs: 140, Seconds: 1}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("ProbeRates (-want +got):\n%s", diff)
	}
	if _, err := (DensityRun{Scrapes: r.Scrapes[:1]}).ProbeRates(); err == nil {
		t.Error("one scrape gave rates")
	}
}

func TestPodsWatchObserve(t *testing.T) {
	pod := func(name string, ready bool, phase v1.PodPhase) *v1.Pod {
		status := v1.ConditionFalse
		if ready {
			status = v1.ConditionTrue
		}
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.PodStatus{Phase: phase,
			Conditions: []v1.PodCondition{{Type: v1.ContainersReady, Status: v1.ConditionTrue}, {Type: v1.PodReady, Status: status}}}}
	}
	pw := newPodsWatch([]string{"a", "b"})
	before := pw.changed
	pw.observe(pod("a", false, v1.PodRunning), false, 1, false)
	pw.observe(pod("a", true, v1.PodRunning), false, 2, false)
	pw.observe(pod("a", true, v1.PodRunning), false, 3, false) // the first Ready counts
	pw.observe(pod("other", true, v1.PodRunning), true, 4, false)
	pw.observe(pod("b", false, v1.PodFailed), false, 5, false)
	pw.observe(pod("a", true, v1.PodRunning), true, 6, false)
	select {
	case <-before:
	default:
		t.Error("no change signalled")
	}
	got := struct {
		Ready, Gone map[string]int64
		Failed      map[string]bool
	}{pw.ready, pw.gone, pw.failed}
	want := struct {
		Ready, Gone map[string]int64
		Failed      map[string]bool
	}{map[string]int64{"a": 2}, map[string]int64{"a": 6}, map[string]bool{"b": true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("watch state (-want +got):\n%s", diff)
	}
	if !pw.seen["a"] || !pw.seen["b"] || pw.seen["other"] {
		t.Errorf("seen %v, want a and b only", pw.seen)
	}
	if pw.late != 0 {
		t.Errorf("%d late times from events alone, want none", pw.late)
	}
	// A reopened watch's list: b's Ready is first seen there (late), a's
	// was seen before and stays.
	pw.observe(pod("b", true, v1.PodRunning), false, 7, true)
	pw.observe(pod("a", true, v1.PodRunning), false, 8, true)
	if pw.late != 1 || pw.ready["b"] != 7 || pw.ready["a"] != 2 {
		t.Errorf("after a relist: %d late times, Ready %v; want 1, b at 7 and a at 2", pw.late, pw.ready)
	}
	if podReady(&v1.Pod{}) {
		t.Error("a pod without conditions is Ready")
	}
	ok := pw.waitFor(time.Second, func(pw *podsWatch) bool { return len(pw.ready) == 2 })
	late := pw.waitFor(10*time.Millisecond, func(pw *podsWatch) bool { return len(pw.ready) == 3 })
	if !ok || late {
		t.Errorf("waitFor: %v for a state that holds, %v for one that never will", ok, late)
	}
}

func TestSummarizeDensity(t *testing.T) {
	runs := []DensityRun{
		testDensityRun("fork/no-sidecars", 10, 0, 2000, 40, 0),
		testDensityRun("fork/annotated", 30, 0, 3000, 70, 150, 100, 300),
		testDensityRun("fork/annotated", 10, 0, 2000, 50, 100, 90),
		testDensityRun("fork/annotated", 10, 1, 3000, 70, 120, 110, 130),
		testDensityRun("fork/annotated", 10, 2, 2500, 60, 110, 120),
	}
	failed := testDensityRun("fork/annotated", 10, 3, 2000, 10, 190, 1)
	failed.Error = "3 of 10 pods Ready after 4m0s"
	runs = append(runs, failed)

	got := SummarizeDensity(runs)
	nan := math.NaN()
	// Runs of the benchmark before the serve cgroups (testDensityRun has
	// none): every figure of the whole node unknown, never 0.
	notMeasured := func(s DensitySummary) DensitySummary {
		s.GroupPerPod = [len(ServeGroups)]float64{nan, nan, nan, nan}
		s.NodePerPod, s.NodePerPodMin, s.NodePerPodMax = nan, nan, nan
		s.TimeWaitReady, s.TimeWaitPeak = nan, nan
		s.APIAll, s.APIEventCreates, s.APIPodStatus = nan, nan, nan
		return s
	}
	want := []DensitySummary{
		{Way: "fork/annotated", Kubelet: "fork", N: 10, Runs: 3, Failed: 1, Errors: []string{"run 3: 3 of 10 pods Ready after 4m0s"},
			AllReadyMs: []float64{2000, 3000, 2500}, AllReadyP50: 2500, AllReadyMin: 2000, AllReadyMax: 3000,
			APrimes: []float64{90, 110, 120, 130}, APrimeP50: 110, APrimeP95: 130,
			KubeletPerPod: 60, KubeletPerPodMin: 50, KubeletPerPodMax: 70, ContainerdPerPod: nan,
			Periodic: 10, Extra: 110, Limited: 0, RatesKnown: true,
			PeakExtra: 190, MaxMeanExtra: 190, Tightest: Window{Runs: 190, Seconds: 1}, ExtraRatesKnown: true}, // the failed run's extra runs count
		{Way: "fork/annotated", Kubelet: "fork", N: 30, Runs: 1,
			AllReadyMs: []float64{3000}, AllReadyP50: 3000, AllReadyMin: 3000, AllReadyMax: 3000,
			APrimes: []float64{100, 300}, APrimeP50: 100, APrimeP95: 300,
			KubeletPerPod: 70, KubeletPerPodMin: 70, KubeletPerPodMax: 70, ContainerdPerPod: nan,
			Periodic: 30, Extra: 150, RatesKnown: true, PeakExtra: 150, MaxMeanExtra: 150, Tightest: Window{Runs: 150, Seconds: 1}, ExtraRatesKnown: true},
		{Way: "fork/no-sidecars", Kubelet: "fork", N: 10, Runs: 1,
			AllReadyMs: []float64{2000}, AllReadyP50: 2000, AllReadyMin: 2000, AllReadyMax: 2000,
			APrimeP50: nan, APrimeP95: nan,
			KubeletPerPod: 40, KubeletPerPodMin: 40, KubeletPerPodMax: 40, ContainerdPerPod: nan,
			Periodic: 10, RatesKnown: true, Tightest: Window{Seconds: 1}, ExtraRatesKnown: true},
	}
	for i := range want {
		want[i] = notMeasured(want[i])
	}
	// The a′ parts: TestDensityAPrimeParts.
	parts := cmpopts.IgnoreFields(DensitySummary{}, "APrimeParts", "APrimePartP50", "APrimePartP95")
	if diff := cmp.Diff(want, got, parts, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("SummarizeDensity (-want +got):\n%s", diff)
	}

	var b strings.Builder
	DensityTable(&b, got)
	wantTable := "| way | pods | runs | all Ready, p50 s (range) | a′ p50 / p95 ms (pods) | probe runs/s: periodic + extra | extra runs/s, peak | held back/s |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| `fork/annotated` | 10 | 3 (1 failed) | 2.50 (2.00–3.00) | 110 / 130 (4) | 10 + 110 | 190 | 0 |\n" +
		"| `fork/annotated` | 30 | 1 | 3.00 (3.00–3.00) | 100 / 300 (2) | 30 + 150 | 150 | 0 |\n" +
		"| `fork/no-sidecars` | 10 | 1 | 2.00 (2.00–2.00) | — | 10 + 0 | 0 | 0 |\n" +
		"\nFailed runs (left out of the figures, but not of the extra runs' peak):\n\n" +
		"- `fork/annotated`, 10 pods, run 3: 3 of 10 pods Ready after 4m0s\n"
	if diff := cmp.Diff(wantTable, b.String()); diff != "" {
		t.Errorf("DensityTable (-want +got):\n%s", diff)
	}
	// The node's table of such runs: the kubelet's own process from /proc,
	// containerd's daemon alone in brackets, nothing else measured.
	b.Reset()
	DensityNodeTable(&b, got)
	wantNode := "| way | pods | kubelet | containerd + shims + runc | kube-apiserver | etcd | node, CPU ms/pod (range) | TIME_WAIT at Ready / peak | API requests/pod: events / pod status / all |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
		"| `fork/annotated` | 10 | 60.0 | — | — | — | — | — / — | — |\n" +
		"| `fork/annotated` | 30 | 70.0 | — | — | — | — | — / — | — |\n" +
		"| `fork/no-sidecars` | 10 | 40.0 | — | — | — | — | — / — | — |\n"
	if diff := cmp.Diff(wantNode, b.String()); diff != "" {
		t.Errorf("DensityNodeTable (-want +got):\n%s", diff)
	}

	// The JSON holds no NaN: unknown figures are null.
	js, err := densityJSON(runs, got)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summaries []map[string]any `json:"summaries"`
		Runs      []DensityRun     `json:"runs"`
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
	runs := []DensityRun{
		{Kubelet: "fork", Idle: DensityIdle{Seconds: 8, Kubelet: 0.16, Containerd: 0.04, KubeletKnown: true, ContainerdKnown: true}},
		{Kubelet: "fork", Idle: DensityIdle{Seconds: 8, Kubelet: 9}}, // the same kubelet's: the first says it
		{Kubelet: "upstream", Idle: DensityIdle{Seconds: 8, Kubelet: 0.08, KubeletKnown: true}},
		{Kubelet: "other"}, // not measured
	}
	want := "Idle, no pod of ours (measured before the runs): with the fork kubelet, over 8 s: the kubelet 2.0% of a core, containerd 0.5%; " +
		"with the upstream kubelet, over 8 s: the kubelet 1.0% of a core, containerd unknown."
	if got := DensityIdleLine(runs); got != want {
		t.Errorf("DensityIdleLine =\n%q, want\n%q", got, want)
	}
	if got := DensityIdleLine(nil); got != "" {
		t.Errorf("no runs: %q", got)
	}
}

func TestDensityGoals(t *testing.T) {
	// The runs' extra runs: meanExtra/s over 30 s, and peakExtra in their
	// busiest second; the tightest window is whichever is closer to the
	// bound.
	sum := func(way string, n int, readyS, cpuMs, meanExtra, peakExtra float64) DensitySummary {
		tightest := Window{Runs: peakExtra, Seconds: 1}
		if long := (Window{Runs: meanExtra * 30, Seconds: 30}); long.Over() > tightest.Over() {
			tightest = long
		}
		return DensitySummary{Way: way, N: n, Runs: 3, AllReadyP50: readyS * 1000, KubeletPerPod: cpuMs,
			MaxMeanExtra: meanExtra, PeakExtra: peakExtra, Tightest: tightest, ExtraRatesKnown: true,
			NodePerPod: math.NaN(), APrimeP95: math.NaN()} // judged in TestDensityGoalsWholeNode
	}
	nan := math.NaN()
	tests := []struct {
		name string
		sums []DensitySummary
		want []string
	}{{
		name: "all met",
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		sums: []DensitySummary{sum("fork/no-sidecars", 10, 2, 40, 0, 0)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range DensityGoals(tt.sums) {
				got = append(got, v.Way+": "+v.Met+": "+v.Figure)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDensityCurveAndGroups(t *testing.T) {
	sums := []DensitySummary{
		{Way: "fork/annotated", N: 10, AllReadyP50: 3000, APrimes: []float64{1, 2}},
		{Way: "fork/annotated", N: 30, AllReadyP50: math.NaN()}, // no figure: no point
		{Way: "fork/annotated", N: 100, AllReadyP50: 9000, APrimes: []float64{3}},
		{Way: "fork/poststart", N: 10, AllReadyP50: 3500, APrimes: []float64{4}},
	}
	got := DensityCurve(sums, func(s DensitySummary) (float64, float64, float64) { return s.AllReadyP50 / 1000, 1, 2 })
	want := []Series{
		{Name: "fork/annotated", Color: wayColor("fork/annotated"), Points: []SeriesPoint{{10, 3, 1, 2}, {100, 9, 1, 2}}},
		{Name: "fork/poststart", Color: wayColor("fork/poststart"), Points: []SeriesPoint{{10, 3.5, 1, 2}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DensityCurve (-want +got):\n%s", diff)
	}
	var labels []string
	for _, g := range DensityBoxGroups(sums) {
		labels = append(labels, g.Label)
	}
	if diff := cmp.Diff([]string{"fork/annotated, 10 pods", "fork/poststart, 10 pods", "fork/annotated, 100 pods"}, labels); diff != "" {
		t.Errorf("DensityBoxGroups: by pod count, then way (-want +got):\n%s", diff)
	}

	sum := map[string]map[string]*Stats{"a0": {
		"fork/annotated": {SamplesMillis: []float64{5, 6}},
		"fork/poststart": {SamplesMillis: []float64{7}},
	}}
	groups := SampleBoxGroups(sum, []string{"fork/poststart", "fork/no-sidecars", "fork/annotated"})
	wantGroups := []BoxGroup{
		{Label: "fork/poststart", Color: wayColor("fork/poststart"), Values: []float64{7}},
		{Label: "fork/annotated", Color: wayColor("fork/annotated"), Values: []float64{5, 6}},
	}
	if diff := cmp.Diff(wantGroups, groups); diff != "" {
		t.Errorf("SampleBoxGroups (-want +got):\n%s", diff)
	}
}

func TestReadDensityRunsAndRunLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "density.jsonl")
	runs := []DensityRun{testDensityRun("fork/annotated", 10, 0, 2000, 50, 100, 90), {Way: "fork/poststart", N: 10, Run: 1, Error: "create: boom"}}
	var lines []string
	for _, r := range runs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDensityRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(runs, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDensityRuns(path); err == nil {
		t.Error("a broken line read")
	}

	for _, tt := range []struct {
		run  DensityRun
		want string
	}{
		{runs[0], "fork/annotated            10 pods, run 0: all Ready after 2.0 s, a′ p50 90.0 ms, kubelet 50.0 ms/pod above idle, containerd —, probe runs 110/s (100 extra, peak 100/s)"},
		{runs[1], "fork/poststart            10 pods, run 1: ERROR create: boom"},
	} {
		if got := densityRunLine(tt.run); got != tt.want {
			t.Errorf("densityRunLine =\n%q, want\n%q", got, tt.want)
		}
	}
}

func TestDensityAPrimeParts(t *testing.T) {
	const up = 100 * tsec
	pod := DensityPod{Containers: []Container{
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
	if _, ok := (DensityPod{Containers: pod.Containers[1:]}).APrimeParts(); ok {
		t.Error("a pod without a sidecar has a′ parts")
	}
	sums := SummarizeDensity([]DensityRun{{Way: "fork/annotated", Kubelet: "fork", N: 1, Pods: []DensityPod{pod}}})
	var b strings.Builder
	DensityAPrimeSplit(&b, sums)
	if want := "| `fork/annotated` | 1 | 1100 / 1100 | 30.0 / 30.0 | 1000 / 1000 | 70.0 / 70.0 |"; !strings.Contains(b.String(), want) {
		t.Errorf("DensityAPrimeSplit wrote\n%s\nwant a row\n%s", b.String(), want)
	}
}

// TestSettled checks when the end of a density run's window counts the
// node as back to idle: the API server's requests and the serve groups'
// CPU over a second within twice their idle rates plus a little.
func TestSettled(t *testing.T) {
	idle := DensityIdle{Seconds: 8, Groups: map[string]float64{"kubelet": 0.08, "kube-apiserver": 0.16},
		API: &APICounts{All: 16}}
	mark := func(at time.Duration, kubelet, apiserver float64) CPUMark {
		return CPUMark{At: int64(at), Groups: map[string]float64{"kubelet": kubelet, "kube-apiserver": apiserver}}
	}
	api := func(all float64) *APICounts { return &APICounts{All: all} }
	for _, tc := range []struct {
		name       string
		a, b       CPUMark
		apiA, apiB *APICounts
		want       bool
	}{
		{"idle", mark(0, 1, 1), mark(time.Second, 1.03, 1.02), api(100), api(102), true},
		{"the kubelet still sends events", mark(0, 1, 1), mark(time.Second, 1.05, 1.2), api(100), api(160), false},
		{"few requests, but the CPU is busy", mark(0, 1, 1), mark(time.Second, 1.3, 1.02), api(100), api(102), false},
		{"near the bounds: 2 × 2/s + 5 requests, 2 × 0.03 + 0.05 of a core", mark(0, 1, 1), mark(time.Second, 1.05, 1.05), api(100), api(109), true},
		{"just past them", mark(0, 1, 1), mark(time.Second, 1.05, 1.05), api(100), api(110), false},
		{"no API counts: the CPU decides", mark(0, 1, 1), mark(time.Second, 1.02, 1.02), nil, api(500), true},
		{"no idle measured: nothing to wait for", mark(0, 1, 1), mark(time.Second, 5, 5), api(0), api(1000), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := idle
			if strings.HasPrefix(tc.name, "no idle") {
				id = DensityIdle{}
			}
			if got := settled(id, tc.a, tc.b, tc.apiA, tc.apiB); got != tc.want {
				t.Errorf("settled = %v, want %v", got, tc.want)
			}
		})
	}
}
