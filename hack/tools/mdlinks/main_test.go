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
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Quick start: kind", "quick-start-kind"},
		{"Supported versions", "supported-versions"},
		{"Your own suite: `e2e/podorder`", "your-own-suite-e2epodorder"},
		{"The node image, with or without a registry", "the-node-image-with-or-without-a-registry"},
		{"[rule 3] app_start", "rule-3-app_start"},
		{"See [the contract](docs/contract.md) first", "see-the-contract-first"},
		{"Ünïcode stays", "ünïcode-stays"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	text := "# Title\n" +
		"See [a](docs/a.md#part) and [b](<b c.md>) and [web](https://example.com).\n" +
		"`[not](a-link.md)` but [yes](yes.md \"title\")\n" +
		"```sh\n[inside](a-fence.md)\n# not a heading\n```\n" +
		"## Title\n" +
		"<a id=\"custom\"></a>\n" +
		"[ref]: ref/target.md\n"
	d := parse(text)
	wantLinks := []link{{2, "docs/a.md#part"}, {2, "b c.md"}, {2, "https://example.com"}, {3, "yes.md"}, {10, "ref/target.md"}}
	if diff := cmp.Diff(wantLinks, d.links, cmp.AllowUnexported(link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	wantAnchors := map[string]bool{"title": true, "title-1": true, "custom": true}
	if diff := cmp.Diff(wantAnchors, d.anchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n" +
			"[ok](docs/guide.md) [ok anchor](docs/guide.md#setting-up) [own](#top)\n" +
			"[folder](patches) [source line](kubelet/x.go#L3) [web](https://k8s.io)\n" +
			"[gone](docs/missing.md)\n" +
			"[outside](../shared/SPEC.md)\n" +
			"[bad anchor](docs/guide.md#nowhere) [own bad](#bottom)\n" +
			"[absolute](/docs/guide.md)\n")},
		"docs/guide.md":          {Data: []byte("## Setting up\nBack to [the top](../README.md#top).\n")},
		"patches/v1.37/series":   {Data: []byte("x\n")},
		"kubelet/x.go":           {Data: []byte("package x\n")},
		"_output/junk/broken.md": {Data: []byte("[gone](nowhere.md)\n")},
	}
	broken, files, err := check(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 {
		t.Errorf("read %d Markdown files, want 2 (_output is skipped)", files)
	}
	want := []Broken{
		{"README.md", 4, "docs/missing.md", "no such file or folder"},
		{"README.md", 5, "../shared/SPEC.md", "outside the repository"},
		{"README.md", 6, "docs/guide.md#nowhere", "no heading with the anchor #nowhere in docs/guide.md"},
		{"README.md", 6, "#bottom", "no heading with the anchor #bottom in README.md"},
		{"README.md", 7, "/docs/guide.md", "an absolute path: links are relative to the file"},
	}
	if diff := cmp.Diff(want, broken); diff != "" {
		t.Errorf("broken links (-want +got):\n%s", diff)
	}
}

func TestCheckMachinePathsAndREADMELength(t *testing.T) {
	long := strings.Repeat("line\n", readmeMaxLines+1)
	fsys := fstest.MapFS{
		"README.md": {Data: []byte(long)},
		"docs/prototyping.md": {Data: []byte("# Prototyping\n" +
			"==> built $PWD/_output/v1.37.1/bin/kubelet\n" +
			"==> built /work/main/_output/v1.37.1/bin/kubelet\n" +
			"```\nmountPath: /shared\ncat /var/lib/kubelet/config.yaml\n```\n")},
		"docs/bench/samples.json":   {Data: []byte(`[{"error":"the kubelet's log: open /home/ci/sidecar-kubelet/x.log: no such file"}]` + "\n")},
		"docs/bench/timeline-a.svg": {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>/ready</text></svg>` + "\n")},
		"docs/bench/raw.bin":        {Data: []byte("/root/x\x00")},
		"hack/notes.txt":            {Data: []byte("/root/not-a-document\n")},
	}
	broken, files, err := check(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if files != 4 {
		t.Errorf("read %d documents, want 4 (Markdown, and the text files under docs/)", files)
	}
	fix := ": write it as $PWD/..., relative to the repository, or <repo>/..."
	want := []Broken{
		{"README.md", readmeMaxLines + 1, "", fmt.Sprintf("%d lines, over the front page's %d: move the detail into docs/", readmeMaxLines+1, readmeMaxLines)},
		{"docs/bench/samples.json", 1, "/home/ci/sidecar-kubelet/x.log", "a path of one machine's files (a home directory)" + fix},
		{"docs/prototyping.md", 3, "/work/main/_output/v1.37.1/bin/kubelet", "a path of one machine's files (a checkout's _output)" + fix},
	}
	if diff := cmp.Diff(want, broken); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
