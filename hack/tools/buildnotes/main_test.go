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
	"strings"
	"testing"
	"testing/fstest"

	stdcmp "cmp"
	"github.com/google/go-cmp/cmp"
)

var current = map[string]string{"1.99.1": "4f87f1833054", "1.100.0-alpha.0": "aaaaaaaaaaaa"}

func TestNote(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no kubelet of the fork", "`make e2e-node KUBELET=upstream` ... kubelet `v1.99.1`", ""},
		{"the series as they are", "kubelet v1.99.1-sidecar-kubelet+4f87f1833054: 11 of 11",
			"*The fork's kubelet above: `v1.99.1-sidecar-kubelet+4f87f1833054` is a build of the series as they are now.*"},
		{"an earlier build", "kubelet v1.99.1-sidecar-kubelet+47f40904666f",
			"*The fork's kubelet above: `v1.99.1-sidecar-kubelet+47f40904666f` is an earlier build of the series, whose build is now `+4f87f1833054`.*"},
		{"a release no longer supported", "v1.34.1-sidecar-kubelet+0123456789ab",
			"*The fork's kubelet above: `v1.34.1-sidecar-kubelet+0123456789ab` is of a release no longer supported.*"},
		{"each build once, by release, a pre-release's too",
			"v1.100.0-alpha.0-sidecar-kubelet+aaaaaaaaaaaa and v1.99.1-sidecar-kubelet+4f87f1833054, v1.100.0-alpha.0-sidecar-kubelet+aaaaaaaaaaaa",
			"*The fork's kubelet above: `v1.99.1-sidecar-kubelet+4f87f1833054` is a build of the series as they are now; `v1.100.0-alpha.0-sidecar-kubelet+aaaaaaaaaaaa` is a build of the series as they are now.*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Note(tc.text, current)); diff != "" {
				t.Errorf("Note (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareReleases(t *testing.T) {
	ordered := []string{"1.9.3", "1.10.0-alpha.0", "1.10.0-beta.1", "1.10.0", "1.10.2", "2.0.0"}
	for i, a := range ordered {
		for j, b := range ordered {
			if got, want := compareReleases(a, b), stdcmp.Compare(i, j); got != want {
				t.Errorf("compareReleases(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestWithNotes(t *testing.T) {
	const (
		earlier = "<!-- e2e:begin (written by make e2e-node; do not edit) -->\n| patched, `v1.99.1-sidecar-kubelet+47f40904666f` | 138 |\n<!-- e2e:end -->\n"
		now     = "<!-- e2e:begin (written by make e2e-node; do not edit) -->\n| patched, `v1.99.1-sidecar-kubelet+4f87f1833054` | 138 |\n<!-- e2e:end -->\n"
		noFork  = "<!-- e2e:begin (written by make e2e-node; do not edit) -->\n| upstream, `v1.99.1` | 129 |\n<!-- e2e:end -->\n"
	)
	noteOf := func(line string) string {
		return "\n<!-- e2e-build:begin (written by make docs-results; do not edit) -->\n" + line + "\n<!-- e2e-build:end -->\n"
	}
	earlierNote := noteOf(Note(earlier, current))
	nowNote := noteOf(Note(now, current))
	for _, tc := range []struct {
		name, doc, want, wantErr string
	}{
		{name: "no block", doc: "# Title\n\ntext\n", want: "# Title\n\ntext\n"},
		{name: "a note is added under a block of an earlier build",
			doc:  "before\n\n" + earlier + "\nafter\n",
			want: "before\n\n" + earlier + earlierNote + "\nafter\n"},
		{name: "written again, it changes nothing",
			doc:  "before\n\n" + earlier + earlierNote + "\nafter\n",
			want: "before\n\n" + earlier + earlierNote + "\nafter\n"},
		{name: "a new run of the block replaces its note",
			doc:  "before\n\n" + now + earlierNote + "\nafter\n",
			want: "before\n\n" + now + nowNote + "\nafter\n"},
		{name: "a block that names no fork kubelet loses its note",
			doc:  noFork + earlierNote + "\nafter\n",
			want: noFork + "\nafter\n"},
		{name: "an exempt block gets no note, and loses one it had",
			doc:  "<!-- prototyping-example:begin -->\nv1.99.1-sidecar-kubelet+47f40904666f\n<!-- prototyping-example:end -->\n\n<!-- prototyping-example-build:begin -->\nnote\n<!-- prototyping-example-build:end -->\n",
			want: "<!-- prototyping-example:begin -->\nv1.99.1-sidecar-kubelet+47f40904666f\n<!-- prototyping-example:end -->\n"},
		{name: "a block at the end of a file without a newline",
			doc:  "<!-- e2e:begin -->\nv1.99.1-sidecar-kubelet+4f87f1833054\n<!-- e2e:end -->",
			want: "<!-- e2e:begin -->\nv1.99.1-sidecar-kubelet+4f87f1833054\n<!-- e2e:end -->\n" + nowNote},
		{name: "a block without its end line", doc: "<!-- e2e:begin -->\ntext\n", wantErr: `the block "e2e" (line 1) has no end line`},
		{name: "a block ended by another's end line", doc: "<!-- e2e:begin -->\n<!-- kind:end -->\n", wantErr: `the block "e2e" (line 1) ends as "kind" (line 2)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WithNotes(tc.doc, current)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("WithNotes error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WithNotes (-want +got):\n%s", diff)
			}
			again, err := WithNotes(got, current)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("WithNotes is not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestDocFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                 {},
		"docs/kind.md":              {},
		"docs/kep/README.md":        {},
		"docs/results/kind-v1.md":   {},
		"docs/bench/report.md":      {},
		"docs/bench/pictures/a.svg": {},
	}
	got, err := docFiles(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"docs/kep/README.md", "docs/kind.md"}, got); diff != "" {
		t.Errorf("docFiles (-want +got):\n%s", diff)
	}
}

// FuzzWithNotes: any document either is refused or gets notes that a
// second pass leaves as they are, and no note is written twice.
func FuzzWithNotes(f *testing.F) {
	f.Add("<!-- e2e:begin -->\nv1.99.1-sidecar-kubelet+47f40904666f\n<!-- e2e:end -->\n")
	f.Add("<!-- a-build:begin -->\n<!-- a-build:end -->\n<!-- a:begin -->\n<!-- a:end -->")
	f.Fuzz(func(t *testing.T, doc string) {
		once, err := WithNotes(doc, current)
		if err != nil {
			return
		}
		twice, err := WithNotes(once, current)
		if err != nil {
			t.Fatalf("a document WithNotes wrote is refused: %v\n%q", err, once)
		}
		if once != twice {
			t.Fatalf("not idempotent:\n%q\n%q", once, twice)
		}
	})
}
