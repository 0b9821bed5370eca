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

	"github.com/google/go-cmp/cmp"
)

// series is a series folder pinned to release, as UPSTREAM_VERSION text.
func series(fsys fstest.MapFS, minor, upstreamVersion string) {
	fsys["patches/v"+minor+"/series"] = &fstest.MapFile{Data: []byte("a.patch\n")}
	fsys["patches/v"+minor+"/UPSTREAM_VERSION"] = &fstest.MapFile{Data: []byte(upstreamVersion)}
}

func TestPins(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fsys    func(fstest.MapFS)
		want    []Pin
		wantErr string
	}{
		{
			name: "read as hack/lib.sh reads them: comments, blanks and a v dropped; sorted by minor",
			fsys: func(f fstest.MapFS) {
				series(f, "2.1", "# the pinned release\n\n  v2.1.7  # since the rebase\n")
				series(f, "2.0", "2.0.12\n")
			},
			want: []Pin{{Minor: "2.0", Release: "2.0.12"}, {Minor: "2.1", Release: "2.1.7"}},
		},
		{
			name: "a folder without a series file is not a series",
			fsys: func(f fstest.MapFS) {
				series(f, "2.1", "2.1.7\n")
				f["patches/v2.2/UPSTREAM_VERSION"] = &fstest.MapFile{Data: []byte("2.2.0\n")}
			},
			want: []Pin{{Minor: "2.1", Release: "2.1.7"}},
		},
		{
			name: "a pre-release pin; minors sorted as numbers",
			fsys: func(f fstest.MapFS) {
				series(f, "2.10", "2.10.0-alpha.0\n")
				series(f, "2.9", "v2.9.1\n")
				series(f, "2.11", "2.11.0-rc.1 # before the release\n")
			},
			want: []Pin{{Minor: "2.9", Release: "2.9.1"}, {Minor: "2.10", Release: "2.10.0-alpha.0"}, {Minor: "2.11", Release: "2.11.0-rc.1"}},
		},
		{
			name:    "an empty pre-release",
			fsys:    func(f fstest.MapFS) { series(f, "2.2", "2.2.0-\n") },
			wantErr: `patches/v2.2/UPSTREAM_VERSION says "2.2.0-", not a v2.2.Z release or v2.2.Z-pre pre-release`,
		},
		{
			name:    "a pre-release of another minor",
			fsys:    func(f fstest.MapFS) { series(f, "2.2", "2.1.0-alpha.0\n") },
			wantErr: `says "2.1.0-alpha.0", not a v2.2.Z release`,
		},
		{
			name:    "a release of another minor",
			fsys:    func(f fstest.MapFS) { series(f, "2.1", "2.0.3\n") },
			wantErr: `patches/v2.1/UPSTREAM_VERSION says "2.0.3", not a v2.1.Z release`,
		},
		{
			name:    "no series",
			fsys:    func(f fstest.MapFS) {},
			wantErr: "no series folder",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			tc.fsys(fsys)
			got, err := pins(fsys)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("pins: error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n" +
			"The default is v2.1.7 by hand.\n" + // 2
			"<!-- versions:begin (written by make verify-versions; do not edit) -->\n" +
			"| 2.1 | v2.1.7 |\n" +
			"<!-- versions:end -->\n" +
			"Built v2.1.7-sidecar-kubelet+abc.\n" + // 6
			"Not it: v2.1.70, v12.1.7, v2.1.7.1, v0.1.7 (staging), v2.1.6.\n" +
			"The pinned release (patches/v2.1/UPSTREAM_VERSION), or v2.1.\n" +
			"Said at the end of a sentence: v2.0.12.\n" +
			"The pre-release v2.2.0-alpha.0, built as v2.2.0-alpha.0-sidecar-kubelet+abc.\n" + // 10
			"Not it: v2.2.0-alpha.01, v2.2.0-alpha.0.1, v2.2.0-alpha.1, v2.2.0, v0.2.0-alpha.0 (staging).\n" +
			"<!-- versions:begin -->\n| 2.2 | v2.2.0-alpha.0 (pre-release) |\n<!-- versions:end -->\n")}, // 12-14
		"docs/bench/report.md":              {Data: []byte("Kubelets: fork v2.1.7-sidecar-kubelet+abc, upstream v2.1.7.\n")},
		"kind-config/published-node-images": {Data: []byte("v2.0.12 kindest/node:v2.0.12@sha256:00\n")},
		"kind-config/one-node.yaml":         {Data: []byte("nodes:\n- role: control-plane\n  image: sidecar-kubelet/node:v2.1.7\n")},
		"hack/kind/Dockerfile":              {Data: []byte("ARG BASE=kindest/node:v2.1.7\n")},
		"hack/x_test.go":                    {Data: []byte(`	Gates: gateOptions{K8sVersion: "2.0.12"},` + "\n")},
		"notes.txt":                         {Data: []byte("<!-- versions:begin -->\nv2.1.7 (not Markdown: a block does not count)\n")},
		"bin/tool":                          {Data: []byte("\x00v2.1.7")},
		"_output/v2.1.7/go.mod":             {Data: []byte("module sidecar-kubelet.build/v2.1.7\n")},
	}
	series(fsys, "2.1", "2.1.7\n")
	series(fsys, "2.0", "v2.0.12\n")
	series(fsys, "2.2", "2.2.0-alpha.0\n")
	releases, err := pins(fsys)
	if err != nil {
		t.Fatal(err)
	}
	hits, files, err := check(fsys, releases)
	if err != nil {
		t.Fatal(err)
	}
	p20, p21 := Pin{Minor: "2.0", Release: "2.0.12"}, Pin{Minor: "2.1", Release: "2.1.7"}
	p22 := Pin{Minor: "2.2", Release: "2.2.0-alpha.0"}
	want := []Hit{
		{File: "README.md", Line: 2, Pin: p21},
		{File: "README.md", Line: 6, Pin: p21},
		{File: "README.md", Line: 9, Pin: p20},
		{File: "README.md", Line: 10, Pin: p22},
		{File: "hack/kind/Dockerfile", Line: 1, Pin: p21},
		{File: "hack/x_test.go", Line: 1, Pin: p20},
		{File: "kind-config/one-node.yaml", Line: 3, Pin: p21},
		{File: "notes.txt", Line: 2, Pin: p21},
	}
	if diff := cmp.Diff(want, hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	// README.md, the Dockerfile, the test, the config, notes.txt and the
	// three series files; not the UPSTREAM_VERSION files, the records,
	// binaries or _output.
	if files != 8 {
		t.Errorf("read %d files, want 8", files)
	}
	if got, want := hits[0].String(), "README.md:2: v2.1.7, the pinned release of v2.1, written by hand: read it from patches/v2.1/UPSTREAM_VERSION"; !strings.HasPrefix(got, want) {
		t.Errorf("a hit reads %q, want it to start with %q", got, want)
	}
}
