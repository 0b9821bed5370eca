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

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"none", nil, 50, math.NaN()},
		{"one", []float64{7}, 95, 7},
		{"median of odd", []float64{1, 2, 3}, 50, 2},
		{"median of even: lower (nearest rank)", []float64{1, 2, 3, 4}, 50, 2},
		{"p95 of 20 is the 19th", seq(20), 95, 19},
		{"p95 of 10 is the max", seq(10), 95, 10},
		{"p0 is the min", seq(5), 0, 1},
		{"p100 is the max", seq(5), 100, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := results.Percentile(tt.sorted, tt.p)
			if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}
