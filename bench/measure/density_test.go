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

package measure

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
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestDensityDelays(t *testing.T) {
	// The same seed, count and run give the same delays, whatever the way;
	// another run or seed others; all within [0.5 s, 3 s] in whole ms.
	a, b := densityDelays(28, 100, 1), densityDelays(28, 100, 1)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two draws of the same run differ (-first +second):\n%s", diff)
	}
	for _, other := range [][]time.Duration{densityDelays(28, 100, 2), densityDelays(29, 100, 1)} {
		if cmp.Equal(a, other) {
			t.Errorf("another run or seed drew the same delays")
		}
	}
	if got := densityDelays(28, 30, 0); len(got) != 30 || cmp.Equal(got, densityDelays(28, 100, 0)[:30]) {
		t.Errorf("30 pods: %d delays, or the same as the first 30 of 100 (the count seeds the draw)", len(got))
	}
	low, high := time.Duration(math.MaxInt64), time.Duration(0)
	for _, d := range densityDelays(1, 2000, 0) {
		if d < densityReadyMin || d > densityReadyMax || d%time.Millisecond != 0 {
			t.Fatalf("delay %v outside [0.5 s, 3 s] or not whole ms", d)
		}
		low, high = min(low, d), max(high, d)
	}
	if low > 600*time.Millisecond || high < 2900*time.Millisecond {
		t.Errorf("2000 delays span only %v to %v: not spread over the range", low, high)
	}
	if got := densityDelays(1, 0, 0); len(got) != 0 {
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
			got, err := parseDensityList(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseDensityList(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseDensityList(%q) (-want +got):\n%s", tt.in, diff)
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
			w, ok := results.WayByName(tt.way)
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

func TestReadDensityRunsAndRunLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "density.jsonl")
	runs := []results.DensityRun{benchtest.DensityRun("fork/annotated", 10, 0, 2000, 50, 100, 90), {Way: "fork/poststart", N: 10, Run: 1, Error: "create: boom"}}
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
	got, err := results.ReadDensityRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(runs, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.ReadDensityRuns(path); err == nil {
		t.Error("a broken line read")
	}

	for _, tt := range []struct {
		run  results.DensityRun
		want string
	}{
		{runs[0], "fork/annotated            10 pods, run 0: all Ready after 2.0 s, a′ p50 90.0 ms, kubelet 50.0 ms/pod above idle, containerd —, probe runs 110/s (100 extra, peak 100/s)"},
		{runs[1], "fork/poststart            10 pods, run 1: ERROR create: boom"},
	} {
		if got := densityRunLine(tt.run); got != tt.want {
			t.Errorf("densityRunLine =\n%q, want\n%q", got, tt.want)
		}
	}
	// A run that read the whole node (report's TestDensityNodeTableAndIdleLine
	// tables the same run): every serve group, the TIME_WAIT sockets and the
	// API server's requests.
	if got := densityRunLine(benchtest.WholeNodeRun()); !strings.Contains(got, "kubelet 74.0 ms/pod above idle, containerd — (with its shims and runc 177), the node 323, TIME_WAIT 300 at Ready, peak 420, 19.0 API requests/pod, 17.5 runtime calls/pod") {
		t.Errorf("densityRunLine = %q", got)
	}
}

// TestSettled checks when the end of a density run's window counts the
// node as back to idle: the API server's requests and the serve groups'
// CPU over a second within twice their idle rates plus a little.
func TestSettled(t *testing.T) {
	idle := results.DensityIdle{Seconds: 8, Groups: map[string]float64{"kubelet": 0.08, "kube-apiserver": 0.16},
		API: &results.APICounts{All: 16}}
	mark := func(at time.Duration, kubelet, apiserver float64) results.CPUMark {
		return results.CPUMark{At: int64(at), Groups: map[string]float64{"kubelet": kubelet, "kube-apiserver": apiserver}}
	}
	api := func(all float64) *results.APICounts { return &results.APICounts{All: all} }
	for _, tc := range []struct {
		name       string
		a, b       results.CPUMark
		apiA, apiB *results.APICounts
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
				id = results.DensityIdle{}
			}
			if got := settled(id, tc.a, tc.b, tc.apiA, tc.apiB); got != tc.want {
				t.Errorf("settled = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCountLeft(t *testing.T) {
	sandbox := func(name string, state runtimeapi.PodSandboxState) *runtimeapi.PodSandbox {
		return &runtimeapi.PodSandbox{Metadata: &runtimeapi.PodSandboxMetadata{Name: name}, State: state}
	}
	container := func(pod string, state runtimeapi.ContainerState) *runtimeapi.Container {
		return &runtimeapi.Container{Labels: map[string]string{"io.kubernetes.pod.name": pod}, State: state}
	}
	tests := []struct {
		name       string
		sandboxes  []*runtimeapi.PodSandbox
		containers []*runtimeapi.Container
		want       runtimeLeft
	}{
		{name: "nothing left"},
		{
			name:       "running: stopped by the kubelet after the delete",
			sandboxes:  []*runtimeapi.PodSandbox{sandbox("dn-fork-annotated-n10-r0-1", runtimeapi.PodSandboxState_SANDBOX_READY)},
			containers: []*runtimeapi.Container{container("dn-fork-annotated-n10-r0-1", runtimeapi.ContainerState_CONTAINER_RUNNING)},
			want:       runtimeLeft{Running: 2, All: 2},
		},
		{
			// What the garbage collection removes: the run is not over.
			name:      "stopped, not removed yet",
			sandboxes: []*runtimeapi.PodSandbox{sandbox("dn-fork-annotated-n10-r0-1", runtimeapi.PodSandboxState_SANDBOX_NOTREADY)},
			containers: []*runtimeapi.Container{
				container("dn-fork-annotated-n10-r0-1", runtimeapi.ContainerState_CONTAINER_EXITED),
				container("dn-fork-annotated-n10-r0-1", runtimeapi.ContainerState_CONTAINER_CREATED),
			},
			want: runtimeLeft{All: 3},
		},
		{
			name:       "other pods of the namespace do not count",
			sandboxes:  []*runtimeapi.PodSandbox{sandbox("sk-probe-1", runtimeapi.PodSandboxState_SANDBOX_READY), {}},
			containers: []*runtimeapi.Container{container("sk-probe-1", runtimeapi.ContainerState_CONTAINER_RUNNING), {}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, countLeft(tt.sandboxes, tt.containers)); diff != "" {
				t.Errorf("countLeft (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDensityTimeout(t *testing.T) {
	tests := []struct {
		name string
		flag time.Duration
		n    int
		want time.Duration
	}{
		{"few pods: 4 minutes", 0, 10, 4 * time.Minute},
		{"60 pods: 4 minutes either way", 0, 60, 4 * time.Minute},
		{"a full node: 4 s a pod", 0, 110, 440 * time.Second},
		{"the flag wins", time.Minute, 110, time.Minute},
	}
	for _, tt := range tests {
		if got := densityTimeout(tt.flag, tt.n); got != tt.want {
			t.Errorf("%s: densityTimeout(%v, %d) = %v, want %v", tt.name, tt.flag, tt.n, got, tt.want)
		}
	}
}
