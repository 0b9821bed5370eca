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

package main

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	allowed := []struct{ Phrase, Why string }{{"every 100 ms", "a setting"}}
	for _, tc := range []struct {
		name    string
		doc     string
		want    []string // the figures found, "line: figure"
		wantErr string
	}{
		{
			name: "figures with units typed by hand: times, rates, ratios, per pod",
			doc: "All Ready after 40.2 s (annotated) and 39.5 s;\n" +
				"CPU per pod 187 ms/pod, 1.4× the goal, 20/s, 8 %, 1,033 s, 70 µs, 3 min, 10s.\n",
			want: []string{"1: 40.2 s", "1: 39.5 s", "2: 187 ms/pod", "2: 1.4×", "2: 20/s", "2: 8 %", "2: 1,033 s", "2: 70 µs", "2: 3 min", "2: 10s"},
		},
		{
			name: "inside a generated block, any figure; outside, the block's lines are read again",
			doc: "<!-- bench-single:begin (written by make bench; do not edit) -->\n" +
				"| a′ | 136 / 261 ms |\n" +
				"<!-- bench-single:end -->\n" +
				"<!-- results:begin (written by make bench; do not edit) -->\n" +
				"took 1138 s\n" +
				"<!-- results:end -->\n" +
				"a′ was 136 ms\n",
			want: []string{"7: 136 ms"},
		},
		{
			name: "bounds, allowed settings and numbers without a unit pass",
			doc: "The goal: a′ p95 ≤ 250 ms, c within ± 20 ms, b < 1 s.\n" +
				"The hook polls every 100 ms; periodSeconds 10, 110 pods, port 10350,\n" +
				"v9.9.1 on 2026-11-25, seconds=70, 20 × (a + b), 200·T + 20 runs, k8s, config-5s.yaml.\n",
		},
		{
			name: "an allowed phrase does not cover the same figure elsewhere on the line",
			doc:  "The hook polls every 100 ms and took 100 ms.\n",
			want: []string{"1: 100 ms"},
		},
		{
			name:    "a block without its end",
			doc:     "<!-- bench-single:begin (written by make bench; do not edit) -->\n| 1 ms |\n",
			wantErr: `the block "bench-single" has no end line`,
		},
		{
			name:    "blocks do not nest",
			doc:     "<!-- a:begin -->\n<!-- b:begin -->\n<!-- b:end -->\n<!-- a:end -->\n",
			wantErr: `inside or outside the wrong block`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := Allowed
			defer func() { Allowed = saved }()
			Allowed = allowed
			fsys := fstest.MapFS{"docs/benchmarks.md": &fstest.MapFile{Data: []byte(tc.doc + "every 100 ms\n")}}
			hits, err := Check(fsys)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				if h.File != "docs/benchmarks.md" {
					t.Errorf("hit in %s: %v", h.File, h)
				}
				got = append(got, strings.TrimSpace(strings.SplitN(h.String(), ":", 3)[1])+": "+h.Figure)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckUnusedAllowed(t *testing.T) {
	saved := Allowed
	defer func() { Allowed = saved }()
	Allowed = []struct{ Phrase, Why string }{{"every 100 ms", "used"}, {"300 ms drain", "used nowhere"}}
	hits, err := Check(fstest.MapFS{"README.md": &fstest.MapFile{Data: []byte("polls every 100 ms\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Figure != "300 ms drain" || !strings.Contains(hits[0].String(), "take it out of Allowed") {
		t.Errorf("hits = %v, want one for the unused phrase", hits)
	}
}

// The repository's own documents pass, as make test-docs runs it.
func TestRepository(t *testing.T) {
	hits, err := Check(os.DirFS("../../.."))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Error(h)
	}
}
