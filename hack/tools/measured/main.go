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

// measured checks that the documents which quote the benchmark's figures
// (Files) carry no measured figure typed by hand: a figure that changes
// from run to run is written by the command that measured it, between the
// lines "<!-- NAME:begin" and "<!-- NAME:end" (make bench's blocks of
// docs/benchmarks.md, the README's results table), where each block names
// its run.
//
// A measured figure is a number with a unit of time, a rate or a ratio:
// 12 ms, 1.5 s, 3 µs, 2 min, 40%, 1.4×, 20/s, 119 ms/pod. Not one:
//
//   - a bound, the number right after ≤, ≥, <, > or ± (a goal: "p95 ≤ 250 ms");
//   - a setting or a scenario's definition named in Allowed below, each with
//     why it is not a measurement. Keep that list short: a figure that a
//     run measured belongs in a block, not in it.
//
// Numbers without a unit (pod counts, dates, ports, periodSeconds 10) are
// not read.
//
// Usage:
//
//	measured [root]     root defaults to the current directory
//
// It prints one line per figure outside a block (file:line: figure) and
// exits 1 when there is one.
package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// Files are the documents checked, relative to the repository: the KEP
// draft quotes make bench's blocks as docs/benchmarks.md does, and its
// termination fix quotes none.
var Files = []string{"README.md", "docs/benchmarks.md", "docs/kep/README.md", "docs/kep/termination-fix.md"}

// Allowed are the phrases whose figures are settings or definitions, not
// measurements: a figure of the pattern inside one of them passes. Each is
// matched as written, within one line.
var Allowed = []struct{ Phrase, Why string }{
	{"every 100 ms", "the postStart way's hook polls /ready this often: the way's definition (bench/measure/pods.go); and the exec probes' first extra-check interval, a setting (sidecars.FirstExtraExecCheckInterval)"},
	{"0.5 s after", "a chain's sidecars turn ready this long after their start: the scenario's definition"},
	{"0.5 to 3 s after", "the density runs' sidecars' ready delays: the scenario's definition"},
	{"300 ms drain", "the test app drains this long on SIGTERM: the scenario's definition"},
	{"20 × (0.5 s + the runtime's start) + 5 s", "the exec chain's goal, a formula (issue 36)"},
	{"default 15 s, 30 s, 45 s", "BENCH_NEVER_READY_LATE's default, a setting"},
	{"windows of 2 s", "the never-ready section's windows, a setting"},
	{"minute and 2 s more", "how long the never-ready runs follow the sidecars, a setting"},
	{"from 10 s to 60 s", "the never-ready goal's window (issue 36)"},
	{"still not ready at 10 s", "when sidecars.ExtraCheckInterval reaches its longest interval, a setting"},
	{"probe between its periods: every 50 ms", "sidecars.ExtraCheckInterval's first interval, a setting (the KEP's follow-up)"},
	{"an exec run counting as 16", "sidecars.ExtraExecCheckCost, a setting"},
	{"for the first 2 s, then backing off, doubling every 2 s,", "sidecars.ExtraCheckInterval's curve, a setting"},
	{"once a second from 10 s on", "sidecars.ExtraCheckInterval's longest interval and when it reaches it, a setting"},
	{"readiness turns 5 s after it runs", "the node e2e spec of the mixed case: its definition"},
	{"readiness turns 10 s after", "the same spec's ungated sidecar: its definition"},
	{"while it runs but is 20 s from ready", "the node e2e spec of a resize before readiness: its definition"},
	{"a 120 s grace period, then again with 60 s", "k/k issue #83916's report, quoted in termination-fix.md"},
	{"waits out the first 120 s", "the same report"},
	{"by more than 2 s", "upstream's 2-second minimum grace, a constant of the kubelet"},
	{"grace period of 1 s", "a delete's grace period in a test: its definition"},
	{"with a 30 s grace period,", "the e2e spec of the second, shorter delete: its definition"},
	{"then again with 2 s, and requires the pod gone within 10 s of the second", "the same spec"},
	{"first delete's 30 s", "the same spec"},
	{"grace period plus 2 s", "an e2e spec's name: its bound"},
	{"a 100 s preStop hook", "a unit test's hook: its definition"},
}

// figureRe is a number and its unit; the character before the number and
// the one after the unit keep names out ("v1.37", "k8s", "10-sidecar",
// "5s.yaml").
// A ratio's × is written against its number (1.4×); "20 × (...)" is a
// product, a formula's.
var figureRe = regexp.MustCompile(`(^|[^\w.,/-])(\d+(?:[.,]\d+)*)(?:[  ]?(?:ms/pod|ms|µs|ns|min|s|/s|%)|×)($|[^\w/])`)

// boundRe: what stands right before a bound's number.
var boundRe = regexp.MustCompile(`(≤|≥|<|>|±)[  ]?$`)

// Hit is one measured figure outside a block.
type Hit struct {
	File   string
	Line   int
	Figure string
	Text   string
}

func (h Hit) String() string {
	if h.Line == 0 {
		return fmt.Sprintf("%s: %q: %s", h.File, h.Figure, h.Text)
	}
	return fmt.Sprintf("%s:%d: %q typed by hand, outside a block written by a command: %s", h.File, h.Line, h.Figure, strings.TrimSpace(h.Text))
}

// blockRe is a generated block's first or last line.
var blockRe = regexp.MustCompile(`^<!-- ([a-z0-9-]+):(begin|end)\b`)

// Check reads each of Files in fsys (a missing one is skipped). An
// Allowed phrase that no line of them holds is a hit too: the list stays
// as short as the documents need.
func Check(fsys fs.FS) ([]Hit, error) {
	var hits []Hit
	used := map[string]bool{}
	for _, name := range Files {
		f, err := fsys.Open(name)
		if err != nil {
			if os.IsNotExist(err) || strings.Contains(err.Error(), "not exist") {
				continue
			}
			return nil, err
		}
		h, err := checkFile(name, f, used)
		f.Close()
		if err != nil {
			return nil, err
		}
		hits = append(hits, h...)
	}
	for _, a := range Allowed {
		if !used[a.Phrase] {
			hits = append(hits, Hit{File: "hack/tools/measured", Figure: a.Phrase, Text: "an allowed phrase no document holds any more: take it out of Allowed"})
		}
	}
	return hits, nil
}

func checkFile(name string, f fs.File, used map[string]bool) ([]Hit, error) {
	var hits []Hit
	in := "" // the block the line is in
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := blockRe.FindStringSubmatch(line); m != nil {
			switch {
			case m[2] == "begin" && in == "":
				in = m[1]
			case m[2] == "end" && in == m[1]:
				in = ""
			default:
				return nil, fmt.Errorf("%s:%d: %q inside or outside the wrong block (%q open)", name, n, line, in)
			}
			continue
		}
		if in != "" {
			continue
		}
		hits = append(hits, figures(name, n, line, used)...)
	}
	if in != "" {
		return nil, fmt.Errorf("%s: the block %q has no end line", name, in)
	}
	return hits, sc.Err()
}

// figures are the line's measured figures.
func figures(name string, n int, line string, used map[string]bool) []Hit {
	// Allowed phrases are blanked out first, their length kept.
	masked := line
	for _, a := range Allowed {
		if strings.Contains(masked, a.Phrase) {
			used[a.Phrase] = true
			masked = strings.ReplaceAll(masked, a.Phrase, strings.Repeat("_", len(a.Phrase)))
		}
	}
	var hits []Hit
	for _, m := range figureRe.FindAllStringSubmatchIndex(masked, -1) {
		if boundRe.MatchString(masked[:m[4]]) {
			continue
		}
		hits = append(hits, Hit{File: name, Line: n, Figure: strings.TrimRight(masked[m[4]:m[6]], " "), Text: line})
	}
	return hits
}

func main() {
	root := "."
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: measured [root]")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		root = os.Args[1]
	}
	hits, err := Check(os.DirFS(root))
	if err != nil {
		fmt.Fprintln(os.Stderr, "measured:", err)
		os.Exit(2)
	}
	for _, h := range hits {
		fmt.Println(h)
	}
	if len(hits) > 0 {
		fmt.Printf("measured: %d figure(s) typed by hand in %s: a figure a run measured is written by that command into a block naming the run (make bench: bench figures, hack/bench/docs-figures.sh); a setting or a definition goes into Allowed in hack/tools/measured with why\n", len(hits), strings.Join(Files, ", "))
		os.Exit(1)
	}
	fmt.Printf("measured: no figure typed by hand in %s\n", strings.Join(Files, ", "))
}
