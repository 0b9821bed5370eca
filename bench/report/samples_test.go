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
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const msNS = int64(1e6)

func TestSummarizeAndTable(t *testing.T) {
	var samples []results.Sample
	for i, v := range []float64{30, 10, 20} {
		samples = append(samples, results.Sample{Way: "fork/annotated", Repeat: i, Metrics: results.Metrics{"a": v}})
	}
	samples = append(samples, results.Sample{Way: "fork/native-startup", Metrics: results.Metrics{"a": 250.4, "b": 900}})
	sum := summarize(samples)
	st := sum["a"]["fork/annotated"]
	if st.N != 3 || st.P50 != 20 || st.P95 != 30 || st.Max != 30 || st.Min != 10 || st.MedianSampleAt != 2 {
		t.Errorf("stats = %+v", st)
	}
	var b strings.Builder
	table(&b, sum, []string{"fork/annotated", "fork/native-startup", "upstream/none"})
	want := `| scenario | way | n | p50 ms | p95 ms | max ms | goal |
| --- | --- | ---: | ---: | ---: | ---: | --- |
| a. sidecar ready (probe result) → first app start | fork/annotated | 3 | 20.0 | 30.0 | 30.0 | p95 < 100 ms |
|  | fork/native-startup | 1 | 250 | 250 | 250 |  |
| b. Job: last app exit → pod Succeeded (API watch) | fork/native-startup | 1 | 900 | 900 | 900 | p95 ≤ 1000 ms, and ≤ no sidecars |
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// costSample is a service pod of one annotated sidecar that starts at 1 s,
// serves its first 200 at 2 s, and whose probes were scraped at 3 s.
func costSample(way string, failedLog []int64, metricFailed int) results.Sample {
	return results.Sample{Way: way, Kind: results.KindService, Sidecars: 1, ProbesAt: 3000 * msNS, KubeletLog: failedLog != nil,
		Containers: []results.Container{
			{Name: "sc1", Sidecar: true, Started: 1000 * msNS, Ready: 2000 * msNS,
				Probes: []results.ProbeCount{{Type: "Readiness", Successful: 2, Failed: metricFailed, FailedLog: failedLog}}},
			{Name: "app", Started: 2100 * msNS},
		}}
}

func TestCosts(t *testing.T) {
	// Ten failed runs in the wait (50 ms apart from 1.5 s), of which the
	// metric counted 2, and one after the scrape (terminating).
	var logged []int64
	for i := int64(0); i < 10; i++ {
		logged = append(logged, (1500+50*i)*msNS)
	}
	logged = append(logged, 3500*msNS)
	samples := []results.Sample{
		costSample("fork/annotated-p10", logged, 2),
		costSample("fork/annotated-p10", logged, 2),
		costSample("fork/poststart", []int64{1100 * msNS}, 1),
		costSample("fork/no-sidecars", nil, 1),             // log not read
		{Way: "fork/annotated-p10", Kind: results.KindJob}, // no scrape: not counted
	}
	samples[3].Containers[0].Sidecar = false
	// A kubelet at --v=0: the log was read but holds no failure.
	quiet := costSample("fork/annotated", []int64{}, 2)
	quiet.KubeletLog = true
	samples = append(samples, quiet)
	segs := []results.Segment{
		{Way: "idle", KubeletPID: 7, Start: 0, End: 10e9, KubeletCPU: 0.2},
		{Way: "fork/annotated-p10", KubeletPID: 7, Pods: 8, Start: 10e9, End: 30e9, KubeletCPU: 1.2},
		{Way: "fork/annotated-p10", KubeletPID: 7, Pods: 8, Start: 30e9, End: 50e9, KubeletCPU: 1.0},
		{Way: "fork/poststart", KubeletPID: 7, Pods: 4, Start: 50e9, End: 60e9, Error: "the kubelet (pid 7) is gone"},
		{Way: "fork/no-sidecars", KubeletPID: 8, Pods: 4, Start: 60e9, End: 70e9, KubeletCPU: 0.5},
	}
	ways := []string{"fork/annotated-p10", "fork/poststart", "fork/no-sidecars", "upstream/no-sidecars", "fork/annotated"}
	byWay := costs(samples, segs, ways)
	p10 := byWay["fork/annotated-p10"]
	want := &cost{Way: "fork/annotated-p10", Pods: 2, Waiting: 2, WaitSeconds: 2,
		WaitRuns: 2 * (10 + 1), WaitCounted: 2 * (2 + 1), Uncounted: 2 * 8,
		AllRuns: 2 * (2 + 10), AllSeconds: 2 * 2, CPUSeconds: 2.2, WallSeconds: 40, SegPods: 16, IdleRate: 0.02}
	if diff := cmp.Diff(want, p10, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("annotated-p10 (-want +got):\n%s", diff)
	}
	// postStart: the hook saw it ready, so the kubelet's success is not in
	// the wait; no CPU time for a run whose kubelet went away.
	if ps := byWay["fork/poststart"]; ps.WaitRuns != 1 || ps.WaitCounted != 1 || ps.CPUError == "" {
		t.Errorf("poststart: %+v", ps)
	}
	// No sidecars: nothing waits; the log was not read; no idle rate for
	// that kubelet.
	if ns := byWay["fork/no-sidecars"]; ns.Waiting != 0 || ns.Uncounted != -1 || ns.AllRuns != 3 || !math.IsNaN(ns.IdleRate) {
		t.Errorf("no-sidecars: %+v", ns)
	}

	if q := byWay["fork/annotated"]; q.Uncounted != -1 || q.WaitRuns != 3 || q.WaitCounted != 3 {
		t.Errorf("a quiet log counts for nothing: %+v", q)
	}

	var b strings.Builder
	costTable(&b, byWay, ways)
	wantTable := `| way | sidecars waited on | mean wait ms | probe runs while waiting: all / in prober_probe_total | per second per waiting sidecar: all / in the metric | failed runs left out of the metric | probe runs/s per probed container, start → ready | kubelet CPU ms per pod | above idle | kubelet CPU, % of a core |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| ` + "`fork/annotated-p10`" + ` | 2 | 1000 | 22 / 6 | 11.00 / 3.00 | 16 | 6.00 | 138 | 87.5 | 5.5% |
| ` + "`fork/poststart`" + ` | 1 | 1000 | 1 / 1 | 1.00 / 1.00 | 0 | 1.50 | ? (the kubelet (pid 7) is gone) | — | — |
| ` + "`fork/no-sidecars`" + ` | — | — | — | — | — | 1.50 | 125 | — | 5.0% |
| ` + "`fork/annotated`" + ` | 1 | 1000 | 3 / 3 | 3.00 / 3.00 | — | 2.00 | — | — | — |
`
	if diff := cmp.Diff(wantTable, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	if got, want := idleLine(segs), "The kubelet with no pod of ours (measured before the ways): pid 7: 0.20 s of CPU in 10.0 s, 2.0% of a core."; got != want {
		t.Errorf("idleLine = %q, want %q", got, want)
	}
}

func TestPeriodTable(t *testing.T) {
	var samples []results.Sample
	for i, v := range []float64{900, 950, 1000} {
		samples = append(samples,
			results.Sample{Way: "fork/annotated", Repeat: i, Metrics: results.Metrics{"a0": v}},
			results.Sample{Way: "fork/annotated-p10", Repeat: i, Metrics: results.Metrics{"a0": v * 9}},
			results.Sample{Way: "fork/poststart-p10", Repeat: i, Metrics: results.Metrics{"a0": v / 4}})
	}
	samples = append(samples, results.Sample{Way: "fork/no-sidecars", Metrics: results.Metrics{"e1": 1000}})
	sum := summarize(samples)
	var b strings.Builder
	if !periodTable(&b, sum, []string{"fork/annotated", "fork/annotated-p10", "fork/poststart-p10", "fork/no-sidecars"}) {
		t.Fatal("no table")
	}
	want := "| a′ p50 / p95 ms (n) | periodSeconds 1 | periodSeconds 10 |\n" +
		"| --- | ---: | ---: |\n" +
		"| `fork/annotated` | 950 / 1000 (3) | 8550 / 9000 (3) |\n" +
		"| `fork/poststart` | — | 238 / 250 (3) |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	if periodTable(&b, sum, []string{"fork/no-sidecars"}) {
		t.Error("a table without a′")
	}
}
