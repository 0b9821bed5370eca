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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCountTimeWait(t *testing.T) {
	text := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:B6FD 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2276034 2 00000000181423bd 100 0 0 10 0
   1: 0100007F:9C40 0100007F:2808 06 00000000:00000000 03:00000F2A 00000000     0        0 0 3 0000000000000000
   2: 0100007F:9C42 0100007F:2808 01 00000000:00000000 00:00000000 00000000     0        0 2277441 1 0000000095de6df7 20 4 30 10 -1
   3: 0A580101:D2F0 0A580106:1F90 06 00000000:00000000 03:00000C11 00000000     0        0 0 3 0000000000000000

`
	n, err := CountTimeWait(strings.NewReader(text))
	if err != nil || n != 2 {
		t.Errorf("CountTimeWait = %d, %v; want 2 (the listener, the established one and the header are not)", n, err)
	}
	// The header's "st" column is no socket, even when nothing follows.
	if n, _ := CountTimeWait(strings.NewReader("  sl  local_address rem_address   st\n")); n != 0 {
		t.Errorf("a header alone: %d", n)
	}
	// This machine's own tables parse.
	if _, err := readTimeWait(); err != nil {
		t.Errorf("readTimeWait: %v", err)
	}
}

func TestParseAPICounts(t *testing.T) {
	text := `# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 40
apiserver_request_total{code="201",component="apiserver",dry_run="",group="events.k8s.io",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="PATCH",version="v1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 16
apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="GET",version="v1"} 9
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 10
apiserver_request_total{code="0",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 1
apiserver_request_duration_seconds_count{component="apiserver",resource="pods",verb="POST"} 10
apiserver_request_terminations_total{code="429"} 7
`
	got, err := ParseAPICounts(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	// Events: both groups' creates, not their patches; pod status: PATCH
	// and PUT of every code, not GET.
	// Every request by verb and resource, codes and groups together.
	want := APICounts{All: 40 + 2 + 5 + 16 + 3 + 1 + 9 + 10 + 1, EventCreates: 42, PodStatus: 20, ByRequest: map[string]float64{
		"POST events": 42, "PATCH events": 5, "PATCH pods/status": 19, "PUT pods/status": 1, "GET pods/status": 9,
		"POST pods": 10, "WATCH pods": 1,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseAPICounts (-want +got):\n%s", diff)
	}
	before := APICounts{All: 77, EventCreates: 40, PodStatus: 15, ByRequest: map[string]float64{
		"POST events": 40, "PATCH events": 5, "PATCH pods/status": 14, "PUT pods/status": 1, "GET pods/status": 9,
		"POST pods": 7, "WATCH pods": 1,
	}}
	if diff := cmp.Diff(APICounts{All: 10, EventCreates: 2, PodStatus: 5, ByRequest: map[string]float64{
		"POST events": 2, "PATCH pods/status": 5, "POST pods": 3,
	}}, got.Sub(before)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	// Metrics without the counter (another endpoint, a cut body): an
	// error, never counts of 0.
	if _, err := ParseAPICounts(strings.NewReader("process_start_time_seconds 1\n")); err == nil {
		t.Error("metrics without apiserver_request_total gave counts")
	}
	if _, err := ParseAPICounts(strings.NewReader(`apiserver_request_total{verb="POST} 1`)); err == nil {
		t.Error("a broken label parsed")
	}
}

func TestServeCgroups(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "kubelet", "cpuacct.usage"), "12500000000\n")
	write(filepath.Join(root, "kubelet", "cgroup.procs"), "41\n")
	write(filepath.Join(root, "containerd", "cpuacct.usage"), "3000000001\n")
	write(filepath.Join(root, "containerd", "cgroup.procs"), "7\n1234\n")
	write(filepath.Join(root, "etcd", "cpuacct.usage"), "garbage\n")
	// kube-apiserver: no cgroup.
	got := readServeGroups(root)
	want := map[string]float64{"kubelet": 12.5, "containerd": 3.000000001}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("readServeGroups (-want +got): a group not read must be absent, not 0:\n%s", diff)
	}
	if readServeGroups("") != nil {
		t.Error("no serve cgroup: groups read")
	}

	if err := checkServeCgroup(root, map[string]int{"kubelet": 41, "containerd": 1234, "etcd": 0}); err != nil {
		t.Errorf("checkServeCgroup: %v", err)
	}
	// 123 is a prefix of 1234: not in the cgroup.
	if err := checkServeCgroup(root, map[string]int{"containerd": 123}); err == nil || !strings.Contains(err.Error(), "not in its serve cgroup") {
		t.Errorf("a pid outside its cgroup: %v", err)
	}
	if err := checkServeCgroup(root, map[string]int{"kube-apiserver": 5}); err == nil {
		t.Error("a group without a cgroup passed the check")
	}
}

// wholeNodeRun is a run of 10 pods whose marks read every serve group,
// the API server's counters and the TIME_WAIT sockets: the start window
// 100 → 104 s, the end's 105 → 107 s, 6 s in all.
func wholeNodeRun() DensityRun {
	mark := func(at int64, kubelet, containerd, apiserver, etcd float64) CPUMark {
		return CPUMark{At: at * tsec, Kubelet: kubelet, KubeletStart: 7,
			Groups: map[string]float64{"kubelet": kubelet, "containerd": containerd, "kube-apiserver": apiserver, "etcd": etcd}}
	}
	return DensityRun{Way: "fork/annotated", Kubelet: "fork", N: 10, Start: 100 * tsec, AllReady: 104 * tsec,
		Idle: DensityIdle{Seconds: 10, Kubelet: 0.1, KubeletKnown: true,
			Groups: map[string]float64{"kubelet": 0.1, "containerd": 0.05, "kube-apiserver": 0.2, "etcd": 0.1},
			API:    &APICounts{All: 50, EventCreates: 0, PodStatus: 0}},
		CPU: DensityCPU{
			Start: mark(100, 10, 5, 20, 8), Ready: mark(104, 10.5, 6, 20.4, 8.1),
			Delete: mark(105, 10.6, 6.1, 20.5, 8.1), Gone: mark(107, 10.9, 6.9, 20.8, 8.2),
		},
		API: &DensityAPI{
			Start: APICounts{All: 1000, EventCreates: 100, PodStatus: 200}, Ready: APICounts{All: 1150, EventCreates: 140, PodStatus: 230},
			Delete: APICounts{All: 1160, EventCreates: 140, PodStatus: 230}, Gone: APICounts{All: 1230, EventCreates: 160, PodStatus: 250},
		},
		TimeWait: &DensitySockets{Start: 12, Ready: 300, Peak: 420},
	}
}

func TestDensityRunWholeNode(t *testing.T) {
	r := wholeNodeRun()
	// Each group: what it gained over 6 s, less 6 s at its idle rate, per
	// pod. The kubelet: 0.8 s - 0.06 s; containerd (its shims' and runc's
	// time is in its cgroup): 1.8 s - 0.03 s; the API server 0.7 s - 0.12 s;
	// etcd 0.2 s - 0.06 s.
	want := map[string]float64{"kubelet": 74, "containerd": 177, "kube-apiserver": 58, "etcd": 14}
	got := map[string]float64{}
	for _, g := range ServeGroups {
		got[g.Cgroup] = r.GroupPerPodMs(g.Cgroup)
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("GroupPerPodMs (-want +got):\n%s", diff)
	}
	if v := r.NodePerPodMs(); math.Abs(v-(74+177+58+14)) > 1e-9 {
		t.Errorf("NodePerPodMs = %v, want %v", v, 74+177+58+14)
	}
	if v := r.KubeletFigureMs(); math.Abs(v-74) > 1e-9 {
		t.Errorf("KubeletFigureMs = %v, want the cgroup's 74", v)
	}
	// Requests: 150 + 70 over the windows, less 6 s at 5/s, per pod;
	// events 40 + 20 and status writes 30 + 20, none at idle.
	api, ok := r.APIPerPod()
	if diff := cmp.Diff(APICounts{All: 19, EventCreates: 6, PodStatus: 5}, api, approx); !ok || diff != "" {
		t.Errorf("APIPerPod (-want +got), ok %v:\n%s", ok, diff)
	}

	// Whatever was not read is NaN, and so is the node's total.
	unknown := map[string]func(r *DensityRun){
		"a group not read at one mark": func(r *DensityRun) {
			r.CPU.Gone.Groups = map[string]float64{"kubelet": 10.9, "containerd": 6.9, "etcd": 8.2}
		},
		"a group's idle not read": func(r *DensityRun) {
			r.Idle.Groups = map[string]float64{"kubelet": 0.1, "containerd": 0.05, "etcd": 0.1}
		},
		"a mark not taken": func(r *DensityRun) { r.CPU.Delete = CPUMark{} },
	}
	for name, change := range unknown {
		r := wholeNodeRun()
		change(&r)
		if v := r.NodePerPodMs(); !math.IsNaN(v) {
			t.Errorf("%s: NodePerPodMs = %v, want NaN", name, v)
		}
	}
	r = wholeNodeRun()
	r.Idle.API = nil
	if _, ok := r.APIPerPod(); ok {
		t.Error("APIPerPod without the idle count")
	}
	r = wholeNodeRun()
	r.API = nil
	if _, ok := r.APIPerPod(); ok {
		t.Error("APIPerPod of a run that did not count")
	}
	// Without its cgroup the kubelet's figure is its process's, from /proc.
	r = wholeNodeRun()
	r.Idle.Groups = nil
	if v := r.KubeletFigureMs(); math.Abs(v-74) > 1e-9 || !math.IsNaN(r.GroupPerPodMs("kubelet")) {
		t.Errorf("KubeletFigureMs = %v without the cgroup, want /proc's 74", v)
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
	runs, err := ReadDensityRuns(path)
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
	sums := SummarizeDensity(runs)
	var b strings.Builder
	DensityNodeTable(&b, sums)
	want := "| `fork/annotated` | 10 | 74.0 | — (daemon alone 42.0) | — | — | — | — / — | — |\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("DensityNodeTable of an old run:\n%s\nwant the row\n%s", b.String(), want)
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
	for _, k := range []string{"nodeCpuMsPerPodAboveIdle", "timeWaitAtReady", "timeWaitPeak", "apiRequestsPerPod", "apiEventCreatesPerPod", "apiPodStatusWritesPerPod"} {
		if v, ok := s[k]; !ok || v != nil {
			t.Errorf("density.json %s = %v (present %v), want null", k, v, ok)
		}
	}
	if groups, _ := s["cpuMsPerPodAboveIdle"].(map[string]any); len(groups) != len(ServeGroups) || groups["containerd"] != nil {
		t.Errorf("density.json cpuMsPerPodAboveIdle = %v, want every group null", s["cpuMsPerPodAboveIdle"])
	}
}

func TestDensityNodeTableAndIdleLine(t *testing.T) {
	a, b := wholeNodeRun(), wholeNodeRun()
	b.Run = 1
	b.CPU.Gone.Groups["etcd"] = 8.3 // 10 ms more per pod
	b.TimeWait = &DensitySockets{Start: 0, Ready: 310, Peak: 500}
	sums := SummarizeDensity([]DensityRun{a, b})
	var sb strings.Builder
	DensityNodeSection(&sb, sums)
	want := "| `fork/annotated` | 10 | 74.0 | 177 | 58.0 | 14.0 | 323 (323–333) | 300 / 420 | 6.0 / 5.0 / 19.0 |\n\n"
	if !strings.HasSuffix(sb.String(), want) || !strings.HasPrefix(sb.String(), DensityNodeNote) {
		t.Errorf("DensityNodeSection:\n%s\nwant the note, then a table ending in\n%s", sb.String(), want)
	}
	line := DensityIdleLine([]DensityRun{a})
	wantLine := "Idle, no pod of ours (measured before the runs): with the fork kubelet, over 10 s: kubelet 1.0% of a core, " +
		"containerd + shims + runc 0.5%, kube-apiserver 2.0%, etcd 1.0%, 5.0 API requests a second."
	if line != wantLine {
		t.Errorf("DensityIdleLine =\n%q, want\n%q", line, wantLine)
	}
	if got := densityRunLine(a); !strings.Contains(got, "kubelet 74.0 ms/pod above idle, containerd — (with its shims and runc 177), the node 323, TIME_WAIT 300 at Ready, peak 420, 19.0 API requests/pod") {
		t.Errorf("densityRunLine = %q", got)
	}
}

func TestDensityGoalsWholeNode(t *testing.T) {
	nan := math.NaN()
	sum := func(way string, n, runs int, readyS, nodeMs, aPrimeP95 float64) DensitySummary {
		return DensitySummary{Way: way, N: n, Runs: runs, AllReadyP50: readyS * 1000, KubeletPerPod: nan,
			NodePerPod: nodeMs, APrimeP95: aPrimeP95}
	}
	tests := []struct {
		name string
		sums []DensitySummary
		want []string // the node's CPU, time to all Ready and a′ verdicts
	}{{
		name: "all met at every N",
		sums: []DensitySummary{
			sum("fork/annotated", 10, 3, 4, 110, 150),
			sum("fork/annotated", 110, 3, 40, 99.04, 900), // 1.1 × 90 = 99.0 as shown
			sum("fork/poststart", 10, 3, 4.2, 100, 160),
			sum("fork/poststart", 110, 3, 41, 95, 950),
			sum("upstream/native-startup", 10, 3, 4.5, 100, 600),
			sum("upstream/native-startup", 110, 3, 40.4, 90, 1500), // 40.0 ≤ 40.4: whole seconds as shown
		},
		want: []string{
			"yes: 110 ms at 10 pods (`upstream/native-startup` 100); 99.0 ms at 110 pods (`upstream/native-startup` 90.0); 110 pods against 10: 99.0 against 110 ms (`upstream/native-startup` 90.0 against 100)",
			"yes: 4.00 s at 10 pods (`fork/poststart` 4.20 s, `upstream/native-startup` 4.50 s); 40.00 s at 110 pods (`fork/poststart` 41.00 s, `upstream/native-startup` 40.40 s)",
			"yes: 150 ms at 10 pods (`fork/poststart` 160); 900 ms at 110 pods (`fork/poststart` 950)",
		},
	}, {
		name: "a miss at one N misses the goal",
		sums: []DensitySummary{
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
		name: "more per pod at the largest N than at the smallest",
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		sums: []DensitySummary{
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
		name: "no upstream figure at some N: that N is not judged",
		sums: []DensitySummary{
			sum("fork/annotated", 10, 3, 4, 100, nan),
			sum("fork/annotated", 30, 3, 9, 98, nan),
			sum("upstream/native-startup", 10, 3, 4.5, 100, nan),
		},
		want: []string{
			"—: 100 ms at 10 pods (`upstream/native-startup` 100); 98.0 ms at 30 pods (no `upstream/native-startup` figure); 30 pods against 10: 98.0 against 100 ms",
			"yes: 4.00 s at 10 pods (`upstream/native-startup` 4.50 s)",
			"—: —",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range DensityGoals(tt.sums) {
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

func TestNodeRoomError(t *testing.T) {
	pod := func(name string, phase v1.PodPhase) v1.Pod {
		return v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Status: v1.PodStatus{Phase: phase}}
	}
	done := []v1.Pod{pod("job", v1.PodSucceeded), pod("crashed", v1.PodFailed)}
	if err := nodeRoomError("n", 110, done, 110); err != nil {
		t.Errorf("110 pods on an empty node of 110 (finished pods take no room): %v", err)
	}
	busy := append(done, pod("b", v1.PodRunning), pod("a", v1.PodPending))
	if err := nodeRoomError("n", 110, busy, 108); err != nil {
		t.Errorf("108 beside 2: %v", err)
	}
	err := nodeRoomError("n", 110, busy, 110)
	if err == nil || !strings.Contains(err.Error(), "takes 110 pods (its maxPods) and runs 2 (ns/a, ns/b): no room for 110") {
		t.Errorf("110 beside 2: %v", err)
	}
}

func TestTimeWaitWatch(t *testing.T) {
	tw := startTimeWaitWatch()
	now := tw.sample()
	peak, err := tw.end()
	if err != nil {
		t.Fatalf("end: %v", err)
	}
	if peak < now {
		t.Errorf("peak %d below a reading of %d", peak, now)
	}
	// A run that stopped early ends it again in a defer: no panic, the
	// same answer or a later one.
	if again, err := tw.end(); err != nil || again < peak {
		t.Errorf("end again: %d, %v; want at least %d", again, err, peak)
	}
}

// TestNewDensityAPI checks that a run keeps the requests its two windows
// added, by kind, and not the API server's cumulative counts at each mark.
func TestNewDensityAPI(t *testing.T) {
	at := func(all float64, byRequest map[string]float64) APICounts {
		return APICounts{All: all, ByRequest: byRequest}
	}
	got := newDensityAPI(
		at(100, map[string]float64{"POST events": 40, "GET pods": 50, "WATCH nodes": 10}),
		at(130, map[string]float64{"POST events": 60, "GET pods": 60, "WATCH nodes": 10}),
		at(135, map[string]float64{"POST events": 60, "GET pods": 65, "WATCH nodes": 10}),
		at(150, map[string]float64{"POST events": 70, "GET pods": 65, "WATCH nodes": 10, "DELETE pods": 5}),
	)
	if diff := cmp.Diff(map[string]float64{"POST events": 30, "GET pods": 10, "DELETE pods": 5}, got.ByRequest); diff != "" {
		t.Errorf("ByRequest (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "WATCH nodes"); n != 0 {
		t.Errorf("the marks' cumulative counts are written: %s", data)
	}
}
