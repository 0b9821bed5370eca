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
