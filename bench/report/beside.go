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
	"fmt"
	"strings"
)

// A second configuration of the kubelets (make bench's BENCH_GATES, e.g.
// EventedPLEG=true) measured in the same run as upstream's defaults: its
// verdicts are a column beside the defaults', never the headline, since
// the defaults are what users run (managed clusters refuse alpha gates).

// withBeside returns the verdicts with each one's Beside set from the
// verdict of the same goal and way in the second configuration ("—" where
// that run has none).
func withBeside(verdicts, beside []verdict) []verdict {
	type key struct{ goal, way string }
	other := map[key]verdict{}
	for _, v := range beside {
		other[key{v.Goal, v.Way}] = v
	}
	out := make([]verdict, len(verdicts))
	for i, v := range verdicts {
		out[i] = v
		b, ok := other[key{v.Goal, v.Way}]
		switch {
		case !ok:
			out[i].Beside = "—"
		case b.Met == "—":
			out[i].Beside = b.Figure + ", —"
		default:
			out[i].Beside = b.Figure + ", " + b.Met
		}
	}
	return out
}

// goalsSummary says in one line how many goals a run met: on upstream's
// defaults (every verdict with a yes or no), and, when the run measured a
// second configuration, how many of the ways' goals it met there. Goals
// without a figure ("—") are not counted.
func goalsSummary(verdicts []verdict, rates []rateVerdict, besideLabel string) string {
	met, judged, besideMet, besideJudged := 0, 0, 0, 0
	count := func(m string) {
		if m == "yes" || m == "no" {
			judged++
		}
		if m == "yes" {
			met++
		}
	}
	for _, v := range verdicts {
		count(v.Met)
		switch {
		case strings.HasSuffix(v.Beside, ", yes"):
			besideMet++
			besideJudged++
		case strings.HasSuffix(v.Beside, ", no"):
			besideJudged++
		}
	}
	for _, r := range rates {
		count(r.Met)
	}
	s := fmt.Sprintf("%d of %d goals met on upstream's default feature gates", met, judged)
	if besideLabel != "" {
		s += fmt.Sprintf("; with %s: %d of %d", besideLabel, besideMet, besideJudged)
	}
	return s
}
