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

// The Go benchmark's two trees compared as benchstat compares two sets of
// runs: the medians' difference, and whether it is significant by the
// two-sided Mann-Whitney U test at α = 0.05 (benchstat's default). A
// median of five runs on each side tells nothing about a difference of a
// few percent on a shared machine: upstream's "two sidecars" once came out
// faster than its "no sidecars". bench does not import benchstat (its
// module is not a dependency of this one); the test is a few lines.

import (
	"fmt"
	"math"
	"sort"
)

// significanceLevel is the α below which a difference counts as real.
const significanceLevel = 0.05

// exactUMax bounds the sample sizes (m·n) for which the U statistic's
// exact distribution is computed; larger samples, and samples with ties,
// use the normal approximation, as benchstat does.
const exactUMax = 400

// A comparison is the patched tree's runs against upstream's.
type comparison struct {
	Upstream, Patched float64 // medians, ns/op
	N, M              int     // runs: upstream's, the patched tree's
	Delta             float64 // the medians' difference, %: patched against upstream
	P                 float64 // the two-sided Mann-Whitney U test's p-value
}

// significant says whether the difference is real at significanceLevel.
func (c comparison) significant() bool { return c.P < significanceLevel }

// String is benchstat's way: "+1.2% (p=0.003 n=10+10)", or "~" for the
// difference when it is not significant.
func (c comparison) String() string {
	delta := fmt.Sprintf("%+.1f%%", c.Delta)
	if !c.significant() {
		delta = "~"
	}
	return fmt.Sprintf("%s (p=%.3f n=%d+%d)", delta, c.P, c.N, c.M)
}

// compare compares the patched tree's runs with upstream's.
func compare(upstream, patched []float64) comparison {
	c := comparison{Upstream: median(upstream), Patched: median(patched), N: len(upstream), M: len(patched)}
	c.Delta = (c.Patched/c.Upstream - 1) * 100
	c.P = mannWhitneyU(upstream, patched)
	return c
}

// mannWhitneyU is the two-sided p-value of the Mann-Whitney U test that
// x and y come from the same distribution; 1 when either is empty.
func mannWhitneyU(x, y []float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 1
	}
	// Ranks of the pooled samples, ties sharing their mean rank.
	type obs struct {
		v    float64
		inX  bool
		rank float64
	}
	all := make([]obs, 0, n+m)
	for _, v := range x {
		all = append(all, obs{v: v, inX: true})
	}
	for _, v := range y {
		all = append(all, obs{v: v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	ties := false
	tieTerm := 0.0 // Σ (t³ − t) over the groups of ties
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		for k := i; k < j; k++ {
			all[k].rank = float64(i+j+1) / 2 // ranks i+1 … j, their mean
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	rx := 0.0
	for _, o := range all {
		if o.inX {
			rx += o.rank
		}
	}
	u := rx - float64(n*(n+1))/2 // U of x: pairs (x, y) with x > y, ties a half
	mean := float64(n*m) / 2
	if !ties && n*m <= exactUMax {
		// P(U ≤ min(u, nm − u)), doubled: the distribution is symmetric.
		lo := int(math.Round(math.Min(u, float64(n*m)-u)))
		counts := uCounts(n, m)
		total, below := 0.0, 0.0
		for k, c := range counts {
			total += c
			if k <= lo {
				below += c
			}
		}
		return math.Min(1, 2*below/total)
	}
	// The normal approximation with the tie correction and a continuity
	// correction of a half.
	N := float64(n + m)
	sd := math.Sqrt(float64(n*m) / 12 * (N + 1 - tieTerm/(N*(N-1))))
	if sd == 0 {
		return 1
	}
	z := (math.Abs(u-mean) - 0.5) / sd
	if z < 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// uCounts are, for samples of n and m values without ties, how many of the
// C(n+m, n) orders give U = 0, 1, …, n·m: f(n, m, u) = f(n−1, m, u−m) +
// f(n, m−1, u), by whether the largest value is one of x's.
func uCounts(n, m int) []float64 {
	// f[i][j] is the distribution for i and j values.
	f := make([][][]float64, n+1)
	for i := range f {
		f[i] = make([][]float64, m+1)
		for j := range f[i] {
			f[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				f[i][j][0] = 1
				continue
			}
			for u := range f[i][j] {
				if u-j >= 0 && u-j < len(f[i-1][j]) {
					f[i][j][u] += f[i-1][j][u-j]
				}
				if u < len(f[i][j-1]) {
					f[i][j][u] += f[i][j-1][u]
				}
			}
		}
	}
	return f[n][m]
}
