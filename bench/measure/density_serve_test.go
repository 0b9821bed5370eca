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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestCountTimeWait(t *testing.T) {
	text := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:B6FD 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2276034 2 00000000181423bd 100 0 0 10 0
   1: 0100007F:9C40 0100007F:2808 06 00000000:00000000 03:00000F2A 00000000     0        0 0 3 0000000000000000
   2: 0100007F:9C42 0100007F:2808 01 00000000:00000000 00:00000000 00000000     0        0 2277441 1 0000000095de6df7 20 4 30 10 -1
   3: 0A580101:D2F0 0A580106:1F90 06 00000000:00000000 03:00000C11 00000000     0        0 0 3 0000000000000000

`
	n, err := countTimeWait(strings.NewReader(text))
	if err != nil || n != 2 {
		t.Errorf("countTimeWait = %d, %v; want 2 (the listener, the established one and the header are not)", n, err)
	}
	// The header's "st" column is no socket, even when nothing follows.
	if n, _ := countTimeWait(strings.NewReader("  sl  local_address rem_address   st\n")); n != 0 {
		t.Errorf("a header alone: %d", n)
	}
	// This machine's own tables parse.
	if _, err := readTimeWait(); err != nil {
		t.Errorf("readTimeWait: %v", err)
	}
}

func TestParseRuntimeOps(t *testing.T) {
	// As the kubelet serves it: the counter, its errors beside it (not
	// counted twice), and the histogram of the same operations.
	text := `# HELP kubelet_runtime_operations_total [ALPHA] Cumulative number of runtime operations by operation type.
# TYPE kubelet_runtime_operations_total counter
kubelet_runtime_operations_total{operation_type="container_status"} 130
kubelet_runtime_operations_total{operation_type="list_containers"} 328
kubelet_runtime_operations_total{operation_type="list_podsandbox"} 324
kubelet_runtime_operations_total{operation_type="start_container"} 20
kubelet_runtime_operations_errors_total{operation_type="container_status"} 4
kubelet_runtime_operations_duration_seconds_count{operation_type="list_containers"} 328
`
	got, err := parseRuntimeOps(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := results.RuntimeOps{"container_status": 130, "list_containers": 328, "list_podsandbox": 324, "start_container": 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseRuntimeOps (-want +got):\n%s", diff)
	}
	before := results.RuntimeOps{"container_status": 100, "list_containers": 300, "list_podsandbox": 324}
	if diff := cmp.Diff(results.RuntimeOps{"container_status": 30, "list_containers": 28, "start_container": 20}, got.Sub(before)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	if v := got.Sub(before).Total(); v != 78 {
		t.Errorf("Total = %v, want 78", v)
	}
	// Metrics without the counter: an error, never counts of 0.
	if _, err := parseRuntimeOps(strings.NewReader("process_start_time_seconds 1\n")); err == nil {
		t.Error("metrics without kubelet_runtime_operations_total gave counts")
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
	got, err := parseAPICounts(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	// Events: both groups' creates, their patches apart; pod status: PATCH
	// and PUT of every code, not GET.
	// Every request by verb and resource, codes and groups together.
	want := results.APICounts{All: 40 + 2 + 5 + 16 + 3 + 1 + 9 + 10 + 1, EventCreates: 42, EventUpdates: 5, PodStatus: 20, ByRequest: map[string]float64{
		"POST events": 42, "PATCH events": 5, "PATCH pods/status": 19, "PUT pods/status": 1, "GET pods/status": 9,
		"POST pods": 10, "WATCH pods": 1,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseAPICounts (-want +got):\n%s", diff)
	}
	before := results.APICounts{All: 77, EventCreates: 40, EventUpdates: 5, PodStatus: 15, ByRequest: map[string]float64{
		"POST events": 40, "PATCH events": 5, "PATCH pods/status": 14, "PUT pods/status": 1, "GET pods/status": 9,
		"POST pods": 7, "WATCH pods": 1,
	}}
	if diff := cmp.Diff(results.APICounts{All: 10, EventCreates: 2, PodStatus: 5, ByRequest: map[string]float64{
		"POST events": 2, "PATCH pods/status": 5, "POST pods": 3,
	}}, got.Sub(before)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	// Metrics without the counter (another endpoint, a cut body): an
	// error, never counts of 0.
	if _, err := parseAPICounts(strings.NewReader("process_start_time_seconds 1\n")); err == nil {
		t.Error("metrics without apiserver_request_total gave counts")
	}
	if _, err := parseAPICounts(strings.NewReader(`apiserver_request_total{verb="POST} 1`)); err == nil {
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
	at := func(all float64, byRequest map[string]float64) results.APICounts {
		return results.APICounts{All: all, ByRequest: byRequest}
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
