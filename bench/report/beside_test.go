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

func TestWithBesideAndGoalsTable(t *testing.T) {
	defaults := []verdict{
		{Goal: "b. Job", Way: "fork/annotated", Figure: "400 / 1070 (8)", Against: "x", Met: "no"},
		{Goal: "b. Job", Way: "fork/native-wait-ready", Figure: "410 / 990 (8)", Against: "x", Met: "yes"},
		{Goal: "computePodActions", Way: "patched tree", Figure: "11 µs", Against: "y", Met: "yes"},
	}
	beside := []verdict{
		{Goal: "b. Job", Way: "fork/annotated", Figure: "200 / 413 (8)", Met: "yes"},
		{Goal: "b. Job", Way: "fork/native-wait-ready", Figure: "—", Met: "—"},
		{Goal: "c. other", Way: "fork/annotated", Figure: "1 / 2 (8)", Met: "yes"}, // no such row in the defaults: dropped
	}
	got := withBeside(defaults, beside)
	var besides []string
	for _, v := range got {
		besides = append(besides, v.Beside)
	}
	if diff := cmp.Diff([]string{"200 / 413 (8), yes", "—, —", "—"}, besides); diff != "" {
		t.Errorf("Beside (-want +got):\n%s", diff)
	}
	if defaults[0].Beside != "" {
		t.Errorf("withBeside changed its input")
	}

	for _, tc := range []struct {
		label string
		want  []string
	}{
		{"", []string{
			"| goal | way | p50 / p95 ms (n) | against, same run | met |",
			"| --- | --- | --- | --- | --- |",
			"| b. Job | `fork/annotated` | 400 / 1070 (8) | x | no |",
			"|  | `fork/native-wait-ready` | 410 / 990 (8) | x | yes |",
			"| computePodActions | `patched tree` | 11 µs | y | yes |",
		}},
		{"EventedPLEG=true", []string{
			"| goal | way | p50 / p95 ms (n) | against, same run | met | with EventedPLEG=true: p50 / p95 ms (n), met |",
			"| --- | --- | --- | --- | --- | --- |",
			"| b. Job | `fork/annotated` | 400 / 1070 (8) | x | no | 200 / 413 (8), yes |",
			"|  | `fork/native-wait-ready` | 410 / 990 (8) | x | yes | —, — |",
			"| computePodActions | `patched tree` | 11 µs | y | yes | — |",
		}},
	} {
		var b strings.Builder
		goalsTable(&b, got, tc.label)
		if diff := cmp.Diff(tc.want, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")); diff != "" {
			t.Errorf("goalsTable(label %q) (-want +got):\n%s", tc.label, diff)
		}
	}
}

func TestGoalsSummary(t *testing.T) {
	verdicts := []verdict{
		{Met: "yes", Beside: "1 / 2 (8), yes"},
		{Met: "no", Beside: "1 / 2 (8), no"},
		{Met: "—", Beside: "—, —"}, // no figure: not counted
		{Met: "yes", Beside: "—"},
	}
	rates := []rateVerdict{{Met: "yes"}, {Met: "no"}, {Met: "—"}}
	for _, tc := range []struct{ label, want string }{
		{"", "3 of 5 goals met on upstream's default feature gates"},
		{"EventedPLEG=true", "3 of 5 goals met on upstream's default feature gates; with EventedPLEG=true: 1 of 2"},
	} {
		if got := goalsSummary(verdicts, rates, tc.label); got != tc.want {
			t.Errorf("goalsSummary(label %q) = %q, want %q", tc.label, got, tc.want)
		}
	}
}
