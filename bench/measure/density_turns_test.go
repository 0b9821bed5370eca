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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestDensityTurns(t *testing.T) {
	tests := []struct {
		name     string
		runs     int
		kubelets []string
		want     []DensityTurn
	}{
		{
			name: "three runs, two kubelets: every pair the other way round",
			runs: 3, kubelets: []string{"fork", "upstream"},
			want: []DensityTurn{{"fork", 0, 1}, {"upstream", 0, 2}, {"fork", 1, 2}, {"upstream", 2, 1}},
		},
		{
			name: "four runs",
			runs: 4, kubelets: []string{"fork", "upstream"},
			want: []DensityTurn{{"fork", 0, 1}, {"upstream", 0, 2}, {"fork", 1, 2}, {"upstream", 2, 2}, {"fork", 3, 1}},
		},
		{
			name: "one run",
			runs: 1, kubelets: []string{"fork", "upstream"},
			want: []DensityTurn{{"fork", 0, 1}, {"upstream", 0, 1}},
		},
		{
			name: "one kubelet: all its runs in one turn",
			runs: 3, kubelets: []string{"fork"},
			want: []DensityTurn{{"fork", 0, 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DensityTurns(tt.runs, tt.kubelets)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DensityTurns (-want +got):\n%s", diff)
			}
			// Every kubelet runs every run once.
			seen := map[string]int{}
			for _, turn := range got {
				seen[turn.Kubelet] += turn.Runs
			}
			for _, k := range tt.kubelets {
				if seen[k] != tt.runs {
					t.Errorf("%s runs %d runs, want %d", k, seen[k], tt.runs)
				}
			}
		})
	}
}

func TestWaysOfRun(t *testing.T) {
	ways := []results.Way{{Name: "fork/annotated"}, {Name: "fork/native-wait-ready"}, {Name: "fork/poststart"}}
	names := func(ws []results.Way) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Name)
		}
		return out
	}
	for run, want := range [][]string{
		{"fork/annotated", "fork/native-wait-ready", "fork/poststart"},
		{"fork/native-wait-ready", "fork/poststart", "fork/annotated"},
		{"fork/poststart", "fork/annotated", "fork/native-wait-ready"},
		{"fork/annotated", "fork/native-wait-ready", "fork/poststart"},
	} {
		if diff := cmp.Diff(want, names(waysOfRun(ways, run))); diff != "" {
			t.Errorf("run %d (-want +got):\n%s", run, diff)
		}
	}
	if diff := cmp.Diff([]string{"fork/annotated", "fork/native-wait-ready", "fork/poststart"}, names(ways)); diff != "" {
		t.Errorf("waysOfRun changed its argument (-want +got):\n%s", diff)
	}
	if got := waysOfRun(nil, 3); got != nil {
		t.Errorf("waysOfRun(nil) = %v", got)
	}
}
