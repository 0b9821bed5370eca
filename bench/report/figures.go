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

// bench figures: the figures docs/benchmarks.md quotes, one file per
// generated block of it (<!-- bench-NAME:begin ... --> ... <!-- bench-NAME:end -->),
// each naming the run it comes from. make bench writes them from the run's
// raw files after the report; hack/bench/docs-figures.sh writes them again
// from the committed run in docs/bench. Only a run recorded as quiet may
// write them: a figure in the docs is a reference figure.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// runInfo is what a run's meta.md (or the header of its report.md)
// records of it.
type runInfo struct {
	Date                           string // "2026-11-26 23:57 UTC"
	Repeat, Parallel               string
	Density                        string // "10,110" or "0"
	Quiet                          bool
	Load                           string   // the 1-minute load average at the start
	Gates                          []string // "fork ...: A=true" per kubelet, on the defaults
	Beside                         string   // BENCH_GATES of the column beside, or ""
	Took                           string   // how long the run took, or ""
	DensityRunsMin, DensityRunsMax int      // runs per way and N of the density runs
}

var (
	metaRunRe    = regexp.MustCompile("^Run on (.*UTC), `make bench` with BENCH_REPEAT=([0-9]+), BENCH_PARALLEL=([0-9]+) and BENCH_DENSITY=([0-9]+(?:,[0-9]+)*)")
	metaLoadRe   = regexp.MustCompile(`^Load average \(1, 5, 15 min\) at the start: ([0-9.]+)`)
	metaGatesRe  = regexp.MustCompile(`^Feature gates of the kubelet (\S+): (.*)\.$`)
	metaBesideRe = regexp.MustCompile(`^Beside upstream's defaults, the ways ran again with (\S+) added`)
)

// parseRunInfo reads a run's meta.md, or the report.md that starts with it.
func parseRunInfo(meta string) (runInfo, error) {
	var ri runInfo
	quietLine, scratch := false, false
	for _, line := range strings.Split(meta, "\n") {
		if strings.HasPrefix(line, "Written by `make bench`") {
			break // the end of a report's header
		}
		switch {
		case metaRunRe.MatchString(line):
			m := metaRunRe.FindStringSubmatch(line)
			ri.Date, ri.Repeat, ri.Parallel, ri.Density = m[1], m[2], m[3], m[4]
		case metaLoadRe.MatchString(line):
			ri.Load = metaLoadRe.FindStringSubmatch(line)[1]
		case metaBesideRe.MatchString(line):
			ri.Beside = metaBesideRe.FindStringSubmatch(line)[1]
		case metaGatesRe.MatchString(line) && ri.Beside == "":
			m := metaGatesRe.FindStringSubmatch(line)
			gates := m[2]
			if gates == "" { // runs from before make bench wrote it out
				gates = "upstream's defaults"
			}
			// Each turn of a kubelet (the density runs take turns) records
			// its gates again: one mention each.
			if g := "`" + m[1] + "`: " + gates; !slices.Contains(ri.Gates, g) {
				ri.Gates = append(ri.Gates, g)
			}
		case strings.HasPrefix(line, "The machine was quiet at the start"):
			quietLine = true
		case strings.HasPrefix(line, "**A scratch run"):
			scratch = true
		}
	}
	if ri.Date == "" {
		return ri, fmt.Errorf("no line \"Run on ..., `make bench` with BENCH_REPEAT=...\" in the run's meta")
	}
	ri.Quiet = quietLine && !scratch
	return ri, nil
}

// header is the line that opens every block: which run, on what.
func (ri runInfo) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "*Run of `make bench` of %s on a quiet machine (load %s at the start)", ri.Date, ri.Load)
	fmt.Fprintf(&b, "; BENCH_REPEAT=%s, BENCH_PARALLEL=%s, BENCH_DENSITY=%s", ri.Repeat, ri.Parallel, ri.Density)
	if ri.Density != "0" && ri.DensityRunsMax > 0 {
		if ri.DensityRunsMin == ri.DensityRunsMax {
			fmt.Fprintf(&b, " with %d run(s) per way and N", ri.DensityRunsMax)
		} else {
			fmt.Fprintf(&b, " with %d to %d runs per way and N", ri.DensityRunsMin, ri.DensityRunsMax)
		}
		if ri.DensityRunsMin < 3 {
			b.WriteString(" (fewer than the 3 a reference needs)")
		}
	}
	if len(ri.Gates) > 0 {
		fmt.Fprintf(&b, "; feature gates %s", strings.Join(ri.Gates, ", "))
	}
	if ri.Beside != "" {
		fmt.Fprintf(&b, " (%s ran beside: not in these figures)", ri.Beside)
	}
	switch {
	case ri.Took == "":
	case ri.Took[0] >= '0' && ri.Took[0] <= '9':
		fmt.Fprintf(&b, "; took %s", ri.Took)
	default:
		fmt.Fprintf(&b, "; %s", ri.Took)
	}
	b.WriteString("; its report: [bench/report.md](bench/report.md).*\n")
	return b.String()
}

// figureWays are the ways the docs compare, in this order.
var figureWays = []string{"fork/annotated", "fork/native-wait-ready", "fork/poststart", "fork/no-sidecars", "upstream/native-startup", "upstream/no-sidecars"}

// figuresSamples is the block "bench-samples": how many samples of each
// scenario a way got.
func figuresSamples(w io.Writer, ri runInfo, sum map[string]map[string]*stats) {
	fmt.Fprint(w, ri.header())
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | samples per way (n) |")
	fmt.Fprintln(w, "| --- | --- |")
	for _, sc := range results.Scenarios {
		ns := map[int]bool{}
		for _, st := range sum[sc.Key] {
			ns[st.N] = true
		}
		if len(ns) == 0 {
			continue
		}
		var list []int
		for n := range ns {
			list = append(list, n)
		}
		sort.Ints(list)
		var parts []string
		for _, n := range list {
			parts = append(parts, fmt.Sprint(n))
		}
		fmt.Fprintf(w, "| %s | %s |\n", sc.Title, strings.Join(parts, ", "))
	}
}

// figuresSingle is the block "bench-single": every scenario, p50 / p95 ms
// (n) of the ways the docs compare.
func figuresSingle(w io.Writer, ri runInfo, sum map[string]map[string]*stats) {
	var ways []string
	for _, way := range figureWays {
		for _, byWay := range sum {
			if byWay[way] != nil {
				ways = append(ways, way)
				break
			}
		}
	}
	fmt.Fprint(w, ri.header())
	fmt.Fprintln(w)
	if len(ways) == 0 {
		fmt.Fprintln(w, "The run measured none of these ways.")
		return
	}
	fmt.Fprintf(w, "| p50 / p95 ms (n) | `%s` |\n", strings.Join(ways, "` | `"))
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" ---: |", len(ways)))
	for _, sc := range results.Scenarios {
		if sum[sc.Key] == nil {
			continue
		}
		fmt.Fprintf(w, "| %s |", sc.Title)
		for _, way := range ways {
			st := sum[sc.Key][way]
			if st == nil {
				fmt.Fprint(w, " — |")
				continue
			}
			fmt.Fprintf(w, " %s / %s (%d) |", results.FormatMS(st.P50), results.FormatMS(st.P95), st.N)
		}
		fmt.Fprintln(w)
	}
}

// figuresDensity is the block "bench-density": per pod count and way, the
// time to all Ready, a′ and its parts, and the CPU per pod.
func figuresDensity(w io.Writer, ri runInfo, sums []densitySummary) {
	fmt.Fprint(w, ri.header())
	fmt.Fprintln(w)
	if len(sums) == 0 {
		fmt.Fprintln(w, "The run made no density runs.")
		return
	}
	fmt.Fprintln(w, "| N | way | runs | all Ready, s: p50 (min–max) | a′ p50 / p95 ms | /ready 200 → seen, p50 ms | CreateContainer → start, p50 ms | kubelet CPU ms/pod | node CPU ms/pod |")
	fmt.Fprintln(w, "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	secs := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.1f", v/1000)
	}
	for _, s := range sums {
		fmt.Fprintf(w, "| %d | `%s` | %d | %s (%s–%s) | %s / %s | %s | %s | %s | %s |\n", s.N, s.Way, s.Runs,
			secs(s.AllReadyP50), secs(s.AllReadyMin), secs(s.AllReadyMax),
			results.FormatMS(s.APrimeP50), results.FormatMS(s.APrimeP95), results.FormatMS(s.APrimePartP50[0]), results.FormatMS(s.APrimePartP50[2]),
			results.FormatMS(s.KubeletPerPod), results.FormatMS(s.NodePerPod))
	}
}

// densityRunsRange is the fewest and most runs without an error of a way
// at one N.
func densityRunsRange(sums []densitySummary) (lo, hi int) {
	for i, s := range sums {
		if i == 0 || s.Runs < lo {
			lo = s.Runs
		}
		if s.Runs > hi {
			hi = s.Runs
		}
	}
	return lo, hi
}

// readSamplesAny reads samples.jsonl (a run's raw file) or samples.json
// (the committed one, a JSON array).
func readSamplesAny(path string) ([]results.Sample, error) {
	if strings.HasSuffix(path, ".jsonl") {
		return results.ReadSamples(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []results.Sample
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// readDensityAny reads density.jsonl (a run's raw file) or density.json
// (the committed one: its runs).
func readDensityAny(path string) ([]results.DensityRun, error) {
	if strings.HasSuffix(path, ".jsonl") {
		return results.ReadDensityRuns(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Runs []results.DensityRun `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return doc.Runs, nil
}

// figureBlocks are the blocks of docs/benchmarks.md bench figures writes.
var figureBlocks = []string{"bench-samples", "bench-single", "bench-density"}

// FiguresCommand runs bench figures: one file NAME.md in -out for each of
// figureBlocks, from the samples (and density runs) of a run whose meta
// records it as quiet.
func FiguresCommand(args []string) error {
	fs := flag.NewFlagSet("figures", flag.ContinueOnError)
	samplesPath := fs.String("samples", "", "samples.jsonl of a run, or the committed samples.json")
	densityPath := fs.String("density", "", "density.jsonl of a run, or the committed density.json (optional)")
	meta := fs.String("meta", "", "the run's meta.md, or the report.md that starts with it")
	took := fs.String("took", "", "how long the run took, e.g. \"1138 s\" (optional)")
	out := fs.String("out", "", "folder for one file per block, NAME.md")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *samplesPath == "" || *meta == "" || *out == "" {
		return fmt.Errorf("figures: -samples, -meta and -out are required")
	}
	mb, err := os.ReadFile(*meta)
	if err != nil {
		return err
	}
	ri, err := parseRunInfo(string(mb))
	if err != nil {
		return fmt.Errorf("figures: %s: %v", *meta, err)
	}
	if !ri.Quiet {
		return fmt.Errorf("figures: %s does not record a quiet run: the docs' figures come only from quiet runs", *meta)
	}
	ri.Took = *took
	samples, err := readSamplesAny(*samplesPath)
	if err != nil {
		return err
	}
	for i := range samples {
		samples[i].Metrics = results.ComputeMetrics(&samples[i])
	}
	var sums []densitySummary
	if *densityPath != "" {
		runs, err := readDensityAny(*densityPath)
		if err != nil {
			return err
		}
		sums = summarizeDensity(runs)
	}
	ri.DensityRunsMin, ri.DensityRunsMax = densityRunsRange(sums)
	sum := summarize(samples)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(io.Writer)) error {
		var b strings.Builder
		f(&b)
		return os.WriteFile(filepath.Join(*out, name+".md"), []byte(b.String()), 0o644)
	}
	if err := write("bench-samples", func(w io.Writer) { figuresSamples(w, ri, sum) }); err != nil {
		return err
	}
	if err := write("bench-single", func(w io.Writer) { figuresSingle(w, ri, sum) }); err != nil {
		return err
	}
	return write("bench-density", func(w io.Writer) { figuresDensity(w, ri, sums) })
}
