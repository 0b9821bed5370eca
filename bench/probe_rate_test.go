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
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
)

const sec = int64(1e9)

func TestRatesOf(t *testing.T) {
	scrape := func(at int64, runs, extra, limited, cpu float64) ProbeScrape {
		return ProbeScrape{At: at * sec, Runs: runs, Extra: extra, Limited: limited, CPU: cpu}
	}
	tests := []struct {
		name    string
		run     ProbeRate
		want    Rates
		wantErr bool
	}{{
		name: "only the scrapes inside the span count; peaks are per second",
		run: ProbeRate{Pods: 50, From: 10 * sec, To: 13 * sec, Scrapes: []ProbeScrape{
			scrape(5, 0, 0, 0, 1),           // before: the pods were starting
			scrape(10, 100, 60, 10, 2),      // the span's first
			scrape(11, 350, 260, 100, 2.5),  // 250 runs, 200 extra in this second
			scrape(12, 550, 420, 190, 3),    // 200 runs, 160 extra
			scrape(13, 850, 660, 280, 3.5),  // 300 runs, 240 extra
			scrape(14, 2000, 1000, 1000, 9), // after
		}},
		// The tightest window is the last second: 240 against 220.
		want: Rates{Seconds: 3, Runs: 250, Extra: 200, Periodic: 50, Limited: 90, PeakRuns: 300, PeakExtra: 240, PerSidecar: 5, KubeletCores: 0.5,
			Tightest: Window{Runs: 240, Seconds: 1}},
	}, {
		// The kubelet answered the first scrape 0.6 s after it was sent:
		// 230 runs between replies 0.5 s apart may have come in 1.1 s.
		name: "a window is as long as one scrape's reply less the other's request",
		run: ProbeRate{Pods: 50, From: 0, To: 2 * sec, Scrapes: []ProbeScrape{
			{Sent: sec / 10, At: 7 * sec / 10, Runs: 0, Extra: 0},
			{Sent: sec, At: 12 * sec / 10, Runs: 300, Extra: 230},
		}},
		want: Rates{Seconds: 0.5, Runs: 600, Extra: 460, Periodic: 140, PeakRuns: 600, PeakExtra: 230 / 1.1, PerSidecar: 12,
			KubeletCores: math.NaN(), Tightest: Window{Runs: 230, Seconds: 1.1}},
	}, {
		name: "no CPU readings: the kubelet's cores are unknown",
		run: ProbeRate{Pods: 2, From: 0, To: 2 * sec, Scrapes: []ProbeScrape{
			scrape(0, 0, 0, 0, 0), scrape(2, 4, 0, 0, 0)}},
		want: Rates{Seconds: 2, Runs: 2, Periodic: 2, PeakRuns: 2, PerSidecar: 1, KubeletCores: math.NaN(), Tightest: Window{Seconds: 2}},
	}, {
		name:    "one scrape in the span is not a rate",
		run:     ProbeRate{Way: "w", Pods: 1, From: 0, To: sec, Scrapes: []ProbeScrape{scrape(0, 0, 0, 0, 0), scrape(2, 1, 0, 0, 0)}},
		wantErr: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run.RatesOf()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("RatesOf() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseExtraProbeRuns(t *testing.T) {
	text := `# HELP kubelet_sidecar_extra_probe_runs_total [ALPHA] ...
# TYPE kubelet_sidecar_extra_probe_runs_total counter
kubelet_sidecar_extra_probe_runs_total{outcome="limited"} 1234
kubelet_sidecar_extra_probe_runs_total{outcome="run"} 5.678e+03
kubelet_sidecar_app_start_wait_duration_seconds_count 3
`
	run, limited, err := ParseExtraProbeRuns(strings.NewReader(text))
	if err != nil || run != 5678 || limited != 1234 {
		t.Errorf("ParseExtraProbeRuns = %v, %v, %v; want 5678, 1234, nil", run, limited, err)
	}
	// Upstream's kubelet has no such counter: zeros, no error.
	run, limited, err = ParseExtraProbeRuns(strings.NewReader("prober_probe_total{} 1\n"))
	if err != nil || run != 0 || limited != 0 {
		t.Errorf("without the counter: %v, %v, %v; want 0, 0, nil", run, limited, err)
	}
	if _, _, err := ParseExtraProbeRuns(strings.NewReader(`kubelet_sidecar_extra_probe_runs_total{outcome="run" 1` + "\n")); err == nil {
		t.Error("a line without its closing brace: no error")
	}
}

func TestProbeRatePodNeverTurnsReadyNorGivesUp(t *testing.T) {
	for _, w := range Ways {
		if w.Style == "poststart" {
			continue
		}
		t.Run(w.Name, func(t *testing.T) {
			pod := probeRatePod(w, "pr-x-0")
			var sc *v1.Container
			for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
				for i := range list {
					if list[i].Name == sidecarName(1) {
						sc = &list[i]
					}
				}
			}
			if sc == nil {
				t.Fatal("no sidecar sc1")
			}
			ready := ""
			for _, e := range sc.Env {
				if e.Name == "READY_AFTER" {
					ready = e.Value
				}
			}
			if ready != "never" {
				t.Errorf("READY_AFTER = %q, want never", ready)
			}
			probes := 0
			for _, p := range []*v1.Probe{sc.ReadinessProbe, sc.StartupProbe} {
				if p != nil {
					probes++
					period := w.Period // 10: the API's default, left unset
					if period == 10 {
						period = 0
					}
					if p.FailureThreshold < 1000 || p.PeriodSeconds != period {
						t.Errorf("probe: periodSeconds %d, failureThreshold %d; want %d and one that outlasts the run", p.PeriodSeconds, p.FailureThreshold, period)
					}
				}
			}
			if probes != 1 {
				t.Errorf("%d probes on the sidecar, want 1", probes)
			}
			if pod.Labels["bench.sidecar-kubelet.io/probe-rate"] != "true" || pod.Labels["bench.sidecar-kubelet.io"] != "true" {
				t.Errorf("labels %v: the run's clean-up would miss the pod", pod.Labels)
			}
		})
	}
}

func TestProbeRateGoals(t *testing.T) {
	run := func(way, kubelet string, pods int, extraPerSec, peakExtra float64) ProbeRate {
		// Two scrapes a second apart at a steady rate, then one second at
		// the peak.
		runs := float64(pods) // one periodic run per sidecar and second
		return ProbeRate{Way: way, Kubelet: kubelet, Pods: pods, From: 0, To: 3 * sec, Scrapes: []ProbeScrape{
			{At: 0},
			{At: sec, Runs: runs + extraPerSec, Extra: extraPerSec},
			{At: 2 * sec, Runs: 2 * (runs + extraPerSec), Extra: 2 * extraPerSec},
			{At: 3 * sec, Runs: 3*runs + 2*extraPerSec + peakExtra, Extra: 2*extraPerSec + peakExtra},
		}}
	}
	got := ProbeRateGoals([]ProbeRate{
		run("fork/annotated", "fork", 50, 190, 215),         // within the bound; 50 + 198 runs/s: 4.96 each
		run("fork/native-wait-ready", "fork", 50, 200, 260), // a second over bound + burst
		run("fork/annotated", "fork", 100, 200, 200),        // 3 each: beyond what the bound leaves room for
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
		{Way: "fork/native-startup", Kubelet: "fork", Pods: 50, From: 0, To: 2 * sec, Scrapes: []ProbeScrape{
			{At: 0}, {At: sec / 2, Runs: 150, Extra: 120}, {At: sec, Runs: 250, Extra: 170},
			{At: 3 * sec / 2, Runs: 320, Extra: 220}, {At: 2 * sec, Runs: 400, Extra: 270}}},
		// The same, one run more in the first half: over it.
		{Way: "fork/native-startup", Kubelet: "fork", Pods: 50, From: 0, To: 2 * sec, Scrapes: []ProbeScrape{
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
		// Each sidecar's checks.
		"fork/annotated: yes", "fork/native-wait-ready: yes", "fork/annotated: — (beyond the bound's room)",
		"fork/annotated-p10: yes", "fork/native-wait-ready-p10: yes", "fork/poststart: —",
		"fork/native-startup: yes", "fork/native-startup: yes",
	}
	if diff := cmp.Diff(want, met); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestProbeRateGoalsTable(t *testing.T) {
	var b strings.Builder
	ProbeRateGoalsTable(&b, []RateVerdict{
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
