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
	"math"
	"testing"
)

func TestMannWhitneyU(t *testing.T) {
	seq := func(from, n int) []float64 {
		var v []float64
		for i := 0; i < n; i++ {
			v = append(v, float64(from+i))
		}
		return v
	}
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Every x below every y: 2 of the C(10, 5) = 252 orders are as
		// extreme, p = 2/252.
		{name: "apart, exact", x: seq(1, 5), y: seq(6, 5), want: 2.0 / 252},
		{name: "apart, the other way", x: seq(6, 5), y: seq(1, 5), want: 2.0 / 252},
		// Interleaved 1 3 5 … against 2 4 6 …: U = 10 of 25 with 5 and 5;
		// P(U ≤ 10) = 87/252 (the published table's 0.3452), doubled.
		{name: "interleaved, exact", x: []float64{1, 3, 5, 7, 9}, y: []float64{2, 4, 6, 8, 10}, want: 2 * 87.0 / 252},
		// Ten against ten, apart: 2/C(20, 10).
		{name: "ten each, apart", x: seq(1, 10), y: seq(11, 10), want: 2.0 / 184756},
		// Ties: the normal approximation. x = {1,1,2,2}, y = {2,2,3,3}: ranks
		// 1.5 1.5 4.5 4.5 | 4.5 4.5 7.5 7.5, rank sum 12, U = 12 − 10 = 2,
		// mean 8, |U − mean| = 6; ties of 2, 4 and 2 values: Σ(t³ − t) = 6
		// + 60 + 6.
		{name: "ties, normal approximation", x: []float64{1, 1, 2, 2}, y: []float64{2, 2, 3, 3},
			want: math.Erfc((6 - 0.5) / math.Sqrt(16.0/12*(9-(6+60+6)/(8.0*7))) / math.Sqrt2)},
		{name: "all equal", x: []float64{4, 4, 4}, y: []float64{4, 4}, want: 1},
		{name: "empty", x: nil, y: []float64{1}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mannWhitneyU(tt.x, tt.y); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("mannWhitneyU = %.6f, want %.6f", got, tt.want)
			}
		})
	}
}

func TestUCountsSumToTheOrders(t *testing.T) {
	// C(n+m, n) orders in all, symmetric around n·m/2.
	c := uCounts(4, 6)
	total := 0.0
	for _, v := range c {
		total += v
	}
	if total != 210 || len(c) != 25 {
		t.Fatalf("uCounts(4, 6): %d values summing to %v, want 25 summing to C(10, 4) = 210", len(c), total)
	}
	for u := range c {
		if c[u] != c[len(c)-1-u] {
			t.Errorf("uCounts(4, 6) not symmetric at %d: %v", u, c)
		}
	}
}

func TestCompare(t *testing.T) {
	up := []float64{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}
	slower := []float64{110, 111, 112, 113, 114, 115, 116, 117, 118, 119}
	mixed := []float64{100.5, 101.5, 102.5, 103.5, 104.5, 105.5, 106.5, 107.5, 108.5, 109.5}
	if got, want := compare(up, slower).String(), "+9.6% (p=0.000 n=10+10)"; got != want {
		t.Errorf("compare(slower) = %q, want %q", got, want)
	}
	c := compare(up, mixed)
	// p checked by enumerating the C(20, 10) orders: 0.7394.
	if c.significant() || c.String() != "~ (p=0.739 n=10+10)" {
		t.Errorf("compare(mixed) = %q (significant %v), want ~ with p 0.739", c.String(), c.significant())
	}
}
