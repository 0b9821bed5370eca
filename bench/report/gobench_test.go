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

func TestParseGoBenchAndTable(t *testing.T) {
	out := "patched\tgoos: linux\n" +
		"patched\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     11000 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"patched\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     13000 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"patched\tBenchmarkComputePodActions/two-annotated-sidecars-2\t   20000\t     13200 ns/op\t    5880 B/op\t     217 allocs/op\n" +
		"upstream\tBenchmarkComputePodActions/no-sidecars-2         \t   20000\t     11500 ns/op\t    5464 B/op\t     211 allocs/op\n" +
		"upstream\tPASS\n" +
		"no tab here\n"
	benches, err := parseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []goBench{
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 11000, BPerOp: 5464, AllocsPerOp: 211},
		{Tree: "patched", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 13000, BPerOp: 5464, AllocsPerOp: 211},
		{Tree: "patched", Name: "BenchmarkComputePodActions/two-annotated-sidecars", Ops: 20000, NsPerOp: 13200, BPerOp: 5880, AllocsPerOp: 217},
		{Tree: "upstream", Name: "BenchmarkComputePodActions/no-sidecars", Ops: 20000, NsPerOp: 11500, BPerOp: 5464, AllocsPerOp: 211},
	}
	if diff := cmp.Diff(want, benches); diff != "" {
		t.Fatalf("parsed (-want +got):\n%s", diff)
	}
	var b strings.Builder
	goBenchTable(&b, benches)
	wantTable := `| benchmark | upstream | patched | patched vs upstream |
| --- | ---: | ---: | ---: |
| no-sidecars | 11.50 µs, 5464 B, 211 allocs (median of 1) | 12.00 µs, 5464 B, 211 allocs (median of 2) | ~ (p=1.000 n=1+2) |
| two-annotated-sidecars | — | 13.20 µs, 5880 B, 217 allocs (median of 1) | — |
`
	if diff := cmp.Diff(wantTable, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}
