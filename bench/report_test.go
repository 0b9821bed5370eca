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
			want: Metrics{"a": 40, "a1": 10, "a0": 90, "c": 10, "d1": 2410 - 1540, "e1": 1140},
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
| b. Job: last app exit → pod Succeeded (API watch) | fork/native-startup | 1 | 900 | 900 | 900 | ≤ PLEG relist (1 s) + 500 ms, and ≤ native |
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
| no-sidecars | 11.50 µs, 5464 B, 211 allocs (median of 1) | 12.00 µs, 5464 B, 211 allocs (median of 2) | +4.3% |
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
