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
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"none", nil, 50, math.NaN()},
		{"one", []float64{7}, 95, 7},
		{"median of odd", []float64{1, 2, 3}, 50, 2},
		{"median of even: lower (nearest rank)", []float64{1, 2, 3, 4}, 50, 2},
		{"p95 of 20 is the 19th", seq(20), 95, 19},
		{"p95 of 10 is the max", seq(10), 95, 10},
		{"p0 is the min", seq(5), 0, 1},
		{"p100 is the max", seq(5), 100, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percentile(tt.sorted, tt.p)
			if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

const msNS = int64(1e6)

// svcSample is a service pod of one sidecar and an app, times in ms.
func svcSample(way string, ready, appStart, appExit, signal int64) Sample {
	return Sample{
		Way: way, Kind: KindService, Sidecars: 1, Create: 0,
		ContainersReady: (appStart + 100) * msNS, Delete: (appStart + 500) * msNS, Gone: (signal + 400) * msNS,
		Containers: []Container{
			{Name: "sc1", Sidecar: true, Started: 100 * msNS, Up: (ready - 50) * msNS, Ready: ready * msNS, Signal: signal * msNS, Exited: (signal + 5) * msNS},
			{Name: "app", Created: (appStart - 30) * msNS, Started: appStart * msNS, Exited: appExit * msNS},
		},
	}
}

func TestComputeMetrics(t *testing.T) {
	tests := []struct {
		name string
		s    Sample
		want Metrics
	}{
		{
			name: "service pod: a, a', c, d, e",
			s:    svcSample("fork/annotated", 1000, 1040, 2000, 2010),
			want: Metrics{"a": 40, "a1": 10, "a0": 90, "a2": 60, "a3": 30, "c": 10, "d1": 2410 - 1540, "e1": 1140},
		},
		{
			name: "postStart: the hook's return counts when it is earlier than the probe",
			s: Sample{Kind: KindService, Sidecars: 1, Containers: []Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Hook: 800 * msNS},
				{Name: "app", Started: 850 * msNS},
			}},
			want: Metrics{"a": 50},
		},
		{
			name: "Job pod: b from the last app exit; no c, d, e",
			s: Sample{Kind: KindJob, Sidecars: 1, Succeeded: 3300 * msNS, ContainersReady: 1500 * msNS, Containers: []Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Signal: 3100 * msNS},
				{Name: "app", Started: 1000 * msNS, Exited: 3000 * msNS},
			}},
			want: Metrics{"a": 100, "b": 300},
		},
		{
			name: "the benchmark's own stop: c's floor and the kill path, nothing else",
			s: Sample{Kind: KindStop, Create: 0, ContainersReady: 700 * msNS, StopCall: 1000 * msNS, StopReturn: 1320 * msNS,
				Containers: []Container{{Name: "app", Started: 200 * msNS, Signal: 1012 * msNS, Exited: 1312 * msNS}}},
			want: Metrics{"c0": 8, "c1": 12},
		},
		{
			name: "a stop that never returned: no floor",
			s: Sample{Kind: KindStop, StopCall: 1000 * msNS,
				Containers: []Container{{Name: "app", Signal: 1012 * msNS, Exited: 1312 * msNS}}},
			want: Metrics{"c1": 12},
		},
		{
			name: "no sidecars: only d and e",
			s: Sample{Kind: KindService, Sidecars: 3, Create: 0, ContainersReady: 700 * msNS, Delete: 1000 * msNS, Gone: 1600 * msNS,
				Containers: []Container{{Name: "sc1", Ready: 300 * msNS}, {Name: "app", Started: 200 * msNS, Exited: 1300 * msNS}}},
			want: Metrics{"d3": 600, "e3": 700},
		},
		{
			name: "nothing seen",
			s:    Sample{Kind: KindService},
			want: Metrics{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ComputeMetrics(&tt.s)); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeAndTable(t *testing.T) {
	var samples []Sample
	for i, v := range []float64{30, 10, 20} {
		samples = append(samples, Sample{Way: "fork/annotated", Repeat: i, Metrics: Metrics{"a": v}})
	}
	samples = append(samples, Sample{Way: "fork/native-startup", Metrics: Metrics{"a": 250.4, "b": 900}})
	sum := Summarize(samples)
	st := sum["a"]["fork/annotated"]
	if st.N != 3 || st.P50 != 20 || st.P95 != 30 || st.Max != 30 || st.Min != 10 || st.MedianSampleAt != 2 {
		t.Errorf("stats = %+v", st)
	}
	var b strings.Builder
	Table(&b, sum, []string{"fork/annotated", "fork/native-startup", "upstream/none"})
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

func TestParseGoBenchAndTable(t *testing.T) {
	out := "patched\tgoos: linux\n" +
		"patched\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     11000 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"patched\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     13000 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"patched\tBenchmarkComputePodActions/two-annotated-sidecars-2\t   20000\t     13200 ns/op\t    5880 B/op\t     217 allocs/op\n" +
		"upstream\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     11500 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"upstream\tPASS\n" +
		"no tab here\n"
	benches, err := ParseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []GoBench{
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 11000, BPerOp: 5464, AllocsPerOp: 211},
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 13000, BPerOp: 5464, AllocsPerOp: 211},
		{Tree: "patched", Name: "BenchmarkComputePodActions/two-annotated-sidecars", Ops: 20000, NsPerOp: 13200, BPerOp: 5880, AllocsPerOp: 217},
		{Tree: "upstream", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 11500, BPerOp: 5464, AllocsPerOp: 211},
	}
	if diff := cmp.Diff(want, benches); diff != "" {
		t.Fatalf("parsed (-want +got):\n%s", diff)
	}
	var b strings.Builder
	GoBenchTable(&b, benches)
	wantTable := `| benchmark | upstream | patched | patched vs upstream |
| --- | ---: | ---: | ---: |
| no-sidecars | 11.50 µs, 5464 B, 211 allocs (median of 1) | 12.00 µs, 5464 B, 211 allocs (median of 2) | ~ (p=1.000 n=1+2) |
| two-annotated-sidecars | — | 13.20 µs, 5880 B, 217 allocs (median of 1) | — |
`
	if diff := cmp.Diff(wantTable, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestApplyLog(t *testing.T) {
	log := "2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.100Z name=sc1 event=started pid=1\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.300Z name=sc1 event=ready\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.400Z name=wait-ready event=hook-end\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:00.450Z name=sc1 event=ready-served\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:01.450Z name=sc1 event=ready-served\n" +
		"2026-11-22T22:00:00.000000001Z stdout P half a line\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:02.000Z name=other event=sigterm\n" +
		"2026-11-22T22:00:00.000000001Z stdout F 2026-11-22T22:00:03.000Z name=sc1 event=sigterm\n"
	c := Container{Name: "sc1"}
	applyLog(&c, log)
	at := func(s string) int64 {
		t.Helper()
		ts, err := time.Parse(time.RFC3339Nano, "2026-11-22T22:00:0"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return ts.UnixNano()
	}
	want := Container{Name: "sc1", Up: at("0.300"), Hook: at("0.400"), Ready: at("0.450"), Signal: at("3.000")}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("container (-want +got):\n%s", diff)
	}
}

func TestNiceStep(t *testing.T) {
	for _, tt := range []struct{ span, want float64 }{
		{0, 1}, {9, 1}, {10, 1}, {11, 2}, {35, 5}, {100, 10}, {1500, 200}, {8000, 1000}, {12000, 2000},
	} {
		if got := niceStep(tt.span); got != tt.want {
			t.Errorf("niceStep(%v) = %v, want %v", tt.span, got, tt.want)
		}
	}
}

func TestWriteTimeline(t *testing.T) {
	s := svcSample("fork/annotated", 1000, 1040, 2000, 2010)
	s.Metrics = ComputeMetrics(&s)
	s.Create = 1 // 0 means "not seen"
	job := Sample{Way: "x", Kind: KindJob, Succeeded: 2 * 1000 * msNS, Containers: []Container{{Name: "app", Started: 10 * msNS}}}
	tests := []struct {
		name     string
		panels   []Panel
		contains []string
	}{
		{
			name:   "service pod, scenario c",
			panels: []Panel{{Label: "fork/annotated <svc>", Sample: s, Key: "c"}},
			contains: []string{
				"fork/annotated &lt;svc&gt;   c = 10.0 ms", // escaped label and the value
				`fill="#e07b00"`,                    // a SIGTERM marker
				`fill="#1b7f3b"`,                    // a ready marker
				`fill="#ffd84d" fill-opacity="0.5"`, // the interval
				">create<", ">delete<", ">gone<", ">sc1<", ">app<",
			},
		},
		{
			name:     "a Job pod that never exited: the bar runs to the end",
			panels:   []Panel{{Label: "job", Sample: job, Key: "b"}},
			contains: []string{">Succeeded<", `fill="#66b377"`, ">2s<"},
		},
		{name: "no panels", contains: []string{"<svg", "</svg>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteTimeline(&b, "title & more", tt.panels); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			// Well-formed XML.
			d := xml.NewDecoder(strings.NewReader(out))
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed: %v\n%s", err, out)
				}
			}
			for _, c := range append(tt.contains, "title &amp; more") {
				if !strings.Contains(out, c) {
					t.Errorf("no %q in\n%s", c, out)
				}
			}
			if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
				t.Errorf("NaN or Inf in the SVG:\n%s", out)
			}
		})
	}
}

func TestPodFor(t *testing.T) {
	tests := []struct {
		way, kind          string
		n                  int
		inits, containers  int
		annotation         string
		restartPolicy      v1.RestartPolicy
		postStartOnSidecar bool
	}{
		{"fork/annotated", KindService, 3, 0, 4, "sc1,sc2,sc3", v1.RestartPolicyAlways, false},
		{"fork/native-startup", KindJob, 1, 1, 1, "", v1.RestartPolicyNever, false},
		{"fork/native-wait-ready", KindService, 5, 5, 1, "true", v1.RestartPolicyAlways, false},
		{"fork/poststart", KindJob, 1, 0, 2, "", v1.RestartPolicyNever, true},
		{"upstream/no-sidecars", KindJob, 1, 0, 1, "", v1.RestartPolicyNever, false},
		{"upstream/no-sidecars", KindService, 3, 0, 4, "", v1.RestartPolicyAlways, false},
		// c's floor: one plain container whatever the way.
		{"fork/annotated", KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
		{"fork/native-wait-ready", KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
		{"fork/poststart", KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
	}
	for _, tt := range tests {
		t.Run(tt.way+"/"+tt.kind, func(t *testing.T) {
			w, ok := WayByName(tt.way)
			if !ok {
				t.Fatalf("no way %s", tt.way)
			}
			p := PodFor(w, tt.kind, tt.n, "p")
			if len(p.Spec.InitContainers) != tt.inits || len(p.Spec.Containers) != tt.containers {
				t.Errorf("%d init containers and %d containers, want %d and %d", len(p.Spec.InitContainers), len(p.Spec.Containers), tt.inits, tt.containers)
			}
			got := p.Annotations["sidecar-kubelet.io/sidecars"] + p.Annotations["sidecar-kubelet.io/wait-ready"]
			if got != tt.annotation {
				t.Errorf("annotation %q, want %q", got, tt.annotation)
			}
			if p.Spec.RestartPolicy != tt.restartPolicy {
				t.Errorf("restartPolicy %s, want %s", p.Spec.RestartPolicy, tt.restartPolicy)
			}
			if has := p.Spec.Containers[0].Lifecycle != nil && p.Spec.Containers[0].Lifecycle.PostStart != nil; has != tt.postStartOnSidecar {
				t.Errorf("postStart on the first container: %v, want %v", has, tt.postStartOnSidecar)
			}
			ports := map[string]bool{}
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				for _, e := range c.Env {
					if e.Name == "PORT" {
						if ports[e.Value] {
							t.Errorf("port %s used twice", e.Value)
						}
						ports[e.Value] = true
					}
				}
			}
		})
	}
}

func TestJobRunTime(t *testing.T) {
	// Between 1 and 2 s, the same for the same pod, and spread over the
	// second: every 100 ms tenth gets some of 1000 pod names.
	tenths := map[int]int{}
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("w%d-job1-r%d-%x", i%7, i/7, 0x3be54)
		d := JobRunTime(name)
		if d < time.Second || d >= 2*time.Second {
			t.Fatalf("JobRunTime(%q) = %v, want [1s, 2s)", name, d)
		}
		if again := JobRunTime(name); again != d {
			t.Fatalf("JobRunTime(%q) = %v, then %v", name, d, again)
		}
		tenths[int((d-time.Second)/(100*time.Millisecond))]++
	}
	for tenth := 0; tenth < 10; tenth++ {
		if tenths[tenth] < 50 {
			t.Errorf("%d of 1000 run times in [1.%ds, 1.%ds), want at least 50: %v", tenths[tenth], tenth, tenth+1, tenths)
		}
	}

	w, _ := WayByName("fork/annotated")
	p := PodFor(w, KindJob, 1, "w0-job1-r0-1")
	var exitAfter string
	for _, c := range p.Spec.Containers {
		for _, e := range c.Env {
			if c.Name == "app" && e.Name == "EXIT_AFTER" {
				exitAfter = e.Value
			}
		}
	}
	if want := JobRunTime("w0-job1-r0-1").String(); exitAfter != want {
		t.Errorf("the Job app's EXIT_AFTER is %q, want %q", exitAfter, want)
	}
}

func TestPodForProbePeriods(t *testing.T) {
	for _, tt := range []struct {
		way        string
		kind       string
		probe      string // which probe the sidecars have
		period     int32  // as set in the spec (0: left to the API's defaults)
		failure    int32
		waitedOn   string
		kubeletWay bool
	}{
		{"fork/annotated", KindService, "readiness", 1, 120, "Readiness", true},
		{"fork/annotated-p10", KindService, "readiness", 0, 0, "Readiness", true},
		{"fork/native-wait-ready-p10", KindJob, "readiness", 0, 0, "Readiness", true},
		{"fork/native-startup", KindService, "startup", 1, 120, "Startup", true},
		{"fork/poststart-p10", KindJob, "readiness", 0, 0, "Readiness", false},
		{"upstream/no-sidecars", KindService, "readiness", 1, 120, "", false},
	} {
		t.Run(tt.way, func(t *testing.T) {
			w, ok := WayByName(tt.way)
			if !ok {
				t.Fatalf("no way %s", tt.way)
			}
			if got := w.WaitedOnProbe(); got != tt.waitedOn {
				t.Errorf("WaitedOnProbe() = %q, want %q", got, tt.waitedOn)
			}
			if got := w.WaitsOnKubeletProbe(); got != tt.kubeletWay {
				t.Errorf("WaitsOnKubeletProbe() = %v, want %v", got, tt.kubeletWay)
			}
			p := PodFor(w, tt.kind, 3, "p")
			n := 0
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				if !strings.HasPrefix(c.Name, "sc") {
					continue
				}
				n++
				probe := c.ReadinessProbe
				if tt.probe == "startup" {
					probe = c.StartupProbe
				}
				if probe == nil || probe.HTTPGet == nil {
					t.Fatalf("%s: no %s probe", c.Name, tt.probe)
				}
				if probe.PeriodSeconds != tt.period || probe.FailureThreshold != tt.failure {
					t.Errorf("%s: periodSeconds %d, failureThreshold %d, want %d and %d", c.Name, probe.PeriodSeconds, probe.FailureThreshold, tt.period, tt.failure)
				}
			}
			if want := map[string]int{KindService: 3, KindJob: 3}[tt.kind]; tt.way != "upstream/no-sidecars" && n != want {
				t.Errorf("%d sidecars, want %d", n, want)
			}
		})
	}
	// Every -p10 way is its sibling with the probes' defaults.
	for _, w := range Ways {
		if base, ok := strings.CutSuffix(w.Name, "-p10"); ok {
			b, found := WayByName(base)
			if !found || b.Style != w.Style || b.Kubelet != w.Kubelet || w.Period != 10 || b.Period != 1 {
				t.Errorf("%s: sibling %s %+v", w.Name, base, b)
			}
		}
	}
}

func TestParseProbeMetrics(t *testing.T) {
	text := `# HELP prober_probe_total [BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.
# TYPE prober_probe_total counter
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="failed"} 3
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="successful"} 2
prober_probe_total{container="sc1",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Readiness",result="unknown"} 1
prober_probe_total{container="sc2",namespace="sk-bench",pod="p1",pod_uid="u1",probe_type="Startup",result="successful"} 1
prober_probe_total{container="proxy",namespace="other",pod="p1",pod_uid="u9",probe_type="Readiness",result="successful"} 7
prober_probe_total{container="sc\"x",namespace="sk-bench",pod="p2",pod_uid="u2",probe_type="Liveness",result="failed"} 4 1700000000000
prober_probe_duration_seconds_count{container="sc1",namespace="sk-bench",pod="p1",probe_type="Readiness"} 2
process_start_time_seconds 1.79545968489e+09
`
	got, err := ParseProbeMetrics(strings.NewReader(text), "sk-bench")
	if err != nil {
		t.Fatal(err)
	}
	want := map[probeKey]*ProbeCount{
		{"p1", "sc1", "Readiness"}:  {Type: "Readiness", Successful: 2, Failed: 3, Unknown: 1},
		{"p1", "sc2", "Startup"}:    {Type: "Startup", Successful: 1},
		{"p2", "sc\"x", "Liveness"}: {Type: "Liveness", Failed: 4},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(probeKey{})); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if _, err := ParseProbeMetrics(strings.NewReader(`prober_probe_total{pod="x} 1`), "sk-bench"); err == nil {
		t.Error("an unterminated label value parsed")
	}
}

func TestParseProcStat(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "24516 (kube let) x) S 1 24516 24516 0 -1 4194560 30402 0 0 0 1234 567 0 0 20 0 14 0 224989 2092392448 26270 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0"
	got, err := ParseProcStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ProcCPU{Seconds: 18.01, StartTime: 224989}); math.Abs(got.Seconds-want.Seconds) > 1e-9 || got.StartTime != want.StartTime {
		t.Errorf("ParseProcStat = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20"} {
		if _, err := ParseProcStat(bad); err == nil {
			t.Errorf("ParseProcStat(%q) did not fail", bad)
		}
	}
	// This process's own stat parses too.
	if _, err := readProcCPU(os.Getpid()); err != nil {
		t.Errorf("readProcCPU(self): %v", err)
	}
}

const failedLine = `I1123 18:57:19.988427   24516 prober.go:123] "Probe failed" probeType="Readiness" pod="sk-bench/w0-svc1-r0-l0-1" podUID="aa4f" containerName="sc1" probeResult="failure" output="Get \"http://10.88.0.5:8081/ready\": dial tcp 10.88.0.5:8081: connect: connection refused"`

func TestParseProbeFailedLine(t *testing.T) {
	now := time.Date(2026, 11, 23, 19, 0, 0, 0, time.UTC)
	pod, p, ok := ParseProbeFailedLine(failedLine, now)
	if !ok {
		t.Fatal("not parsed")
	}
	want := loggedProbe{container: "sc1", probeType: "Readiness", at: time.Date(2026, 11, 23, 18, 57, 19, 988427000, time.UTC).UnixNano()}
	if pod != "sk-bench/w0-svc1-r0-l0-1" || p != want {
		t.Errorf("got %q %+v, want %+v", pod, p, want)
	}
	// A line of 31 December read on 1 January is last year's.
	if _, p, _ := ParseProbeFailedLine(strings.Replace(failedLine, "I1123 18:57", "I1231 23:59", 1), time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC)); time.Unix(0, p.at).UTC().Year() != 2026 {
		t.Errorf("year %d, want 2026", time.Unix(0, p.at).UTC().Year())
	}
	for _, line := range []string{
		strings.Replace(failedLine, `"Probe failed"`, `"Probe succeeded"`, 1),
		strings.Replace(failedLine, ` containerName="sc1"`, "", 1),
		"I1123 18:5",
	} {
		if _, _, ok := ParseProbeFailedLine(line, now); ok {
			t.Errorf("parsed %q", line)
		}
	}
}

func TestProbeLogCatchUp(t *testing.T) {
	path := t.TempDir() + "/kubelet.log"
	old := strings.Replace(failedLine, "w0-svc1-r0-l0-1", "before-the-run", 1) + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := newProbeLog(path, "sk-bench")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	second := strings.Replace(failedLine, "18:57:19.988427", "18:57:19.938427", 1)
	other := strings.Replace(failedLine, "sk-bench/", "elsewhere/", 1)
	// The second line is half written at the first read.
	fmt.Fprintf(f, "%s\n%s\nI1123 18:57:20.000000 1 x.go:1] \"Probe succeeded\"\n%s", failedLine, other, second[:40])
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s\n", second[40:])
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	got := l.take("w0-svc1-r0-l0-1")
	if len(got) != 2 || got[0].at >= got[1].at || got[0].container != "sc1" {
		t.Errorf("lines %+v, want the two of the pod in time order", got)
	}
	if again := l.take("w0-svc1-r0-l0-1"); len(again) != 0 || len(l.take("before-the-run")) != 0 {
		t.Errorf("taken twice, or a line from before the run: %+v", again)
	}
}

// costSample is a service pod of one annotated sidecar that starts at 1 s,
// serves its first 200 at 2 s, and whose probes were scraped at 3 s.
func costSample(way string, failedLog []int64, metricFailed int) Sample {
	return Sample{Way: way, Kind: KindService, Sidecars: 1, ProbesAt: 3000 * msNS, KubeletLog: failedLog != nil,
		Containers: []Container{
			{Name: "sc1", Sidecar: true, Started: 1000 * msNS, Ready: 2000 * msNS,
				Probes: []ProbeCount{{Type: "Readiness", Successful: 2, Failed: metricFailed, FailedLog: failedLog}}},
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
	samples := []Sample{
		costSample("fork/annotated-p10", logged, 2),
		costSample("fork/annotated-p10", logged, 2),
		costSample("fork/poststart", []int64{1100 * msNS}, 1),
		costSample("fork/no-sidecars", nil, 1),     // log not read
		{Way: "fork/annotated-p10", Kind: KindJob}, // no scrape: not counted
	}
	samples[3].Containers[0].Sidecar = false
	// A kubelet at --v=0: the log was read but holds no failure.
	quiet := costSample("fork/annotated", []int64{}, 2)
	quiet.KubeletLog = true
	samples = append(samples, quiet)
	segs := []Segment{
		{Way: "idle", KubeletPID: 7, Start: 0, End: 10e9, KubeletCPU: 0.2},
		{Way: "fork/annotated-p10", KubeletPID: 7, Pods: 8, Start: 10e9, End: 30e9, KubeletCPU: 1.2},
		{Way: "fork/annotated-p10", KubeletPID: 7, Pods: 8, Start: 30e9, End: 50e9, KubeletCPU: 1.0},
		{Way: "fork/poststart", KubeletPID: 7, Pods: 4, Start: 50e9, End: 60e9, Error: "the kubelet (pid 7) is gone"},
		{Way: "fork/no-sidecars", KubeletPID: 8, Pods: 4, Start: 60e9, End: 70e9, KubeletCPU: 0.5},
	}
	ways := []string{"fork/annotated-p10", "fork/poststart", "fork/no-sidecars", "upstream/no-sidecars", "fork/annotated"}
	costs := Costs(samples, segs, ways)
	p10 := costs["fork/annotated-p10"]
	want := &Cost{Way: "fork/annotated-p10", Pods: 2, Waiting: 2, WaitSeconds: 2,
		WaitRuns: 2 * (10 + 1), WaitCounted: 2 * (2 + 1), Uncounted: 2 * 8,
		AllRuns: 2 * (2 + 10), AllSeconds: 2 * 2, CPUSeconds: 2.2, WallSeconds: 40, SegPods: 16, IdleRate: 0.02}
	if diff := cmp.Diff(want, p10, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
		t.Errorf("annotated-p10 (-want +got):\n%s", diff)
	}
	// postStart: the hook saw it ready, so the kubelet's success is not in
	// the wait; no CPU time for a run whose kubelet went away.
	if ps := costs["fork/poststart"]; ps.WaitRuns != 1 || ps.WaitCounted != 1 || ps.CPUError == "" {
		t.Errorf("poststart: %+v", ps)
	}
	// No sidecars: nothing waits; the log was not read; no idle rate for
	// that kubelet.
	if ns := costs["fork/no-sidecars"]; ns.Waiting != 0 || ns.Uncounted != -1 || ns.AllRuns != 3 || !math.IsNaN(ns.IdleRate) {
		t.Errorf("no-sidecars: %+v", ns)
	}

	if q := costs["fork/annotated"]; q.Uncounted != -1 || q.WaitRuns != 3 || q.WaitCounted != 3 {
		t.Errorf("a quiet log counts for nothing: %+v", q)
	}

	var b strings.Builder
	CostTable(&b, costs, ways)
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
	if got, want := IdleLine(segs), "The kubelet with no pod of ours (measured before the ways): pid 7: 0.20 s of CPU in 10.0 s, 2.0% of a core."; got != want {
		t.Errorf("IdleLine = %q, want %q", got, want)
	}
}

func TestPeriodTable(t *testing.T) {
	var samples []Sample
	for i, v := range []float64{900, 950, 1000} {
		samples = append(samples,
			Sample{Way: "fork/annotated", Repeat: i, Metrics: Metrics{"a0": v}},
			Sample{Way: "fork/annotated-p10", Repeat: i, Metrics: Metrics{"a0": v * 9}},
			Sample{Way: "fork/poststart-p10", Repeat: i, Metrics: Metrics{"a0": v / 4}})
	}
	samples = append(samples, Sample{Way: "fork/no-sidecars", Metrics: Metrics{"e1": 1000}})
	sum := Summarize(samples)
	var b strings.Builder
	if !PeriodTable(&b, sum, []string{"fork/annotated", "fork/annotated-p10", "fork/poststart-p10", "fork/no-sidecars"}) {
		t.Fatal("no table")
	}
	want := "| a′ p50 / p95 ms (n) | periodSeconds 1 | periodSeconds 10 |\n" +
		"| --- | ---: | ---: |\n" +
		"| `fork/annotated` | 950 / 1000 (3) | 8550 / 9000 (3) |\n" +
		"| `fork/poststart` | — | 238 / 250 (3) |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	if PeriodTable(&b, sum, []string{"fork/no-sidecars"}) {
		t.Error("a table without a′")
	}
}

func TestLanesNote(t *testing.T) {
	if n := lanesNote([]Sample{{}, {}}); !strings.Contains(n, "one at a time") {
		t.Errorf("no parallel lanes: %q", n)
	}
	if n := lanesNote([]Sample{{Parallel: 4}}); !strings.Contains(n, "ran 4 lanes at once") {
		t.Errorf("4 lanes: %q", n)
	}
}
