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

func TestNeverReadyWindows(t *testing.T) {
	got, err := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1).Windows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 31 {
		t.Fatalf("%d windows, want 31 (0–2 s to 60–62 s)", len(got))
	}
	// Three sidecars waiting, then the late one turns ready at 15.3 s, and
	// after 60 s none is waited on any more (the kubelet's minute).
	want := []results.NeverReadyWindow{
		{From: 0, To: 2, Extra: 120, Waiting: 3, PerSidecar: 20, Busiest: 20.1},
		{From: 2, To: 4, Extra: 60, Waiting: 3, PerSidecar: 10, Busiest: 10.1},
		{From: 8, To: 10, Extra: 7.5, Waiting: 3, PerSidecar: 1.25, Busiest: 1.35},
		{From: 14, To: 16, Extra: 5.3, Waiting: 2.65, PerSidecar: 1, Busiest: 1.1},
		{From: 16, To: 18, Extra: 4, Waiting: 2, PerSidecar: 1, Busiest: 1.1},
		{From: 60, To: 62, Extra: 0, Waiting: 0, PerSidecar: math.NaN(), Busiest: 0.1},
	}
	pick := []results.NeverReadyWindow{got[0], got[1], got[4], got[7], got[8], got[30]}
	if diff := cmp.Diff(want, pick, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
}

func TestNeverReadySettled(t *testing.T) {
	tests := []struct {
		name    string
		run     results.NeverReadyRun
		want    results.NeverReadySettled
		met     bool
		wantErr string
	}{{
		// From 10 s to 60 s: 2 × 50 s of the never-ready sidecars and 5.3 s
		// of the late one, one run a second: 105.3 of at most 108.3.
		name: "one a second each",
		run:  benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1),
		want: results.NeverReadySettled{Seconds: 50, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 1.1, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		// A fresh pod's runs are not the waiting sidecars': its 21 extra
		// runs leave the node-wide count, and so does its periodic one (the
		// count is one run short of the waiting ones', at most one or two
		// per fresh pod).
		name: "a fresh pod's runs left out",
		run:  benchtest.WithFresh(benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1), 150),
		want: results.NeverReadySettled{Seconds: 50, Extra: 104.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 104.3 / 105.3,
			Busiest: 1.1, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		// Runs at least a second apart: 51 in 50 s is one a second with the
		// first at the span's start.
		name: "a run of phase each is within",
		run:  benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1.02, 1.02),
		want: results.NeverReadySettled{Seconds: 50, Extra: 107.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 107.3 / 105.3,
			Busiest: 1.12, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		name: "more than one a second",
		run:  benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1.1, 1.1),
		want: results.NeverReadySettled{Seconds: 50, Extra: 115.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 115.3 / 105.3,
			Busiest: 1.2, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
	}, {
		// One a second on average, but not each: the busiest sidecar fails
		// it.
		name: "one sidecar checked more often than the others",
		run:  benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1.5, 0.5),
		want: results.NeverReadySettled{Seconds: 50, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 1.6, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-a"},
	}, {
		// A reply that came 0.5 s after its request: the span may have
		// been 50.5 s long.
		name: "the span is as long as it may have been",
		run: func() results.NeverReadyRun {
			r := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Scrapes[11].Sent = r.Scrapes[11].At - sec/2 // the scrape at 10 s
			return r
		}(),
		want: results.NeverReadySettled{Seconds: 50.5, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 55.0 / 50.5, BusiestAllowed: (50.5 + 1 + 5.05 + 1) / 50.5, BusiestPod: "nr-b"},
		met: true,
	}, {
		name: "scrapes that stop at 15 s",
		run: func() results.NeverReadyRun {
			r := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Scrapes = r.Scrapes[:17]
			return r
		}(),
		wantErr: "fork/annotated-p10: no 10 s of scrapes between 10 s and a minute of the sidecars' life",
	}, {
		name: "a never-ready sidecar seen ready",
		run: func() results.NeverReadyRun {
			r := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Pods[0].Containers[0].Ready = benchtest.NeverReadyT0 + 5*sec
			return r
		}(),
		wantErr: "nr-a: the never-ready sidecar was seen ready",
	}, {
		name:    "a failed run",
		run:     results.NeverReadyRun{Way: "fork/annotated-p10", Error: "create: forbidden"},
		wantErr: "create: forbidden",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run.Settled()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Settled() (-want +got):\n%s", diff)
			}
			if got.Met() != tt.met {
				t.Errorf("Met() = %v, want %v", got.Met(), tt.met)
			}
		})
	}
}

func TestLateAPrimes(t *testing.T) {
	r := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)
	late := r.Pods[2]
	late.Name, late.ReadyAfter = "nr-late-2", 30000
	late.Containers = []results.Container{late.Containers[0], {Name: "app", Created: late.Containers[1].Created, Started: late.Containers[1].Started + 100e6}}
	noApp := results.NeverReadyPod{Name: "nr-late-3", ReadyAfter: 45000, Containers: late.Containers[:1]}
	r.Pods = append(r.Pods, late, noApp)
	got, missing := r.LateAPrimes()
	// a′ is bench density's (DensityPod.APrime): /ready turning 200 → the app's start.
	if diff := cmp.Diff([]float64{400, 500}, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" || missing != 1 {
		t.Errorf("LateAPrimes() = %v, %d missing; want [400 500], 1 (-want +got):\n%s", got, missing, diff)
	}
}
