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

// Command buildnotes says, under every block of the docs that a command
// wrote from a run of the fork's kubelet, whether that kubelet is a build
// of the series as they are now: a reader of docs/prototyping.md or
// docs/kind.md sees at once that a table reports an earlier build, as the
// README's results table says of docs/results.
//
//	buildnotes [-check] -current 1.99.1=4f87f1833054 [-current ...] ROOT
//
// A generated block is the lines from "<!-- NAME:begin (written by ...)"
// to "<!-- NAME:end"; the kubelets it names are the versions the fork's
// builds carry (v1.99.1-sidecar-kubelet+<12 hex digits of the build
// hash>). Its note is the block NAME-build right after it, one blank line
// between, written by make docs-results; -check (make test-docs) fails
// where a note is not what it would write. -current gives each supported
// release's build hash now (hack/lib.sh's build_hash, which
// hack/docs/results-table.sh computes); a release without one is no longer
// supported. The README (whose results table says the same per run),
// docs/results (one run each, listed in that table) and docs/bench (a
// run's own report) are left alone.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// currentFlag collects -current RELEASE=HASH.
type currentFlag map[string]string

func (c currentFlag) String() string { return fmt.Sprint(map[string]string(c)) }

func (c currentFlag) Set(v string) error {
	release, hash, ok := strings.Cut(v, "=")
	if !ok || release == "" || !hashRe.MatchString(hash) {
		return fmt.Errorf("want RELEASE=HASH (12 hex digits), got %q", v)
	}
	c[release] = hash
	return nil
}

var hashRe = regexp.MustCompile(`^[0-9a-f]{12}$`)

func main() {
	check := flag.Bool("check", false, "fail where a note is not what it would write, instead of writing it")
	current := currentFlag{}
	flag.Var(current, "current", "RELEASE=HASH: the build hash of a supported release's series now (repeated)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: buildnotes [-check] -current RELEASE=HASH ... ROOT")
		os.Exit(2)
	}
	root := flag.Arg(0)
	files, err := docFiles(os.DirFS(root))
	if err != nil {
		fmt.Fprintln(os.Stderr, "buildnotes:", err)
		os.Exit(1)
	}
	stale := 0
	for _, name := range files {
		path := filepath.Join(root, name)
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "buildnotes:", err)
			os.Exit(1)
		}
		want, err := WithNotes(string(data), current)
		if err != nil {
			fmt.Fprintf(os.Stderr, "buildnotes: %s: %v\n", name, err)
			os.Exit(1)
		}
		if want == string(data) {
			continue
		}
		if *check {
			fmt.Fprintf(os.Stderr, "buildnotes: %s: the notes under its generated blocks are not what the series say now\n", name)
			stale++
			continue
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "buildnotes:", err)
			os.Exit(1)
		}
		fmt.Printf("buildnotes: wrote the notes of %s\n", name)
	}
	if stale > 0 {
		fmt.Fprintf(os.Stderr, "buildnotes: %d file(s) out of date: run make docs-results\n", stale)
		os.Exit(1)
	}
	if *check {
		fmt.Printf("buildnotes: the notes under %d document(s)' generated blocks say which build each run was of\n", len(files))
	}
}

// docFiles lists the Markdown files of docs/ that carry notes: all but
// docs/results and docs/bench.
func docFiles(fsys fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, "docs", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (p == "docs/results" || p == "docs/bench"):
			return fs.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".md"):
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

var (
	beginRe = regexp.MustCompile(`^<!-- ([a-z0-9-]+):begin\b`)
	endRe   = regexp.MustCompile(`^<!-- ([a-z0-9-]+):end\b`)
	buildRe = regexp.MustCompile(`v([0-9]+\.[0-9]+\.[0-9]+(?:-[a-z]+\.[0-9]+)?)-sidecar-kubelet\+([0-9a-f]{12})`)
)

// noteSuffix ends the name of a block's note.
const noteSuffix = "-build"

// Exempt are the blocks that name builds of the fork's kubelet which are,
// by design, no build of the series, and why; they get no note.
var Exempt = map[string]string{
	"prototyping-example": "the transcript of make docs-prototyping: its kubelets are a throwaway clone's, one before and one after the change the example makes",
}

// WithNotes returns doc with a note after every generated block that names
// a build of the fork's kubelet, and without the notes of blocks that name
// none (or no longer exist). It is linear in doc's length.
func WithNotes(doc string, current map[string]string) (string, error) {
	lines := strings.SplitAfter(doc, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		m := beginRe.FindStringSubmatch(line)
		if m == nil {
			out = append(out, line)
			continue
		}
		name := m[1]
		end := i + 1
		for end < len(lines) && !endRe.MatchString(lines[end]) {
			end++
		}
		if end == len(lines) {
			return "", fmt.Errorf("the block %q (line %d) has no end line", name, i+1)
		}
		if e := endRe.FindStringSubmatch(lines[end]); e[1] != name {
			return "", fmt.Errorf("the block %q (line %d) ends as %q (line %d)", name, i+1, e[1], end+1)
		}
		if strings.HasSuffix(name, noteSuffix) {
			// A note whose block is gone: it is written again, if at all,
			// after its block. Drop it and the blank line before it.
			if n := len(out); n > 0 && out[n-1] == "\n" {
				out = out[:n-1]
			}
			i = end
			continue
		}
		block := lines[i : end+1]
		out = append(out, block...)
		i = end
		// This block's note, if one follows, is replaced.
		if j := i + 1; j+1 < len(lines) && lines[j] == "\n" && strings.HasPrefix(lines[j+1], "<!-- "+name+noteSuffix+":begin") {
			k := j + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], "<!-- "+name+noteSuffix+":end") {
				k++
			}
			if k == len(lines) {
				return "", fmt.Errorf("the note of %q has no end line", name)
			}
			i = k
		}
		note := Note(strings.Join(block[1:len(block)-1], ""), current)
		if _, exempt := Exempt[name]; note == "" || exempt {
			continue
		}
		if !strings.HasSuffix(out[len(out)-1], "\n") {
			out[len(out)-1] += "\n"
		}
		out = append(out, "\n",
			"<!-- "+name+noteSuffix+":begin (written by make docs-results; do not edit) -->\n",
			note+"\n",
			"<!-- "+name+noteSuffix+":end -->\n")
	}
	return strings.Join(out, ""), nil
}

// Note is the line that says which builds of the fork's kubelet a block's
// text names, each once in order of release: of the series as they are
// now, an earlier build, or a release no longer supported. Empty if it
// names none.
func Note(text string, current map[string]string) string {
	type build struct{ release, hash string }
	var builds []build
	for _, m := range buildRe.FindAllStringSubmatch(text, -1) {
		if b := (build{m[1], m[2]}); !slices.Contains(builds, b) {
			builds = append(builds, b)
		}
	}
	if len(builds) == 0 {
		return ""
	}
	slices.SortStableFunc(builds, func(a, b build) int { return compareReleases(a.release, b.release) })
	var says []string
	for _, b := range builds {
		kubelet := fmt.Sprintf("`v%s-sidecar-kubelet+%s`", b.release, b.hash)
		switch now, ok := current[b.release]; {
		case !ok:
			says = append(says, kubelet+" is of a release no longer supported")
		case now == b.hash:
			says = append(says, kubelet+" is a build of the series as they are now")
		default:
			says = append(says, fmt.Sprintf("%s is an earlier build of the series, whose build is now `+%s`", kubelet, now))
		}
	}
	return "*The fork's kubelet above: " + strings.Join(says, "; ") + ".*"
}

// compareReleases orders releases X.Y.Z[-pre.N] as versions: by X, Y and Z
// as numbers, and a pre-release before its release.
func compareReleases(a, b string) int {
	av, apre, _ := strings.Cut(a, "-")
	bv, bpre, _ := strings.Cut(b, "-")
	as, bs := strings.Split(av, "."), strings.Split(bv, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := cmp.Compare(number(as[i]), number(bs[i])); c != 0 {
			return c
		}
	}
	switch {
	case apre == bpre:
		return cmp.Compare(len(as), len(bs))
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	return strings.Compare(apre, bpre)
}

// number is s as a number, or 0: s comes from buildRe's digits.
func number(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
