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
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestDensityRunWholeNode(t *testing.T) {
	r := benchtest.WholeNodeRun()
	// Each group: what it gained over 6 s, less 6 s at its idle rate, per
	// pod. The kubelet: 0.8 s - 0.06 s; containerd (its shims' and runc's
	// time is in its cgroup): 1.8 s - 0.03 s; the API server 0.7 s - 0.12 s;
	// etcd 0.2 s - 0.06 s.
	want := map[string]float64{"kubelet": 74, "containerd": 177, "kube-apiserver": 58, "etcd": 14}
	got := map[string]float64{}
	for _, g := range results.ServeGroups {
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
	// events created 40 + 20, updated 2 + 30 and status writes 30 + 20,
	// none at idle.
	api, ok := r.APIPerPod()
	if diff := cmp.Diff(results.APICounts{All: 19, EventCreates: 6, EventUpdates: 3.2, PodStatus: 5}, api, approx); !ok || diff != "" {
		t.Errorf("APIPerPod (-want +got), ok %v:\n%s", ok, diff)
	}
	// The updates while the pods go: 30 over 2 s, per pod.
	if v, ok := r.EventUpdatesWhileGoingPerPod(); !ok || math.Abs(v-3) > 1e-9 {
		t.Errorf("EventUpdatesWhileGoingPerPod = %v, %v; want 3, true", v, ok)
	}
	// With an idle rate (5 over 10 s): 1 less over those 2 s, 3 less over
	// both windows' 6 s.
	r.Idle.API.EventUpdates = 5
	if v, _ := r.EventUpdatesWhileGoingPerPod(); math.Abs(v-2.9) > 1e-9 {
		t.Errorf("EventUpdatesWhileGoingPerPod above an idle rate = %v, want 2.9", v)
	}
	if api, _ := r.APIPerPod(); math.Abs(api.EventUpdates-2.9) > 1e-9 {
		t.Errorf("APIPerPod's event updates above an idle rate = %v, want 2.9", api.EventUpdates)
	}
	// A run of an older benchmark counted the updates only by kind, over
	// both windows: the total from there, none while the pods go.
	r = benchtest.WholeNodeRun()
	for _, m := range []*results.APICounts{&r.API.Start, &r.API.Ready, &r.API.Delete, &r.API.Gone} {
		m.EventUpdates = 0
	}
	if api, _ := r.APIPerPod(); math.Abs(api.EventUpdates-3.2) > 1e-9 {
		t.Errorf("APIPerPod's event updates of an older run = %v, want 3.2 from its requests by kind", api.EventUpdates)
	}
	if v, ok := r.EventUpdatesWhileGoingPerPod(); ok || !math.IsNaN(v) {
		t.Errorf("EventUpdatesWhileGoingPerPod of an older run = %v, %v; want NaN, false", v, ok)
	}
	// A run that patched no event at all counted none at its marks, alike.
	delete(r.API.ByRequest, "PATCH events")
	if v, ok := r.EventUpdatesWhileGoingPerPod(); !ok || v != 0 {
		t.Errorf("EventUpdatesWhileGoingPerPod of a run without updates = %v, %v; want 0, true", v, ok)
	}
	r = benchtest.WholeNodeRun()

	// Runtime calls: what each operation gained over the 6 s, less 6 s at
	// its idle rate, per pod; the image list, which only the idle span saw,
	// counts against the windows all the same.
	ops, ok := r.RuntimeOpsPerPod()
	wantOps := results.RuntimeOps{"list_podsandbox": 4.8, "list_containers": 2.8, "container_status": 10, "list_images": -0.06}
	if diff := cmp.Diff(wantOps, ops, approx); !ok || diff != "" {
		t.Errorf("RuntimeOpsPerPod (-want +got), ok %v:\n%s", ok, diff)
	}
	if v := ops.Total(); math.Abs(v-17.54) > 1e-9 {
		t.Errorf("RuntimeOpsPerPod's total = %v, want 17.54", v)
	}
	for name, change := range map[string]func(r *results.DensityRun){
		"without the idle count":      func(r *results.DensityRun) { r.Idle.RuntimeOps = nil },
		"of a run that did not count": func(r *results.DensityRun) { r.RuntimeOps = nil },
		"without a mark":              func(r *results.DensityRun) { r.CPU.Gone = results.CPUMark{} },
	} {
		r := benchtest.WholeNodeRun()
		change(&r)
		if _, ok := r.RuntimeOpsPerPod(); ok {
			t.Errorf("RuntimeOpsPerPod %s", name)
		}
	}

	// Whatever was not read is NaN, and so is the node's total.
	unknown := map[string]func(r *results.DensityRun){
		"a group not read at one mark": func(r *results.DensityRun) {
			r.CPU.Gone.Groups = map[string]float64{"kubelet": 10.9, "containerd": 6.9, "etcd": 8.2}
		},
		"a group's idle not read": func(r *results.DensityRun) {
			r.Idle.Groups = map[string]float64{"kubelet": 0.1, "containerd": 0.05, "etcd": 0.1}
		},
		"a mark not taken": func(r *results.DensityRun) { r.CPU.Delete = results.CPUMark{} },
	}
	for name, change := range unknown {
		r := benchtest.WholeNodeRun()
		change(&r)
		if v := r.NodePerPodMs(); !math.IsNaN(v) {
			t.Errorf("%s: NodePerPodMs = %v, want NaN", name, v)
		}
	}
	r = benchtest.WholeNodeRun()
	r.Idle.API = nil
	if _, ok := r.APIPerPod(); ok {
		t.Error("APIPerPod without the idle count")
	}
	r = benchtest.WholeNodeRun()
	r.API = nil
	if _, ok := r.APIPerPod(); ok {
		t.Error("APIPerPod of a run that did not count")
	}
	// Without its cgroup the kubelet's figure is its process's, from /proc.
	r = benchtest.WholeNodeRun()
	r.Idle.Groups = nil
	if v := r.KubeletFigureMs(); math.Abs(v-74) > 1e-9 || !math.IsNaN(r.GroupPerPodMs("kubelet")) {
		t.Errorf("KubeletFigureMs = %v without the cgroup, want /proc's 74", v)
	}
}
