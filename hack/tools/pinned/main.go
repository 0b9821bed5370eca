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

// pinned checks that each series' pinned upstream release is written in
// one place, patches/vX.Y/UPSTREAM_VERSION, which hack/lib.sh reads: a
// release written again by hand elsewhere goes stale at the next `make
// rebase`. Scripts take it from hack/lib.sh (K8S_VERSION), Go tests from
// hack/patches/k8s-version.sh, the Dockerfile as a build argument, the
// kind configs from hack/kind/cluster.sh; prose says "the pinned release
// (patches/vX.Y/UPSTREAM_VERSION)" or names the minor.
//
// Where a release may stand, because a command wrote it there as a record
// of what it ran or measured:
//
//   - in a Markdown file, between the lines "<!-- NAME:begin" and
//     "<!-- NAME:end" (the blocks of make verify-versions, make test-kind,
//     make bench, make docs-prototyping);
//   - in docs/bench/, the reports of make bench;
//   - in kind-config/published-node-images, kind's list of its published
//     node images by release (checked by hack/tools/kindconfig).
//
// Usage:
//
//	pinned [root]     root defaults to the current directory
//
// It prints one line per release written by hand (file:line: why) and
// exits 1 when there is one; _output, .git and vendor are not read.
package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

func main() {
	root := "."
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: pinned [root]")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		root = os.Args[1]
	}
	fsys := os.DirFS(root)
	releases, err := pins(fsys)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinned:", err)
		os.Exit(2)
	}
	hits, files, err := check(fsys, releases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinned:", err)
		os.Exit(2)
	}
	for _, h := range hits {
		fmt.Println(h)
	}
	var list []string
	for _, p := range releases {
		list = append(list, "v"+p.Release)
	}
	if len(hits) > 0 {
		fmt.Fprintf(os.Stderr, "pinned: %d pinned release(s) written by hand in %d files\n", len(hits), files)
		os.Exit(1)
	}
	fmt.Printf("pinned: %s written only in their UPSTREAM_VERSION and in what commands wrote (%d files read)\n", strings.Join(list, ", "), files)
}

// Pin is a series' pinned release.
type Pin struct {
	Minor   string // X.Y
	Release string // X.Y.Z, or X.Y.Z-pre
}

// File is where the pin is written.
func (p Pin) File() string { return "patches/v" + p.Minor + "/UPSTREAM_VERSION" }

// pins reads every series' UPSTREAM_VERSION as hack/lib.sh does
// (pinned_version): # starts a comment, blanks are dropped, the first
// line left is the release, with or without its v, and it must be a
// release (X.Y.Z) or a pre-release (X.Y.Z-pre) of the folder's minor. A
// folder without a series file is not a series (supported_minors). Sorted
// by minor, as numbers.
func pins(fsys fs.FS) ([]Pin, error) {
	dirs, err := fs.Glob(fsys, "patches/v*")
	if err != nil {
		return nil, err
	}
	var out []Pin
	versions := map[string]release.Version{}
	for _, d := range dirs {
		minor := strings.TrimPrefix(path.Base(d), "v")
		if _, err := fs.Stat(fsys, d+"/series"); err != nil {
			continue
		}
		p := Pin{Minor: minor}
		raw, err := fs.ReadFile(fsys, p.File())
		if err != nil {
			continue
		}
		pin := ""
		for _, line := range strings.Split(string(raw), "\n") {
			line, _, _ = strings.Cut(line, "#")
			line = strings.Join(strings.Fields(line), "")
			if line != "" {
				pin = strings.TrimPrefix(line, "v")
				break
			}
		}
		v, err := release.Parse(pin)
		if err != nil || v.MinorString() != minor {
			return nil, fmt.Errorf("%s says %q, not a v%s.Z release or v%s.Z-pre pre-release", p.File(), pin, minor, minor)
		}
		p.Release = pin
		versions[minor] = v
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no series folder with an UPSTREAM_VERSION under patches/")
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := versions[out[i].Minor], versions[out[j].Minor]
		return a.Major < b.Major || a.Major == b.Major && a.Minor < b.Minor
	})
	return out, nil
}

// Hit is a pinned release written by hand.
type Hit struct {
	File string
	Line int
	Pin  Pin
}

func (h Hit) String() string {
	return fmt.Sprintf("%s:%d: v%s, the pinned release of v%s, written by hand: read it from %s "+
		"(scripts: hack/lib.sh's K8S_VERSION; Go tests: hack/patches/k8s-version.sh), say \"the pinned release\" "+
		"or the minor in prose, or let a command write it between <!-- NAME:begin --> and <!-- NAME:end --> lines",
		h.File, h.Line, h.Pin.Release, h.Pin.Minor, h.Pin.File())
}

// skipDirs are not the repository's files.
var skipDirs = map[string]bool{".git": true, "_output": true, "vendor": true, "node_modules": true}

// recorded says whether the file at p holds what commands wrote, as a
// whole.
func recorded(p string) bool {
	return strings.HasPrefix(p, "docs/bench/") || p == "kind-config/published-node-images"
}

var (
	blockBeginRE = regexp.MustCompile(`^<!-- [a-z0-9-]+:begin\b`)
	blockEndRE   = regexp.MustCompile(`^<!-- [a-z0-9-]+:end\b`)
)

// check reads every file under fsys and returns where a pinned release
// is written by hand, sorted by file and line, and how many files it read.
func check(fsys fs.FS, releases []Pin) ([]Hit, int, error) {
	res := make([]*regexp.Regexp, len(releases))
	sources := map[string]bool{}
	for i, p := range releases {
		// Not a longer number: 1.2.3 is in v1.2.3, v1.2.3-sidecar-kubelet+...
		// and "v1.2.3.", not in 1.2.30, 11.2.3 or 1.2.3.4 (nor in the staging
		// modules' v0.2.3).
		res[i] = regexp.MustCompile(`(?:^|[^0-9.])` + regexp.QuoteMeta(p.Release) + `(?:[^0-9.]|\.[^0-9]|\.?$)`)
		sources[p.File()] = true
	}
	var hits []Hit
	files := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || sources[p] || recorded(p) {
			return nil
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if strings.IndexByte(string(raw), 0) >= 0 {
			return nil // not text
		}
		files++
		md := strings.HasSuffix(p, ".md")
		inBlock := false
		s := bufio.NewScanner(strings.NewReader(string(raw)))
		s.Buffer(nil, len(raw)+1)
		for n := 1; s.Scan(); n++ {
			line := s.Text()
			if md && blockBeginRE.MatchString(line) {
				inBlock = true
				continue
			}
			if md && blockEndRE.MatchString(line) {
				inBlock = false
				continue
			}
			if inBlock {
				continue
			}
			for i, re := range res {
				if re.MatchString(line) {
					hits = append(hits, Hit{File: p, Line: n, Pin: releases[i]})
				}
			}
		}
		return s.Err()
	})
	return hits, files, err
}
