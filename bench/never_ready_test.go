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
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
)

// extraChecksUpTo is the extra checks of a sidecar waited on for age
// seconds as the fork makes them (20/s for 2 s, halving every 2 s to 1.25/s
// from 8 s), then rate a second from 10 s, none after 60 s.
func extraChecksUpTo(age, rate float64) float64 {
	clamp := func(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
	n := 0.0
	for i, r := range []float64{20, 10, 5, 2.5, 1.25} {
		n += r * clamp(age-2*float64(i), 0, 2)
	}
	return n + rate*clamp(age-10, 0, 50)
}

// neverReadyT0 is when every sidecar of the constructed runs starts.
const neverReadyT0 = 100 * sec

// steadyNeverReadyRun is a run of two never-ready sidecars whose extra
// checks settle at rateA and rateB a second (their probes' periodic runs
// one in 10 s on top), and one sidecar ready after 15 s, seen 300 ms later,
// its app started 400 ms after its /ready turned 200; all three start at
// neverReadyT0, scraped once a second from 1 s before to 62 s after.
func steadyNeverReadyRun(way string, rateA, rateB float64) NeverReadyRun {
	w, _ := WayByName(way)
	at := func(age float64) int64 { return neverReadyT0 + int64(age*1e9) }
	r := NeverReadyRun{Way: way, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe(), Period: 10, Start: at(-1.5),
		Pods: []NeverReadyPod{
			{Name: "nr-a", Containers: []Container{{Name: "sc1", Sidecar: true, Started: at(0)}}},
			{Name: "nr-b", Containers: []Container{{Name: "sc1", Sidecar: true, Started: at(0)}}},
			{Name: "nr-late", ReadyAfter: 15000, Containers: []Container{
				{Name: "sc1", Sidecar: true, Started: at(0), Up: at(15), Ready: at(15.3)},
				{Name: "app", Created: at(15.35), Started: at(15.4)}}},
		}}
	for age := -1.0; age <= 62; age++ {
		x := math.Max(age, 0)
		a, b := extraChecksUpTo(x, rateA), extraChecksUpTo(x, rateB)
		late := extraChecksUpTo(math.Min(x, 15.3), 1)
		r.Scrapes = append(r.Scrapes, NeverReadyScrape{
			ProbeScrape: ProbeScrape{At: at(age), Extra: a + b + late},
			PerPod:      map[string]float64{"nr-a": a + x/10, "nr-b": b + x/10, "nr-late": late + math.Min(x, 15.3)/10},
		})
	}
	return r
}

// withFresh adds to a steady run a fresh pod created at 30 s: its sidecar
// starts at 30.2 s, turns ready at 31.2 s, is seen ready at 31.25 s, and
// its app starts aPrime ms after its /ready turned 200; its probe runs 20
// times a second from its start to its readiness seen (21 extra runs) and
// once at its start (periodic).
func withFresh(r NeverReadyRun, aPrime float64) NeverReadyRun {
	at := func(age float64) int64 { return neverReadyT0 + int64(age*1e9) }
	r.Pods = append(append([]NeverReadyPod(nil), r.Pods...), NeverReadyPod{Name: "nr-fresh", ReadyAfter: 1000, Fresh: true, CreatedAfter: 30000,
		Containers: []Container{
			{Name: "sc1", Sidecar: true, Started: at(30.2), Up: at(31.2), Ready: at(31.25)},
			{Name: "app", Created: at(31.25), Started: at(31.2 + aPrime/1000)}}})
	scrapes := make([]NeverReadyScrape, len(r.Scrapes))
	for i, sc := range r.Scrapes {
		age := float64(sc.At-neverReadyT0) / 1e9
		extra := 20 * math.Max(0, math.Min(age, 31.25)-30.2)
		periodic := 0.0
		if age >= 30.2 {
			periodic = 1
		}
		per := map[string]float64{"nr-fresh": extra + periodic}
		for k, v := range sc.PerPod {
			per[k] = v
		}
		sc.PerPod, sc.Extra = per, sc.Extra+extra
		scrapes[i] = sc
	}
	r.Scrapes = scrapes
	return r
}

func TestNeverReadyWindows(t *testing.T) {
	got, err := steadyNeverReadyRun("fork/annotated-p10", 1, 1).Windows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 31 {
		t.Fatalf("%d windows, want 31 (0–2 s to 60–62 s)", len(got))
	}
	// Three sidecars waiting, then the late one turns ready at 15.3 s, and
	// after 60 s none is waited on any more (the kubelet's minute).
	want := []NeverReadyWindow{
		{From: 0, To: 2, Extra: 120, Waiting: 3, PerSidecar: 20, Busiest: 20.1},
		{From: 2, To: 4, Extra: 60, Waiting: 3, PerSidecar: 10, Busiest: 10.1},
		{From: 8, To: 10, Extra: 7.5, Waiting: 3, PerSidecar: 1.25, Busiest: 1.35},
		{From: 14, To: 16, Extra: 5.3, Waiting: 2.65, PerSidecar: 1, Busiest: 1.1},
		{From: 16, To: 18, Extra: 4, Waiting: 2, PerSidecar: 1, Busiest: 1.1},
		{From: 60, To: 62, Extra: 0, Waiting: 0, PerSidecar: math.NaN(), Busiest: 0.1},
	}
	pick := []NeverReadyWindow{got[0], got[1], got[4], got[7], got[8], got[30]}
	if diff := cmp.Diff(want, pick, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
}

func TestNeverReadySettled(t *testing.T) {
	tests := []struct {
		name    string
		run     NeverReadyRun
		want    NeverReadySettled
		met     bool
		wantErr string
	}{{
		// From 10 s to 60 s: 2 × 50 s of the never-ready sidecars and 5.3 s
		// of the late one, one run a second: 105.3 of at most 108.3.
		name: "one a second each",
		run:  steadyNeverReadyRun("fork/annotated-p10", 1, 1),
		want: NeverReadySettled{Seconds: 50, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 1.1, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		// A fresh pod's runs are not the waiting sidecars': its 21 extra
		// runs leave the node-wide count, and so does its periodic one (the
		// count is one run short of the waiting ones', at most one or two
		// per fresh pod).
		name: "a fresh pod's runs left out",
		run:  withFresh(steadyNeverReadyRun("fork/annotated-p10", 1, 1), 150),
		want: NeverReadySettled{Seconds: 50, Extra: 104.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 104.3 / 105.3,
			Busiest: 1.1, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		// Runs at least a second apart: 51 in 50 s is one a second with the
		// first at the span's start.
		name: "a run of phase each is within",
		run:  steadyNeverReadyRun("fork/annotated-p10", 1.02, 1.02),
		want: NeverReadySettled{Seconds: 50, Extra: 107.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 107.3 / 105.3,
			Busiest: 1.12, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
		met: true,
	}, {
		name: "more than one a second",
		run:  steadyNeverReadyRun("fork/annotated-p10", 1.1, 1.1),
		want: NeverReadySettled{Seconds: 50, Extra: 115.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 115.3 / 105.3,
			Busiest: 1.2, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-b"},
	}, {
		// One a second on average, but not each: the busiest sidecar fails
		// it.
		name: "one sidecar checked more often than the others",
		run:  steadyNeverReadyRun("fork/annotated-p10", 1.5, 0.5),
		want: NeverReadySettled{Seconds: 50, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 1.6, BusiestAllowed: 57.0 / 50, BusiestPod: "nr-a"},
	}, {
		// A reply that came 0.5 s after its request: the span may have
		// been 50.5 s long.
		name: "the span is as long as it may have been",
		run: func() NeverReadyRun {
			r := steadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Scrapes[11].Sent = r.Scrapes[11].At - sec/2 // the scrape at 10 s
			return r
		}(),
		want: NeverReadySettled{Seconds: 50.5, Extra: 105.3, WaitedSeconds: 105.3, Sidecars: 3, Allowed: 108.3, PerSidecar: 1,
			Busiest: 55.0 / 50.5, BusiestAllowed: (50.5 + 1 + 5.05 + 1) / 50.5, BusiestPod: "nr-b"},
		met: true,
	}, {
		name: "scrapes that stop at 15 s",
		run: func() NeverReadyRun {
			r := steadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Scrapes = r.Scrapes[:17]
			return r
		}(),
		wantErr: "fork/annotated-p10: no 10 s of scrapes between 10 s and a minute of the sidecars' life",
	}, {
		name: "a never-ready sidecar seen ready",
		run: func() NeverReadyRun {
			r := steadyNeverReadyRun("fork/annotated-p10", 1, 1)
			r.Pods[0].Containers[0].Ready = neverReadyT0 + 5*sec
			return r
		}(),
		wantErr: "nr-a: the never-ready sidecar was seen ready",
	}, {
		name:    "a failed run",
		run:     NeverReadyRun{Way: "fork/annotated-p10", Error: "create: forbidden"},
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
	r := steadyNeverReadyRun("fork/annotated-p10", 1, 1)
	late := r.Pods[2]
	late.Name, late.ReadyAfter = "nr-late-2", 30000
	late.Containers = []Container{late.Containers[0], {Name: "app", Created: late.Containers[1].Created, Started: late.Containers[1].Started + 100e6}}
	noApp := NeverReadyPod{Name: "nr-late-3", ReadyAfter: 45000, Containers: late.Containers[:1]}
	r.Pods = append(r.Pods, late, noApp)
	got, missing := r.LateAPrimes()
	// a′ is bench density's (DensityPod.APrime): /ready turning 200 → the app's start.
	if diff := cmp.Diff([]float64{400, 500}, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" || missing != 1 {
		t.Errorf("LateAPrimes() = %v, %d missing; want [400 500], 1 (-want +got):\n%s", got, missing, diff)
	}
}

func TestNeverReadyGoals(t *testing.T) {
	const goal = "never-ready sidecars: extra checks from 10 s to 60 s of their life ≤ 1/s each; " +
		"meanwhile pods created beside them: a′ (/ready 200 → app start) p95 ≤ 250 ms"
	// The fresh pod's a′ is judged; the late sidecar's (400 ms: it is
	// checked once a second by 15 s) is shown beside.
	prompt := withFresh(steadyNeverReadyRun("fork/native-wait-ready-p10", 1, 1), 200)
	slow := withFresh(steadyNeverReadyRun("fork/annotated-p10", 1, 1), 300)
	uneven := withFresh(steadyNeverReadyRun("fork/annotated-p10", 1.5, 0.5), 200)
	upstream := withFresh(steadyNeverReadyRun("upstream/native-startup", 0, 0), 800)
	const checks = "0.99/s per waiting sidecar (104 extra runs in 105 sidecar-seconds, at most 108; 2 never ready), the busiest"
	const late = "; beside, sidecars ready late (after 15 s): a′ 400 ms"
	tests := []struct {
		name string
		runs []NeverReadyRun
		want RateVerdict
	}{{
		name: "both met",
		runs: []NeverReadyRun{upstream, prompt},
		want: RateVerdict{Goal: goal, Way: "fork/native-wait-ready-p10",
			Figure: "`fork/native-wait-ready-p10` " + checks + " 1.10/s of all its runs (at most 1.14), fresh pods' a′ p95 200 ms (each 200, created after 30 s)" + late + "; " +
				"fresh pods' a′ p95 `upstream/native-startup` 800 ms",
			Met: "yes"},
	}, {
		// A fresh pod's a′ of 300 ms misses; one sidecar checked 1.5 times
		// a second misses the other half.
		name: "a′ missed, and one busy sidecar",
		runs: []NeverReadyRun{slow, uneven},
		want: RateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/annotated-p10",
			Figure: "`fork/annotated-p10` " + checks + " 1.10/s of all its runs (at most 1.14), fresh pods' a′ p95 300 ms (each 300, created after 30 s)" + late + "; " +
				"`fork/annotated-p10` " + checks + " 1.60/s of all its runs (at most 1.14), fresh pods' a′ p95 200 ms (each 200, created after 30 s)" + late,
			Met: "no: `fork/annotated-p10`'s a′, `fork/annotated-p10`'s checks"},
	}, {
		// A run without fresh pods (an older benchmark's): a′ not judged,
		// so not met.
		name: "no fresh pod",
		runs: []NeverReadyRun{steadyNeverReadyRun("fork/annotated-p10", 1, 1)},
		want: RateVerdict{Goal: goal, Way: "fork/annotated-p10",
			Figure: "`fork/annotated-p10` 1.00/s per waiting sidecar (105 extra runs in 105 sidecar-seconds, at most 108; 2 never ready), the busiest 1.10/s of all its runs (at most 1.14), no fresh pod" + late,
			Met:    "no: `fork/annotated-p10`'s a′"},
	}, {
		name: "a failed run",
		runs: []NeverReadyRun{{Way: "fork/annotated", Kubelet: "fork", Error: "3 of 13 sidecars running after 3m0s"}},
		want: RateVerdict{Goal: goal, Way: "fork/annotated", Figure: "`fork/annotated` error: 3 of 13 sidecars running after 3m0s",
			Met: "no: `fork/annotated`'s checks, `fork/annotated`'s a′"},
	}, {
		// Without a run of the fork's (none, or only upstream's): not
		// measured, no figure.
		name: "not measured",
		want: RateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/native-wait-ready-p10", Figure: "not measured", Met: "—"},
	}, {
		name: "only upstream's",
		runs: []NeverReadyRun{upstream},
		want: RateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/native-wait-ready-p10", Figure: "not measured", Met: "—"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff([]RateVerdict{tt.want}, NeverReadyGoals(tt.runs)); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNeverReadyTable(t *testing.T) {
	r := steadyNeverReadyRun("fork/annotated-p10", 1, 1)
	r.Scrapes = r.Scrapes[:6] // to 4 s: windows 0–2 and 2–4
	r.Scrapes[5].Limited = 3
	// The settled span needs 10 s and more: the figures of 10–60 s are
	// "—", the starts' row says why.
	var b strings.Builder
	NeverReadyTable(&b, []NeverReadyRun{r, {Way: "fork/native-wait-ready-p10", Error: "boom"}})
	want := "| age (s) | `fork/annotated-p10` | `fork/native-wait-ready-p10` |\n" +
		"| --- | ---: | ---: |\n" +
		"| 0–2 | 20.00, 20.10 | |\n" +
		"| 2–4 | 10.00, 10.10 (3 held back) | |\n" +
		"| never-ready sidecars, their starts' spread | 2, error: fork/annotated-p10: no 10 s of scrapes between 10 s and a minute of the sidecars' life | 0, error: boom |\n" +
		"| 10–60 s: extra runs per waiting sidecar and second, the busiest's runs/s | — | — |\n" +
		"| fresh pods (created after): a′ each, ms | — | — |\n" +
		"| late sidecars (ready after): a′ each, ms | (15 s) 400 | — |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestParseLateReady(t *testing.T) {
	tests := []struct {
		in      string
		want    []time.Duration
		wantErr bool
	}{
		{in: "15s,30s,45s", want: []time.Duration{15 * time.Second, 30 * time.Second, 45 * time.Second}},
		{in: " 12s , 59.5s ", want: []time.Duration{12 * time.Second, 59500 * time.Millisecond}},
		{in: ""}, {in: "0"},
		{in: "60s", wantErr: true}, // no extra checks after the minute: nothing left to judge
		{in: "-1s", wantErr: true}, {in: "15", wantErr: true}, {in: "15s,,30s", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseLateReady(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseLateReady(%q) err = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseLateReady(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestNeverReadyPods(t *testing.T) {
	for _, tt := range []struct {
		way    string
		period int32
	}{{"fork/annotated-p10", 10}, {"fork/native-wait-ready-p10", 10}, {"fork/annotated", 1}, {"upstream/native-startup", 1}} {
		t.Run(tt.way, func(t *testing.T) {
			w, _ := WayByName(tt.way)
			pods, recs := neverReadyPods(w, 2, []time.Duration{15 * time.Second}, []time.Duration{30 * time.Second})
			var got []string
			for i, p := range pods {
				readyAfter := ""
				for _, c := range append(append([]v1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
					for _, e := range c.Env {
						if c.Name == sidecarName(1) && e.Name == "READY_AFTER" {
							readyAfter = e.Value
						}
					}
				}
				got = append(got, p.Name+" "+readyAfter)
				if p.Labels[neverReadyLabel] != "true" || p.Labels["bench.sidecar-kubelet.io/probe-rate"] != "true" {
					t.Errorf("%s: labels %v: the run's list or clean-up would miss it", p.Name, p.Labels)
				}
				if recs[i].Name != p.Name {
					t.Errorf("record %d is %s, the pod %s", i, recs[i].Name, p.Name)
				}
			}
			short := strings.ReplaceAll(tt.way, "/", "-")
			want := []string{"nr-" + short + "-0 never", "nr-" + short + "-1 never", "nr-" + short + "-late-0 15s", "nr-" + short + "-fresh-0 1s"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
			if recs[0].ReadyAfter != 0 || recs[2].ReadyAfter != 15000 {
				t.Errorf("records' ReadyAfter %v, %v; want 0 (never) and 15000", recs[0].ReadyAfter, recs[2].ReadyAfter)
			}
			if diff := cmp.Diff(NeverReadyPod{Name: pods[3].Name, ReadyAfter: 1000, Fresh: true, CreatedAfter: 30000}, recs[3]); diff != "" {
				t.Errorf("the fresh pod's record (-want +got):\n%s", diff)
			}
			if got := probePeriod(pods[0], w.WaitedOnProbe()); got != tt.period {
				t.Errorf("probePeriod = %d, want %d", got, tt.period)
			}
		})
	}
}
