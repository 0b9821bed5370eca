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

package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestNeverReadyGoals(t *testing.T) {
	const goal = "never-ready sidecars: extra checks from 10 s to 60 s of their life ≤ 1/s each; " +
		"meanwhile pods created beside them: a′ (/ready 200 → app start) p95 ≤ 250 ms"
	// The fresh pod's a′ is judged; the late sidecar's (400 ms: it is
	// checked once a second by 15 s) is shown beside.
	prompt := benchtest.WithFresh(benchtest.SteadyNeverReadyRun("fork/native-wait-ready-p10", 1, 1), 200)
	slow := benchtest.WithFresh(benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1), 300)
	uneven := benchtest.WithFresh(benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1.5, 0.5), 200)
	upstream := benchtest.WithFresh(benchtest.SteadyNeverReadyRun("upstream/native-startup", 0, 0), 800)
	const checks = "0.99/s per waiting sidecar (104 extra runs in 105 sidecar-seconds, at most 108; 2 never ready), the busiest"
	const late = "; beside, sidecars ready late (after 15 s): a′ 400 ms"
	tests := []struct {
		name string
		runs []results.NeverReadyRun
		want rateVerdict
	}{{
		name: "both met",
		runs: []results.NeverReadyRun{upstream, prompt},
		want: rateVerdict{Goal: goal, Way: "fork/native-wait-ready-p10",
			Figure: "`fork/native-wait-ready-p10` " + checks + " 1.10/s of all its runs (at most 1.14), fresh pods' a′ p95 200 ms (each 200, created after 30 s)" + late + "; " +
				"fresh pods' a′ p95 `upstream/native-startup` 800 ms",
			Met: "yes"},
	}, {
		// A fresh pod's a′ of 300 ms misses; one sidecar checked 1.5 times
		// a second misses the other half.
		name: "a′ missed, and one busy sidecar",
		runs: []results.NeverReadyRun{slow, uneven},
		want: rateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/annotated-p10",
			Figure: "`fork/annotated-p10` " + checks + " 1.10/s of all its runs (at most 1.14), fresh pods' a′ p95 300 ms (each 300, created after 30 s)" + late + "; " +
				"`fork/annotated-p10` " + checks + " 1.60/s of all its runs (at most 1.14), fresh pods' a′ p95 200 ms (each 200, created after 30 s)" + late,
			Met: "no: `fork/annotated-p10`'s a′, `fork/annotated-p10`'s checks"},
	}, {
		// A run without fresh pods (an older benchmark's): a′ not judged,
		// so not met.
		name: "no fresh pod",
		runs: []results.NeverReadyRun{benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)},
		want: rateVerdict{Goal: goal, Way: "fork/annotated-p10",
			Figure: "`fork/annotated-p10` 1.00/s per waiting sidecar (105 extra runs in 105 sidecar-seconds, at most 108; 2 never ready), the busiest 1.10/s of all its runs (at most 1.14), no fresh pod" + late,
			Met:    "no: `fork/annotated-p10`'s a′"},
	}, {
		name: "a failed run",
		runs: []results.NeverReadyRun{{Way: "fork/annotated", Kubelet: "fork", Error: "3 of 13 sidecars running after 3m0s"}},
		want: rateVerdict{Goal: goal, Way: "fork/annotated", Figure: "`fork/annotated` error: 3 of 13 sidecars running after 3m0s",
			Met: "no: `fork/annotated`'s checks, `fork/annotated`'s a′"},
	}, {
		// Without a run of the fork's (none, or only upstream's): not
		// measured, no figure.
		name: "not measured",
		want: rateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/native-wait-ready-p10", Figure: "not measured", Met: "—"},
	}, {
		name: "only upstream's",
		runs: []results.NeverReadyRun{upstream},
		want: rateVerdict{Goal: goal, Way: "fork/annotated-p10`, `fork/native-wait-ready-p10", Figure: "not measured", Met: "—"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff([]rateVerdict{tt.want}, neverReadyGoals(tt.runs)); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNeverReadyTable(t *testing.T) {
	r := benchtest.SteadyNeverReadyRun("fork/annotated-p10", 1, 1)
	r.Scrapes = r.Scrapes[:6] // to 4 s: windows 0–2 and 2–4
	r.Scrapes[5].Limited = 3
	// The settled span needs 10 s and more: the figures of 10–60 s are
	// "—", the starts' row says why.
	var b strings.Builder
	neverReadyTable(&b, []results.NeverReadyRun{r, {Way: "fork/native-wait-ready-p10", Error: "boom"}})
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
