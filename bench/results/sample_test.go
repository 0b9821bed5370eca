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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const msNS = int64(1e6)

func TestComputeMetrics(t *testing.T) {
	tests := []struct {
		name string
		s    results.Sample
		want results.Metrics
	}{
		{
			name: "service pod: a, a', c, d, e",
			s:    benchtest.ServiceSample("fork/annotated", 1000, 1040, 2000, 2010),
			want: results.Metrics{"a": 40, "a1": 10, "a0": 90, "a2": 60, "a3": 30, "c": 10, "d1": 2410 - 1540, "e1": 1140},
		},
		{
			name: "postStart: the hook's return counts when it is earlier than the probe",
			s: results.Sample{Kind: results.KindService, Sidecars: 1, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Hook: 800 * msNS},
				{Name: "app", Started: 850 * msNS},
			}},
			want: results.Metrics{"a": 50},
		},
		{
			name: "Job pod: b from the last app exit; no c, d, e",
			s: results.Sample{Kind: results.KindJob, Sidecars: 1, Succeeded: 3300 * msNS, ContainersReady: 1500 * msNS, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Signal: 3100 * msNS},
				{Name: "app", Started: 1000 * msNS, Exited: 3000 * msNS},
			}},
			want: results.Metrics{"a": 100, "b": 300},
		},
		{
			name: "the benchmark's own stop: c's floor and the kill path, nothing else",
			s: results.Sample{Kind: results.KindStop, Create: 0, ContainersReady: 700 * msNS, StopCall: 1000 * msNS, StopReturn: 1320 * msNS,
				Containers: []results.Container{{Name: "app", Started: 200 * msNS, Signal: 1012 * msNS, Exited: 1312 * msNS}}},
			want: results.Metrics{"c0": 8, "c1": 12},
		},
		{
			name: "a stop that never returned: no floor",
			s: results.Sample{Kind: results.KindStop, StopCall: 1000 * msNS,
				Containers: []results.Container{{Name: "app", Signal: 1012 * msNS, Exited: 1312 * msNS}}},
			want: results.Metrics{"c1": 12},
		},
		{
			name: "a′'s create from containerd's log: the create of the app created first",
			s: results.Sample{Kind: results.KindService, Sidecars: 1, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Up: 880 * msNS},
				{Name: "app1", CreateCalled: 950 * msNS, CreateReturned: 985 * msNS, Created: 980 * msNS, Started: 1100 * msNS},
				{Name: "app2", CreateCalled: 940 * msNS, CreateReturned: 1000 * msNS, Created: 990 * msNS, Started: 1090 * msNS},
			}},
			want: results.Metrics{"a": 190, "a1": 80, "a0": 210, "a2": 100, "a3": 110, "a4": 35, "a5": 175},
		},
		{
			name: "a create whose return was not logged: no a4, and no a5",
			s: results.Sample{Kind: results.KindService, Sidecars: 1, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Ready: 900 * msNS, Up: 880 * msNS},
				{Name: "app", CreateCalled: 950 * msNS, Created: 980 * msNS, Started: 1100 * msNS},
			}},
			want: results.Metrics{"a": 200, "a1": 80, "a0": 220, "a2": 100, "a3": 120},
		},
		{
			name: "c's parts from containerd's log: the last app's stop returning → the first sidecar's stop call",
			s: results.Sample{Kind: results.KindService, Sidecars: 2, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, StopCalled: 2030 * msNS, Signal: 2040 * msNS},
				{Name: "sc2", Sidecar: true, StopCalled: 2025 * msNS, Signal: 2050 * msNS},
				{Name: "app1", Exited: 1990 * msNS, StopCalled: 1500 * msNS, StopReturned: 2000 * msNS},
				{Name: "app2", Exited: 2010 * msNS, StopCalled: 1500 * msNS, StopReturned: 2020 * msNS},
			}},
			want: results.Metrics{"c": 30, "c2": 5},
		},
		{
			name: "a sidecar stopped with the apps: c2 negative",
			s: results.Sample{Kind: results.KindService, Sidecars: 1, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, StopCalled: 1500 * msNS, Signal: 1800 * msNS},
				{Name: "app", Exited: 1700 * msNS, StopCalled: 1500 * msNS, StopReturned: 1710 * msNS},
			}},
			want: results.Metrics{"c": 100, "c2": -210},
		},
		{
			name: "an app's stop return not logged: no c2, c as before",
			s: results.Sample{Kind: results.KindService, Sidecars: 1, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, StopCalled: 2030 * msNS, Signal: 2040 * msNS},
				{Name: "app1", Exited: 1990 * msNS, StopCalled: 1500 * msNS, StopReturned: 2000 * msNS},
				{Name: "app2", Exited: 2010 * msNS},
			}},
			want: results.Metrics{"c": 30},
		},
		{
			name: "no sidecars: only d and e",
			s: results.Sample{Kind: results.KindService, Sidecars: 3, Create: 0, ContainersReady: 700 * msNS, Delete: 1000 * msNS, Gone: 1600 * msNS,
				Containers: []results.Container{{Name: "sc1", Ready: 300 * msNS}, {Name: "app", Started: 200 * msNS, Exited: 1300 * msNS}}},
			want: results.Metrics{"d3": 600, "e3": 700},
		},
		{
			name: "nothing seen",
			s:    results.Sample{Kind: results.KindService},
			want: results.Metrics{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, results.ComputeMetrics(&tt.s)); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}
