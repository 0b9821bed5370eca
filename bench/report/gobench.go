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
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// goBench is one line of `go test -bench` output.
type goBench struct {
	Tree, Name           string
	NsPerOp, BPerOp, Ops float64
	AllocsPerOp          float64
}

// parseGoBench reads `go test -bench` output; every line of it is
// prefixed with the tree's name and a tab by hack/bench/run.sh ("patched\t...").
func parseGoBench(r io.Reader) ([]goBench, error) {
	var out []goBench
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		tree, line, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		b := goBench{Tree: tree, Name: f[0]}
		// Drop the GOMAXPROCS suffix (-2).
		if i := strings.LastIndex(b.Name, "-"); i > 0 {
			if _, err := strconv.Atoi(b.Name[i+1:]); err == nil {
				b.Name = b.Name[:i]
			}
		}
		var err error
		if b.Ops, err = strconv.ParseFloat(f[1], 64); err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			switch f[i+1] {
			case "ns/op":
				b.NsPerOp = v
			case "B/op":
				b.BPerOp = v
			case "allocs/op":
				b.AllocsPerOp = v
			}
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

// median is the middle of the values (the mean of the two middle ones for
// an even count); NaN for none. The values are not reordered.
func median(values []float64) float64 {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	if len(v) == 0 {
		return math.NaN()
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// goBenchTable writes the medians per tree and benchmark and the patched
// tree's difference to upstream, benchstat's way (compare).
func goBenchTable(w io.Writer, benches []goBench) {
	type key struct{ tree, name string }
	ns := map[key][]float64{}
	last := map[key]goBench{}
	var names []string
	seen := map[string]bool{}
	for _, b := range benches {
		k := key{b.Tree, b.Name}
		ns[k] = append(ns[k], b.NsPerOp)
		last[k] = b
		if !seen[b.Name] {
			seen[b.Name] = true
			names = append(names, b.Name)
		}
	}
	fmt.Fprintln(w, "| benchmark | upstream | patched | patched vs upstream |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: |")
	for _, n := range names {
		up, pa := key{"upstream", n}, key{"patched", n}
		cell := func(k key) string {
			if len(ns[k]) == 0 {
				return "—"
			}
			b := last[k]
			return fmt.Sprintf("%.2f µs, %.0f B, %.0f allocs (median of %d)", median(ns[k])/1e3, b.BPerOp, b.AllocsPerOp, len(ns[k]))
		}
		diff := "—"
		if len(ns[up]) > 0 && len(ns[pa]) > 0 {
			diff = compare(ns[up], ns[pa]).String()
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", strings.TrimPrefix(n, "BenchmarkComputePodActions/"), cell(up), cell(pa), diff)
	}
}
