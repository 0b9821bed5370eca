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
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestChainFigures(t *testing.T) {
	base := 1_000_000.0 // ms
	tests := []struct {
		name    string
		pod     results.ChainPod
		want    results.ChainFigures
		steps   []float64 // the first step's Own, Detect, Kubelet, RuntimeStart, Whole
		wantErr string
	}{{
		// 20 steps of 510 + 125 + 5 + 100 ms: 14.8 s against 20 × (0.5 s
		// + 100 ms) + 5 s = 17 s.
		name:  "within the bound",
		pod:   results.ChainPod{Way: "fork/annotated", Containers: benchtest.ChainContainers(20, base, 510, 125, 5, 100)},
		want:  results.ChainFigures{Sidecars: 20, Span: 14800, RuntimeStarts: 2000, Bound: 17000},
		steps: []float64{510, 125, 5, 100, 740},
	}, {
		// 20 steps of 500 + 400 + 30 + 100 ms: 20.6 s, over 17 s: the
		// ordering took 8.6 s of the chain.
		name:  "over the bound",
		pod:   results.ChainPod{Way: "fork/annotated", Containers: benchtest.ChainContainers(20, base, 500, 400, 30, 100)},
		want:  results.ChainFigures{Sidecars: 20, Span: 20600, RuntimeStarts: 2000, Bound: 17000},
		steps: []float64{500, 400, 30, 100, 1030},
	}, {
		// The runtime's start is each pod's own: a slow runtime widens the
		// bound by what it took, step by step.
		name:  "a slow runtime widens the bound",
		pod:   results.ChainPod{Way: "fork/annotated", Containers: benchtest.ChainContainers(2, base, 500, 100, 10, 900)},
		want:  results.ChainFigures{Sidecars: 2, Span: 3020, RuntimeStarts: 1800, Bound: 7800},
		steps: []float64{500, 100, 10, 900, 1510},
	}, {
		name:    "a failed pod has no figures",
		pod:     results.ChainPod{Way: "fork/annotated", Error: "containers not ready after 8m0s", Containers: benchtest.ChainContainers(2, base, 500, 100, 10, 100)},
		wantErr: "containers not ready after 8m0s",
	}, {
		name: "a missing time is named",
		pod: results.ChainPod{Way: "fork/annotated", Containers: func() []results.Container {
			cs := benchtest.ChainContainers(2, base, 500, 100, 10, 100)
			cs[1].Up = 0
			cs[2].Started = 0
			return cs
		}()},
		wantErr: "no time of sc2's /ready turning 200, app's start",
	}, {
		name:    "no app",
		pod:     results.ChainPod{Way: "fork/annotated", Containers: benchtest.ChainContainers(2, base, 500, 100, 10, 100)[:2]},
		wantErr: "2 sidecars and no app, or no sidecar",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.pod.Figures()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(results.ChainFigures{}, "Steps"), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("Figures() (-want +got):\n%s", diff)
			}
			if got.Met() != (tt.want.Span <= tt.want.Bound) {
				t.Errorf("Met() = %v with span %v and bound %v", got.Met(), got.Span, got.Bound)
			}
			s := got.Steps[0]
			if diff := cmp.Diff(tt.steps, []float64{s.Own(), s.Detect(), s.Kubelet(), s.RuntimeStart(), s.Whole()}, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("the first step (-want +got):\n%s", diff)
			}
			if n := len(got.Steps); n != got.Sidecars || got.Steps[n-1].NextStarted != tt.pod.Containers[n].Started {
				t.Errorf("%d steps, the last one's next start %d; want %d and the app's", n, got.Steps[n-1].NextStarted, got.Sidecars)
			}
		})
	}
}

// TestChainStepsHook: the postStart way's readiness is seen when its hook's
// poll is served 200, or when the hook returns if that is earlier (the
// server's log lost the first line, say), as Intervals takes it.
func TestChainStepsHook(t *testing.T) {
	cs := benchtest.ChainContainers(1, 1000, 500, 100, 10, 100)
	cs[0].Hook = cs[0].Ready - int64(20e6)
	steps, err := results.ChainPod{Containers: cs}.ChainSteps()
	if err != nil {
		t.Fatal(err)
	}
	if got := steps[0].Detect(); got != 80 {
		t.Errorf("Detect() = %v, want 80 (the hook's return)", got)
	}
	s := results.Sample{Kind: results.KindService, Sidecars: 1, Containers: cs}
	if iv := results.Intervals(&s)["a"]; iv[0] != steps[0].Seen {
		t.Errorf("Intervals' ready %d, the chain's seen %d: the two differ", iv[0], steps[0].Seen)
	}
}
