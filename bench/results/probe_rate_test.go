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

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const sec = int64(1e9)

func TestRatesOf(t *testing.T) {
	scrape := func(at int64, runs, extra, limited, cpu float64) results.ProbeScrape {
		return results.ProbeScrape{At: at * sec, Runs: runs, Extra: extra, Limited: limited, CPU: cpu}
	}
	tests := []struct {
		name    string
		run     results.ProbeRate
		want    results.Rates
		wantErr bool
	}{{
		name: "only the scrapes inside the span count; peaks are per second",
		run: results.ProbeRate{Pods: 50, From: 10 * sec, To: 13 * sec, Scrapes: []results.ProbeScrape{
			scrape(5, 0, 0, 0, 1),           // before: the pods were starting
			scrape(10, 100, 60, 10, 2),      // the span's first
			scrape(11, 350, 260, 100, 2.5),  // 250 runs, 200 extra in this second
			scrape(12, 550, 420, 190, 3),    // 200 runs, 160 extra
			scrape(13, 850, 660, 280, 3.5),  // 300 runs, 240 extra
			scrape(14, 2000, 1000, 1000, 9), // after
		}},
		// The tightest window is the last second: 240 against 220.
		want: results.Rates{Seconds: 3, Runs: 250, Extra: 200, Periodic: 50, Limited: 90, PeakRuns: 300, PeakExtra: 240, PerSidecar: 5, KubeletCores: 0.5,
			Tightest: results.Window{Runs: 240, Seconds: 1}},
	}, {
		// The kubelet answered the first scrape 0.6 s after it was sent:
		// 230 runs between replies 0.5 s apart may have come in 1.1 s.
		name: "a window is as long as one scrape's reply less the other's request",
		run: results.ProbeRate{Pods: 50, From: 0, To: 2 * sec, Scrapes: []results.ProbeScrape{
			{Sent: sec / 10, At: 7 * sec / 10, Runs: 0, Extra: 0},
			{Sent: sec, At: 12 * sec / 10, Runs: 300, Extra: 230},
		}},
		want: results.Rates{Seconds: 0.5, Runs: 600, Extra: 460, Periodic: 140, PeakRuns: 600, PeakExtra: 230 / 1.1, PerSidecar: 12,
			KubeletCores: math.NaN(), Tightest: results.Window{Runs: 230, Seconds: 1.1}},
	}, {
		name: "no CPU readings: the kubelet's cores are unknown",
		run: results.ProbeRate{Pods: 2, From: 0, To: 2 * sec, Scrapes: []results.ProbeScrape{
			scrape(0, 0, 0, 0, 0), scrape(2, 4, 0, 0, 0)}},
		want: results.Rates{Seconds: 2, Runs: 2, Periodic: 2, PeakRuns: 2, PerSidecar: 1, KubeletCores: math.NaN(), Tightest: results.Window{Seconds: 2}},
	}, {
		name:    "one scrape in the span is not a rate",
		run:     results.ProbeRate{Way: "w", Pods: 1, From: 0, To: sec, Scrapes: []results.ProbeScrape{scrape(0, 0, 0, 0, 0), scrape(2, 1, 0, 0, 0)}},
		wantErr: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.run.RatesOf()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("RatesOf() (-want +got):\n%s", diff)
			}
		})
	}
}
