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

// mdlinks checks the repository's documents:
//
//   - every relative link of its Markdown files resolves inside the
//     repository: the file or folder exists, and a #fragment names a
//     heading of the Markdown file it points into (GitHub's anchors). A
//     clone has nothing beside the repository, so a link that leaves it
//     (../shared/...) is broken for every reader;
//   - no Markdown file, and no file the commands write into docs/ (the
//     benchmark's report, samples and pictures), holds an absolute path of
//     one machine: a checkout, a home, a temporary directory (paths.go
//     says what counts). Write $PWD/..., a path relative to the
//     repository, or <repo>/... instead;
//   - README.md, the front page, stays within 200 lines.
//
// Usage:
//
//	mdlinks [root]               root defaults to the current directory
//	mdlinks -paths ROOT FILE...  only the machine paths of these files (any text)
//
// It prints one line per problem (file:line: target: why) and exits 1
// when there is one. Links with a scheme (https:, mailto:) are not
// followed; _output, .git and vendor are not read.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "-paths" {
		os.Exit(checkFiles(os.Args[2:]))
	}
	root := "."
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: mdlinks [root] | mdlinks -paths ROOT FILE...")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		root = os.Args[1]
	}
	problems, files, err := check(os.DirFS(root))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mdlinks:", err)
		os.Exit(2)
	}
	for _, b := range problems {
		fmt.Println(b)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "mdlinks: %d problem(s) in %d documents\n", len(problems), files)
		os.Exit(1)
	}
	fmt.Printf("mdlinks: %d documents: every relative link resolves, no machine's paths, README.md within %d lines\n", files, readmeMaxLines)
}

// checkFiles reports the machine paths of the files args[1:] (a command's
// output before it goes into a document) and returns the exit status. The
// repository is at args[0].
func checkFiles(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mdlinks -paths ROOT FILE...")
		return 2
	}
	repo, names := os.DirFS(args[0]), args[1:]
	n := 0
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mdlinks:", err)
			return 2
		}
		for _, p := range pathProblems(name, string(b), inFS(repo)) {
			fmt.Println(p)
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(os.Stderr, "mdlinks: %d machine path(s)\n", n)
		return 1
	}
	return 0
}

// skipDirs are not the repository's documents.
var skipDirs = map[string]bool{".git": true, "_output": true, "vendor": true, "node_modules": true}

// readmeMaxLines bounds the front page: what does not fit belongs in docs/.
const readmeMaxLines = 200

// Broken is one problem of a document: a link that does not resolve, a
// machine's path, a README too long.
type Broken struct {
	File   string
	Line   int
	Target string
	Why    string
}

func (b Broken) String() string {
	if b.Target == "" {
		return fmt.Sprintf("%s:%d: %s", b.File, b.Line, b.Why)
	}
	return fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Why)
}

// isWritten says whether the file at p (slash-separated, from the top) is
// read for machine paths beside the Markdown files: what the commands
// write into docs/ (bench/report.md, samples.json, timeline-*.svg, ...).
func isWritten(p string) bool { return strings.HasPrefix(p, "docs/") }

// check reads every Markdown file under fsys, and every file under docs/,
// and returns the problems, sorted by file and line, and how many files
// it read.
func check(fsys fs.FS) ([]Broken, int, error) {
	docs := map[string]*doc{}
	texts := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		md := strings.HasSuffix(p, ".md")
		if d.IsDir() || !d.Type().IsRegular() || (!md && !isWritten(p)) {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if strings.IndexByte(string(b), 0) >= 0 {
			return nil // not text
		}
		texts[p] = string(b)
		if md {
			docs[p] = parse(string(b))
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	var broken []Broken
	for p, d := range docs {
		for _, l := range d.links {
			if why := resolve(fsys, docs, p, l.target); why != "" {
				broken = append(broken, Broken{File: p, Line: l.line, Target: l.target, Why: why})
			}
		}
	}
	for p, text := range texts {
		broken = append(broken, pathProblems(p, text, inFS(fsys))...)
	}
	if text, ok := texts["README.md"]; ok {
		if n := strings.Count(text, "\n"); n > readmeMaxLines {
			broken = append(broken, Broken{File: "README.md", Line: readmeMaxLines + 1,
				Why: fmt.Sprintf("%d lines, over the front page's %d: move the detail into docs/", n, readmeMaxLines)})
		}
	}
	sort.SliceStable(broken, func(i, j int) bool {
		if broken[i].File != broken[j].File {
			return broken[i].File < broken[j].File
		}
		return broken[i].Line < broken[j].Line
	})
	return broken, len(texts), nil
}

// pathProblems reports the machine paths of a file's text, line by line.
func pathProblems(file, text string, inRepo func(string) bool) []Broken {
	var out []Broken
	for i, line := range strings.Split(text, "\n") {
		for _, f := range machinePaths(line, inRepo) {
			out = append(out, Broken{File: file, Line: i + 1, Target: f.path,
				Why: "a path of one machine's files (" + f.why + "): write it as $PWD/..., relative to the repository, or <repo>/..."})
		}
	}
	return out
}

// inFS says whether a slash-separated path exists in fsys.
func inFS(fsys fs.FS) func(string) bool {
	return func(p string) bool {
		if !fs.ValidPath(p) {
			return false
		}
		_, err := fs.Stat(fsys, p)
		return err == nil
	}
}

// resolve says why the link target of the Markdown file from does not
// resolve, or "" when it does.
func resolve(fsys fs.FS, docs map[string]*doc, from, target string) string {
	if hasScheme(target) {
		return ""
	}
	pathPart, fragment, _ := strings.Cut(target, "#")
	pathPart, _, _ = strings.Cut(pathPart, "?")
	dest := from
	if pathPart != "" {
		if strings.HasPrefix(pathPart, "/") {
			return "an absolute path: links are relative to the file"
		}
		dest = path.Join(path.Dir(from), pathPart) // fs.FS paths are slash-separated
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return "outside the repository"
		}
		if _, err := fs.Stat(fsys, dest); err != nil {
			return "no such file or folder"
		}
	}
	if fragment == "" {
		return ""
	}
	d, ok := docs[dest]
	if !ok {
		return "" // a fragment into a source file (a line anchor) is not checked
	}
	if !d.anchors[fragment] {
		return fmt.Sprintf("no heading with the anchor #%s in %s", fragment, dest)
	}
	return ""
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func hasScheme(target string) bool { return schemeRE.MatchString(target) }

type link struct {
	line   int
	target string
}

// doc is what a Markdown file offers and asks: its headings' anchors and
// its links.
type doc struct {
	anchors map[string]bool
	links   []link
}

var (
	inlineLinkRE = regexp.MustCompile(`\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)`)
	refDefRE     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	headingRE    = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRE     = regexp.MustCompile(`<[a-zA-Z][^>]*\s(?:id|name)="([^"]+)"`)
	codeSpanRE   = regexp.MustCompile("`+[^`]*`+")
)

// parse collects a Markdown file's anchors and links, outside fenced code
// blocks and code spans.
func parse(text string) *doc {
	d := &doc{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			d.anchors[m[1]] = true
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			a := slug(m[2])
			if n := seen[a]; n > 0 {
				d.anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				d.anchors[a] = true
			}
			seen[a]++
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			d.links = append(d.links, link{line: i + 1, target: m[1]})
			continue
		}
		for _, m := range inlineLinkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			d.links = append(d.links, link{line: i + 1, target: m[1] + m[2]})
		}
	}
	return d
}

var headingLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor of a heading: the text of its links, lower case,
// letters, digits, '-' and '_' kept, spaces turned into '-', the rest
// dropped.
func slug(heading string) string {
	heading = headingLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
