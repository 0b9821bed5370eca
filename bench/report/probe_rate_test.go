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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const sec = int64(1e9)

func TestProbeRateGoals(t *testing.T) {
	run := func(way, kubelet string, pods int, extraPerSec, peakExtra float64) results.ProbeRate {
		// Two scrapes a second apart at a steady rate, then one second at
		// the peak.
		runs := float64(pods) // one periodic run per sidecar and second
		return results.ProbeRate{Way: way, Kubelet: kubelet, Pods: pods, From: 0, To: 3 * sec, Scrapes: []results.ProbeScrape{
			{At: 0},
			{At: sec, Runs: runs + extraPerSec, Extra: extraPerSec},
			{At: 2 * sec, Runs: 2 * (runs + extraPerSec), Extra: 2 * extraPerSec},
			{At: 3 * sec, Runs: 3*runs + 2*extraPerSec + peakExtra, Extra: 2*extraPerSec + peakExtra},
		}}
	}
	got := probeRateGoals([]results.ProbeRate{
		run("fork/annotated", "fork", 50, 190, 215),         // within the bound; 50 + 198 runs/s: 4.96 each
		run("fork/native-wait-ready", "fork", 50, 200, 260), // a second over bound + burst
		run("fork/annotated", "fork", 100, 200, 200),        // 3 each, within the bound
		// 201/s over 3 s: 603 runs, within 200·3 + 20 (a token bucket lets
		// its burst through on top of its rate), every second under 220.
		run("fork/annotated-p10", "fork", 50, 201, 201),
		// 208/s over 3 s: 624 runs, more than 620.
		run("fork/native-wait-ready-p10", "fork", 50, 208, 208),
		run("fork/no-sidecars", "fork", 50, 0, 0), // nothing to judge
		run("upstream/native-startup", "upstream", 50, 0, 0),
		{Way: "fork/poststart", Kubelet: "fork", Pods: 50, Error: "not every sidecar ran"},
		// Scrapes half a second apart: 120 extra runs in one half (240/s,
		// the rate and the whole burst), within the bound.
		{Way: "fork/native-startup", Kubelet: "fork", Pods: 50, From: 0, To: 2 * sec, Scrapes: []results.ProbeScrape{
			{At: 0}, {At: sec / 2, Runs: 150, Extra: 120}, {At: sec, Runs: 250, Extra: 170},
			{At: 3 * sec / 2, Runs: 320, Extra: 220}, {At: 2 * sec, Runs: 400, Extra: 270}}},
		// The same, one run more in the first half: over it.
		{Way: "fork/native-startup", Kubelet: "fork", Pods: 50, From: 0, To: 2 * sec, Scrapes: []results.ProbeScrape{
			{At: 0}, {At: sec / 2, Runs: 146, Extra: 121}, {At: sec, Runs: 215, Extra: 170}}},
	})
	var met []string
	for _, v := range got {
		met = append(met, v.Way+": "+v.Met)
	}
	want := []string{
		// The bound, way by way.
		"fork/annotated: yes", "fork/native-wait-ready: no", "fork/annotated: yes",
		"fork/annotated-p10: yes", "fork/native-wait-ready-p10: no", "fork/poststart: —",
		"fork/native-startup: yes", "fork/native-startup: no",
		// Each sidecar's checks: shown, never judged.
		"fork/annotated: —", "fork/native-wait-ready: —", "fork/annotated: —",
		"fork/annotated-p10: —", "fork/native-wait-ready-p10: —", "fork/poststart: —",
		"fork/native-startup: —", "fork/native-startup: —",
	}
	if diff := cmp.Diff(want, met); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestProbeRateGoalsTable(t *testing.T) {
	var b strings.Builder
	probeRateGoalsTable(&b, []rateVerdict{
		{Goal: "g1", Way: "fork/annotated", Figure: "1", Met: "yes"},
		{Goal: "g1", Way: "fork/native-wait-ready", Figure: "2", Met: "no"},
		{Goal: "g2", Way: "fork/annotated", Figure: "3", Met: "—"},
		{Goal: "g1", Way: "fork/poststart", Figure: "4", Met: "yes"},
	})
	want := "| goal | way | figure | met |\n" +
		"| --- | --- | --- | --- |\n" +
		"| g1 | `fork/annotated` | 1 | yes |\n" +
		"|  | `fork/native-wait-ready` | 2 | no |\n" +
		"| g2 | `fork/annotated` | 3 | — |\n" +
		"| g1 | `fork/poststart` | 4 | yes |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestExtraCheckCosts checks the CPU of one extra check: what each serving
// process spent a second more with extra checks than the same sidecars
// probed on their period alone, over the extra checks a second, per probe
// handler; the kubelet's from /proc where the run read no serve cgroup.
func TestExtraCheckCosts(t *testing.T) {
	// Two scrapes 10 s apart: extra checks a second, and each serve
	// group's CPU seconds a second, in the order of results.ServeGroups.
	run := func(way, handler string, extra float64, cores ...float64) results.ProbeRate {
		first, last := results.ProbeScrape{At: 0}, results.ProbeScrape{At: 10 * sec, Runs: 10 * (50 + extra), Extra: 10 * extra}
		if len(cores) > 0 {
			first.Serve, last.Serve = map[string]float64{}, map[string]float64{}
			for i, g := range results.ServeGroups {
				first.Serve[g.Cgroup], last.Serve[g.Cgroup] = 100, 100+10*cores[i]
			}
		}
		return results.ProbeRate{Way: way, Kubelet: "fork", Handler: handler, Pods: 50, To: 10 * sec,
			Scrapes: []results.ProbeScrape{first, last}}
	}
	fromProc := func(way string, extra, kubeletCores float64) results.ProbeRate {
		p := run(way, "", extra)
		p.Scrapes[0].CPU, p.Scrapes[1].CPU = 5, 5+10*kubeletCores
		return p
	}
	tests := []struct {
		name string
		runs []results.ProbeRate
		want []string
	}{
		{
			name: "HTTP and exec, every serve group",
			runs: []results.ProbeRate{
				run("fork/annotated", "", 200, 0.20, 0.02, 0.01, 0.01),
				run("fork/no-sidecars", "", 0, 0.08, 0.02, 0.01, 0.01),
				run("fork/annotated", "exec", 100, 0.15, 0.40, 0.01, 0.01),
				run("fork/no-sidecars", "exec", 0, 0.05, 0.10, 0.01, 0.01),
			},
			want: []string{
				"What an extra check of a waiting sidecar's HTTP probe cost, `fork/annotated` (200 extra checks a second) against `fork/no-sidecars` (none), in CPU per extra check: kubelet 0.60 ms, containerd + shims + runc 0.00 ms, kube-apiserver 0.00 ms, etcd 0.00 ms.",
				"What an extra check of a waiting sidecar's exec probe cost, `fork/annotated` (100 extra checks a second) against `fork/no-sidecars` (none), in CPU per extra check: kubelet 1.00 ms, containerd + shims + runc 3.00 ms, kube-apiserver 0.00 ms, etcd 0.00 ms.",
			},
		},
		{
			name: "a run without serve cgroups: the kubelet's from /proc",
			runs: []results.ProbeRate{fromProc("fork/native-wait-ready", 150, 0.17), fromProc("fork/no-sidecars", 0, 0.08)},
			want: []string{"What an extra check of a waiting sidecar's HTTP probe cost, `fork/native-wait-ready` (150 extra checks a second) against `fork/no-sidecars` (none), in CPU per extra check: kubelet 0.60 ms."},
		},
		{
			name: "no baseline of the same handler, no extra checks, upstream's kubelet: nothing",
			runs: []results.ProbeRate{
				run("fork/annotated", "exec", 100, 0.15, 0.40, 0.01, 0.01),
				run("fork/no-sidecars", "", 0, 0.05, 0.10, 0.01, 0.01),
				run("fork/annotated-p10", "", 0, 0.05, 0.10, 0.01, 0.01),
				{Way: "upstream/native-startup", Kubelet: "upstream", Pods: 50},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, extraCheckCosts(tt.runs)); diff != "" {
				t.Errorf("extraCheckCosts (-want +got):\n%s", diff)
			}
		})
	}
}
