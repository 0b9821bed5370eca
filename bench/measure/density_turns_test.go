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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestDensityTurns(t *testing.T) {
	tests := []struct {
		name     string
		runs     int
		kubelets []string
		ns       []int
		want     []DensityTurn
	}{
		{
			name: "three runs of four N, two kubelets: every N the other way round",
			runs: 3, kubelets: []string{"fork", "upstream"}, ns: []int{10, 30, 100, 110},
			want: []DensityTurn{
				{"fork", 0, []int{10}}, {"upstream", 0, []int{10, 30}}, {"fork", 0, []int{30, 100}}, {"upstream", 0, []int{100, 110}}, {"fork", 0, []int{110}},
				{"upstream", 1, []int{10}}, {"fork", 1, []int{10, 30}}, {"upstream", 1, []int{30, 100}}, {"fork", 1, []int{100, 110}}, {"upstream", 1, []int{110}},
				{"fork", 2, []int{10}}, {"upstream", 2, []int{10, 30}}, {"fork", 2, []int{30, 100}}, {"upstream", 2, []int{100, 110}}, {"fork", 2, []int{110}},
			},
		},
		{
			name: "an odd number of N: each run starts where the last ended, in another turn",
			runs: 2, kubelets: []string{"fork", "upstream"}, ns: []int{10, 30, 110},
			want: []DensityTurn{
				{"fork", 0, []int{10}}, {"upstream", 0, []int{10, 30}}, {"fork", 0, []int{30, 110}}, {"upstream", 0, []int{110}},
				{"upstream", 1, []int{10}}, {"fork", 1, []int{10, 30}}, {"upstream", 1, []int{30, 110}}, {"fork", 1, []int{110}},
			},
		},
		{
			name: "one N: the kubelets alternate run by run",
			runs: 3, kubelets: []string{"fork", "upstream"}, ns: []int{30},
			want: []DensityTurn{{"fork", 0, []int{30}}, {"upstream", 0, []int{30}}, {"upstream", 1, []int{30}}, {"fork", 1, []int{30}}, {"fork", 2, []int{30}}, {"upstream", 2, []int{30}}},
		},
		{
			name: "one kubelet: a turn a run, every N in it",
			runs: 2, kubelets: []string{"fork"}, ns: []int{10, 30},
			want: []DensityTurn{{"fork", 0, []int{10, 30}}, {"fork", 1, []int{10, 30}}},
		},
		{
			name: "no N: no turn",
			runs: 3, kubelets: []string{"fork", "upstream"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DensityTurns(tt.runs, tt.kubelets, tt.ns)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DensityTurns (-want +got):\n%s", diff)
			}
			// Every kubelet runs every run at every N once, and a pair
			// (the kubelets' runs of one index and N) is never more than
			// one turn apart.
			at := map[string]int{}
			for i, turn := range got {
				for _, n := range turn.Ns {
					key := fmt.Sprintf("%s %d %d", turn.Kubelet, turn.Run, n)
					if _, twice := at[key]; twice {
						t.Errorf("%s runs twice", key)
					}
					at[key] = i
				}
			}
			for run := 0; run < tt.runs; run++ {
				for _, n := range tt.ns {
					var turns []int
					for _, k := range tt.kubelets {
						i, ok := at[fmt.Sprintf("%s %d %d", k, run, n)]
						if !ok {
							t.Errorf("%s never runs run %d at %d pods", k, run, n)
						}
						turns = append(turns, i)
					}
					if len(turns) == 2 && (turns[1]-turns[0] > 1 || turns[0]-turns[1] > 1) {
						t.Errorf("run %d at %d pods: the kubelets' turns %v are not adjacent", run, n, turns)
					}
				}
			}
			if len(at) != len(tt.kubelets)*tt.runs*len(tt.ns) {
				t.Errorf("%d runs, want %d", len(at), len(tt.kubelets)*tt.runs*len(tt.ns))
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
