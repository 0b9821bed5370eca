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

package results_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const tsec = int64(time.Second)

func TestDensityRunFigures(t *testing.T) {
	mark := func(at int64, kubelet, containerd float64) results.CPUMark {
		return results.CPUMark{At: at * tsec, Kubelet: kubelet, Containerd: containerd, KubeletStart: 7, ContainerdStart: 9}
	}
	run := results.DensityRun{N: 10, Start: 100 * tsec, AllReady: 104 * tsec,
		Idle: results.DensityIdle{Seconds: 10, Kubelet: 0.1, Containerd: 0.05, KubeletKnown: true, ContainerdKnown: true},
		CPU: results.DensityCPU{
			Start: mark(100, 10, 5), Ready: mark(104, 10.5, 5.3),
			Delete: mark(105, 10.6, 5.35), Gone: mark(107, 10.9, 5.5),
		},
		Pods: []results.DensityPod{
			benchtest.DensityPodOf("a", 101*tsec, 120),
			{Name: "not started", Containers: []results.Container{{Name: "sc1", Sidecar: true, Up: 101 * tsec, Ready: 101 * tsec}, {Name: "app"}}},
			benchtest.DensityPodOf("b", 102*tsec, 80.5),
			{Name: "no sidecar", Containers: []results.Container{{Name: "sc1", Up: 101 * tsec, Ready: 101 * tsec}, {Name: "app", Started: 102 * tsec}}},
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
	if why := run.CPU.Restarted(); why != "" {
		t.Errorf("Restarted() = %q for one process throughout", why)
	}

	unknown := map[string]func(r *results.DensityRun){
		"no idle measured":           func(r *results.DensityRun) { r.Idle = results.DensityIdle{} },
		"kubelet's idle not read":    func(r *results.DensityRun) { r.Idle.KubeletKnown = false },
		"a mark not read":            func(r *results.DensityRun) { r.CPU.Gone.Kubelet = 0 },
		"a mark not taken (no time)": func(r *results.DensityRun) { r.CPU.Delete.At = 0 },
		"no pods":                    func(r *results.DensityRun) { r.N = 0 },
	}
	for name, change := range unknown {
		r := run
		change(&r)
		if got := r.KubeletPerPodMs(); !math.IsNaN(got) {
			t.Errorf("%s: KubeletPerPodMs = %v, want NaN", name, got)
		}
	}
	if _, ok := (results.DensityRun{Start: 1}).AllReadyMs(); ok {
		t.Error("AllReadyMs of a run whose pods never were all Ready")
	}

	restarted := run.CPU
	restarted.Gone.KubeletStart = 8
	if why := restarted.Restarted(); !strings.Contains(why, "kubelet") {
		t.Errorf("Restarted() = %q, want the kubelet named", why)
	}
	restarted = run.CPU
	restarted.Ready.ContainerdStart = 1
	if why := restarted.Restarted(); !strings.Contains(why, "containerd") {
		t.Errorf("Restarted() = %q, want containerd named", why)
	}
	// A process not read at a mark (0) is no restart.
	restarted = run.CPU
	restarted.Ready.KubeletStart = 0
	if why := restarted.Restarted(); why != "" {
		t.Errorf("Restarted() = %q for a mark without the kubelet's start time", why)
	}
}

func TestDensityRunProbeRates(t *testing.T) {
	r := results.DensityRun{Way: "fork/annotated", N: 10, Scrapes: []results.ProbeScrape{
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
	want := results.Rates{Seconds: 2.2, Runs: 300 / 2.2, Extra: 275 / 2.2, Periodic: 25 / 2.2, Limited: 5 / 2.2,
		PeakRuns: 150, PeakExtra: 140, PerSidecar: 30 / 2.2, KubeletCores: 0.4 / 2.2,
		Tightest: results.Window{Runs: 140, Seconds: 1}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("ProbeRates (-want +got):\n%s", diff)
	}
	if _, err := (results.DensityRun{Scrapes: r.Scrapes[:1]}).ProbeRates(); err == nil {
		t.Error("one scrape gave rates")
	}
}
