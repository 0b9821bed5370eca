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
)

func TestGoals(t *testing.T) {
	st := func(p50, p95 float64) *stats { return &stats{N: 8, P50: p50, P95: p95} }
	sum := map[string]map[string]*stats{
		"a0": {
			"fork/annotated":     st(120, 200), // under 250 and under the hook's 300: met
			"fork/annotated-p10": st(120, 260), // over 250: missed
			"fork/poststart":     st(110, 300),
			"fork/poststart-p10": st(110, 310),
			// native-wait-ready: no figure in this run
		},
		"a2": {
			"fork/annotated":     st(30, 50), // the wait under the hook's 60: yes
			"fork/annotated-p10": st(30, 70), // over the hook's 65: no
			"fork/poststart":     st(45, 60),
			"fork/poststart-p10": st(45, 65),
		},
		"b": {
			"fork/annotated":         st(300, 900),  // ≤ 1000 and ≤ no sidecars' 950: met
			"fork/native-wait-ready": st(300, 1000), // ≤ 1000 but over no sidecars' 950: missed
			"fork/no-sidecars":       st(250, 950),
		},
		"c": {
			"fork/annotated":         st(50, 80), // no parts: 80 ≤ the floor's 60 + 20: met
			"fork/native-wait-ready": st(50, 70), // under the floor's + 20, but its own part is 25: missed
		},
		"c0": {"fork/annotated": st(40, 60), "fork/native-wait-ready": st(40, 60)},
		"c1": {"fork/annotated": st(7, 12), "fork/native-wait-ready": st(7, 12)},
		"c2": {"fork/native-wait-ready": st(3, 25)},
		"e3": {"fork/annotated": st(1200, 1400), "fork/poststart": st(1300, 1900)},
		"e5": {"fork/annotated": st(2100, 2200), "fork/poststart": st(2000, 2500)},
	}
	benches := []goBench{
		{Tree: "upstream", Name: "BenchmarkComputePodActions/no-sidecars", NsPerOp: 10000},
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", NsPerOp: 10400},
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", NsPerOp: 10600},
	}
	var got []string
	for _, v := range goals(sum, benches) {
		got = append(got, strings.Fields(v.Goal)[0]+" "+v.Way+" "+v.Met)
	}
	want := []string{
		"a′. fork/annotated yes",
		"a′. fork/annotated-p10 no", // p95 over 250
		"a′. fork/native-wait-ready —",
		"a′. fork/native-wait-ready-p10 —",
		"a′'s fork/annotated yes",
		"a′'s fork/annotated-p10 no",
		"a′'s fork/native-wait-ready —",
		"a′'s fork/native-wait-ready-p10 —",
		"b. fork/annotated yes",
		"b. fork/native-wait-ready no", // slower than no sidecars
		"c. fork/annotated yes",        // 80 ≤ 60 + 20
		"c. fork/native-wait-ready no", // the kubelet's part: p95 25 > 20
		"e. fork/annotated yes",        // 3 sidecars
		"e. fork/native-wait-ready —",
		"e. fork/annotated no", // 5 sidecars: p50 2100 against 2000
		"e. fork/native-wait-ready —",
		"computePodActions, patched tree yes", // median 10500: +5.0%, and 1 run against 2 tells nothing (p = 1)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestComputePodActionsGoal checks the Go benchmark's verdict as benchstat
// judges two sets of runs: a difference beyond 5% fails only when it is
// significant, and a significant one within 5% passes.
func TestComputePodActionsGoal(t *testing.T) {
	runs := func(tree string, from float64) []goBench {
		var b []goBench
		for i := 0; i < 10; i++ {
			b = append(b, goBench{Tree: tree, Name: "BenchmarkComputePodActions/no-sidecars", NsPerOp: from + float64(i)*10})
		}
		return b
	}
	tests := []struct {
		name     string
		patched  float64 // the first of its ten runs, 10 ns apart; upstream's from 10000
		want     string
		wantMeet string
	}{
		{name: "8% slower, significant", patched: 10800, want: "10.85 µs, +8.0% (p=0.000 n=10+10)", wantMeet: "no"},
		{name: "2% slower, significant", patched: 10200, want: "10.24 µs, +2.0% (p=0.000 n=10+10)", wantMeet: "yes"},
		{name: "the same", patched: 10005, want: "10.05 µs, ~ (p=0.739 n=10+10)", wantMeet: "yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			benches := append(runs("upstream", 10000), runs("patched", tt.patched)...)
			var got []verdict
			for _, v := range goals(nil, benches) {
				if strings.HasPrefix(v.Goal, "computePodActions") {
					got = append(got, v)
				}
			}
			if len(got) != 1 || got[0].Figure != tt.want || got[0].Met != tt.wantMeet {
				t.Errorf("verdicts %+v, want one with figure %q, met %q", got, tt.want, tt.wantMeet)
			}
		})
	}
}
