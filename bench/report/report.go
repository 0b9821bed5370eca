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
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/pictures"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// Command runs bench report: the report of a run's raw files (-samples and
// the other scenarios' records) in -out: the records as JSON documents,
// the goals (goals.md, goals-summary.txt), then report.md with the
// pictures and JSON documents its sections come with.
func Command(args []string) error {
	opts, err := parseFlags(args)
	if err != nil {
		return err
	}
	run, err := readRun(opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.out, 0o755); err != nil {
		return err
	}
	if err := writeRecordsJSON(opts.out, run.samples, run.segments); err != nil {
		return err
	}
	ways := waysMeasured(run.samples)
	sum := summarize(run.samples)
	benches, err := readGoBench(opts.gobench)
	if err != nil {
		return err
	}
	verdicts, err := judge(run, sum, benches, opts.besideSamples, opts.besideLabel)
	if err != nil {
		return err
	}
	goalsMD, err := writeGoals(opts.out, verdicts)
	if err != nil {
		return err
	}
	return writeReportMD(opts.out, opts.meta, run, ways, sum, benches, goalsMD)
}

// options are bench report's flags.
type options struct {
	// The raw files of the run: bench run's samples and segments, and the
	// records of bench probe-rate, density, chain and never-ready; "" for
	// none (but samples, which are required).
	samples, segments, probeRates, density, chain, neverReady string
	// besideSamples: the samples of the ways run again in a second
	// configuration, besideLabel what it is.
	besideSamples, besideLabel string

	gobench string // the computePodActions benchmark's output
	meta    string // markdown for the top of report.md
	out     string // the folder the report goes to
}

// parseFlags reads bench report's flags.
func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.StringVar(&o.samples, "samples", "", "samples (JSON lines) of bench run")
	fs.StringVar(&o.gobench, "gobench", "", "computePodActions benchmark output of hack/bench/run.sh")
	fs.StringVar(&o.meta, "meta", "", "markdown to put at the top (date, machine, load)")
	fs.StringVar(&o.segments, "segments", "", "the ways' runs (JSON lines) of bench run: the kubelet's CPU time")
	fs.StringVar(&o.probeRates, "probe-rates", "", "the runs (JSON lines) of bench probe-rate")
	fs.StringVar(&o.density, "density", "", "the runs (JSON lines) of bench density")
	fs.StringVar(&o.besideSamples, "beside-samples", "", "samples (JSON lines) of the ways run again in a second configuration of the kubelets (make bench's BENCH_GATES)")
	fs.StringVar(&o.besideLabel, "beside-label", "", "what the second configuration is, e.g. EventedPLEG=true (with -beside-samples)")
	fs.StringVar(&o.chain, "chain", "", "the pods (JSON lines) of bench chain")
	fs.StringVar(&o.neverReady, "never-ready", "", "the runs (JSON lines) of bench never-ready")
	fs.StringVar(&o.out, "out", "", "folder for report.md, samples.json, timeline-*.svg")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.samples == "" || o.out == "" {
		return o, fmt.Errorf("report: -samples and -out are required")
	}
	return o, nil
}

// runRecords are the records of a run the report is written from.
type runRecords struct {
	samples     []results.Sample // with their Metrics
	segments    []results.Segment
	probeRates  []results.ProbeRate
	density     []results.DensityRun
	densitySums []densitySummary
	chains      []results.ChainPod
	neverReady  []results.NeverReadyRun
}

// readRun reads the run's raw files, and computes every sample's metrics
// and the density runs' summaries.
func readRun(o options) (runRecords, error) {
	var r runRecords
	var err error
	if r.samples, err = results.ReadSamples(o.samples); err != nil {
		return r, err
	}
	for i := range r.samples {
		r.samples[i].Metrics = results.ComputeMetrics(&r.samples[i])
	}
	if o.segments != "" {
		if r.segments, err = results.ReadSegments(o.segments); err != nil {
			return r, err
		}
	}
	if o.probeRates != "" {
		if r.probeRates, err = results.ReadProbeRates(o.probeRates); err != nil {
			return r, err
		}
	}
	if o.density != "" {
		if r.density, err = results.ReadDensityRuns(o.density); err != nil {
			return r, err
		}
	}
	r.densitySums = summarizeDensity(r.density)
	r.chains, r.neverReady, err = readChainAndNeverReady(o.chain, o.neverReady)
	return r, err
}

// writeRecordsJSON writes every sample as one JSON document,
// samples.json, and the segments as segments.json when the run has them.
func writeRecordsJSON(dir string, samples []results.Sample, segs []results.Segment) error {
	js, err := json.Marshal(samples)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if segs == nil {
		return nil
	}
	js, err = json.Marshal(segs)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "segments.json"), append(js, '\n'), 0o644)
}

// waysMeasured are the ways the samples hold, in the order of Ways.
func waysMeasured(samples []results.Sample) []string {
	var ways []string
	for _, w := range results.Ways {
		for _, s := range samples {
			if s.Way == w.Name {
				ways = append(ways, w.Name)
				break
			}
		}
	}
	return ways
}

// readGoBench reads the computePodActions benchmark's output; none for no
// path.
func readGoBench(path string) ([]goBench, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	benches, err := parseGoBench(f)
	f.Close()
	return benches, err
}

// runVerdicts are a run's goals judged.
type runVerdicts struct {
	// ways: the goals of bench run's samples (and of the Go benchmark),
	// each with its verdict in the second configuration beside it when the
	// run measured one, which besideLabel names ("" otherwise).
	ways        []verdict
	besideLabel string
	// rates: the goals of the other scenarios (probe-rate, density,
	// chain, never-ready), which share a table.
	rates []rateVerdict
}

// judge judges the run against every goal; with besideSamples, the ways'
// goals in the second configuration too.
func judge(run runRecords, sum map[string]map[string]*stats, benches []goBench, besideSamples, besideLabel string) (runVerdicts, error) {
	v := runVerdicts{ways: goals(sum, benches)}
	if besideSamples != "" {
		if besideLabel == "" {
			return v, fmt.Errorf("report: -beside-samples needs -beside-label")
		}
		beside, err := results.ReadSamples(besideSamples)
		if err != nil {
			return v, err
		}
		for i := range beside {
			beside[i].Metrics = results.ComputeMetrics(&beside[i])
		}
		v.ways = withBeside(v.ways, goals(summarize(beside), nil))
		v.besideLabel = besideLabel
	}
	// The probe-rate and density verdicts share a table: one more table
	// would be two more lines of the README, which has a bound.
	v.rates = append(append(probeRateGoals(run.probeRates), densityGoals(run.densitySums)...), chainAndNeverReadyGoals(run.chains, run.neverReady)...)
	return v, nil
}

// writeGoals writes the verdicts alone, goals.md, which make bench puts
// in the README, and goals-summary.txt, one line for the README's results
// table (make bench writes it there); it returns goals.md's text.
func writeGoals(dir string, v runVerdicts) (string, error) {
	var md strings.Builder
	goalsTable(&md, v.ways, v.besideLabel)
	if len(v.rates) > 0 {
		md.WriteString("\n")
		probeRateGoalsTable(&md, v.rates)
	}
	if err := os.WriteFile(filepath.Join(dir, "goals-summary.txt"), []byte(goalsSummary(v.ways, v.rates, v.besideLabel)+"\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "goals.md"), []byte(md.String()), 0o644); err != nil {
		return "", err
	}
	return md.String(), nil
}

// writeReportMD writes report.md, section by section (goalsMD: the
// verdicts' tables of goals.md), and the pictures and JSON documents its
// sections come with, into dir.
func writeReportMD(dir, meta string, run runRecords, ways []string, sum map[string]map[string]*stats, benches []goBench, goalsMD string) error {
	var md strings.Builder
	if err := writeHead(&md, meta); err != nil {
		return err
	}
	md.WriteString("## Against the goals\n\n")
	md.WriteString(goalsMD)
	md.WriteString("\n")
	waysSection(&md, ways, run.samples)
	resultsSection(&md, sum, ways, run.samples)
	if err := aPrimeSection(&md, dir, sum, ways); err != nil {
		return err
	}
	periodSection(&md, sum, ways)
	costSection(&md, run.samples, run.segments, ways)
	if len(run.probeRates) > 0 {
		if err := probeRateSection(&md, dir, run.probeRates); err != nil {
			return err
		}
	}
	if len(run.density) > 0 {
		if err := densitySection(&md, dir, run.density, run.densitySums); err != nil {
			return err
		}
	}
	chainSection(&md, run.chains)
	neverReadySection(&md, run.neverReady)
	if len(benches) > 0 {
		goBenchSection(&md, benches)
	}
	if err := timelinesSection(&md, dir, sum, ways, run.samples); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644)
}

// writeHead writes the title, the run's meta (the file meta, if any) and
// what the report is.
func writeHead(md *strings.Builder, meta string) error {
	md.WriteString("# Sidecar ordering benchmark\n\n")
	if meta != "" {
		b, err := os.ReadFile(meta)
		if err != nil {
			return err
		}
		md.Write(b)
		md.WriteString("\n")
	}
	md.WriteString("Written by `make bench` (hack/bench/run.sh, bench/). What each scenario measures, the goals and the\n" +
		"analysis of the latest committed run: the README's Benchmarks section. Times in ms; p50 and p95 are\n" +
		"nearest-rank percentiles, so with few samples p95 is the maximum.\n\n")
	return nil
}

// waysSection lists the ways measured, and how many of a way's pods ran
// at once.
func waysSection(md *strings.Builder, ways []string, samples []results.Sample) {
	md.WriteString("## Ways\n\n")
	for _, w := range results.Ways {
		if contains(ways, w.Name) {
			fmt.Fprintf(md, "- `%s`: %s\n", w.Name, w.About)
		}
	}
	md.WriteString("\n" + lanesNote(samples) + "\n")
}

// resultsSection writes the table of every scenario and way, and how many
// pods had an error.
func resultsSection(md *strings.Builder, sum map[string]map[string]*stats, ways []string, samples []results.Sample) {
	md.WriteString("\n## Results (milliseconds)\n\n")
	table(md, sum, ways)
	errs := 0
	for _, s := range samples {
		if s.Error != "" {
			errs++
		}
	}
	fmt.Fprintf(md, "\n%d pods measured, %d with an error (their times are kept in samples.json but may be partial).\n", len(samples), errs)
}

// aPrimeSection draws every pod's a′, way by way (aprime.svg), when the
// run has any.
func aPrimeSection(md *strings.Builder, dir string, sum map[string]map[string]*stats, ways []string) error {
	groups := sampleBoxGroups(sum, ways)
	if len(groups) == 0 {
		return nil
	}
	const name = "aprime.svg"
	title := "a′: sidecar /ready turns 200 → first app start, every pod of every way"
	if err := writeSVG(dir, name, func(w io.Writer) error {
		return pictures.WriteBoxPlot(w, title, "milliseconds", groups, 250, "goal: p95 ≤ 250 ms")
	}); err != nil {
		return err
	}
	md.WriteString("\n## a′ per way\n\nEvery pod's a′ of the table above, way by way (the postStart way's apps wait for its hook).\n\n")
	fmt.Fprintf(md, "![%s](%s)\n", title, name)
	return nil
}

// periodSection writes a′ by the probes' periodSeconds, when the run has
// a′ of any way.
func periodSection(md *strings.Builder, sum map[string]map[string]*stats, ways []string) {
	var periods strings.Builder
	if !periodTable(&periods, sum, ways) {
		return
	}
	md.WriteString("\n## a′ by the probes' periodSeconds\n\n")
	md.WriteString("a′ (a sidecar's /ready turns 200 → the first app start) of the same pods, side by side, with the\n" +
		"sidecars' probes at periodSeconds 1 and at the API's default, periodSeconds 10 (the `-p10` ways).\n" +
		"The postStart way's apps wait for its hook, which polls /ready every 100 ms whatever the probe says.\n\n")
	md.WriteString(periods.String())
}

// costSection writes what the probes and the kubelet's CPU cost while the
// pods waited, when the table has a row.
func costSection(md *strings.Builder, samples []results.Sample, segs []results.Segment, ways []string) {
	var rows strings.Builder
	costTable(&rows, costs(samples, segs, ways), ways)
	if strings.Count(rows.String(), "\n") <= 2 {
		return
	}
	md.WriteString("\n## Probes and kubelet CPU while pods wait\n\n")
	md.WriteString(costNote)
	md.WriteString(rows.String())
	if l := idleLine(segs); l != "" {
		md.WriteString("\n" + l + "\n")
	}
}

// probeRateSection writes the probe-rate runs' table, and the runs as one
// JSON document (probe-rates.json).
func probeRateSection(md *strings.Builder, dir string, runs []results.ProbeRate) error {
	md.WriteString("\n## Probe runs with many sidecars waiting\n\n")
	md.WriteString(probeRateNote)
	probeRateTable(md, runs)
	js, err := json.Marshal(runs)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "probe-rates.json"), append(js, '\n'), 0o644)
}

// goBenchSection writes the computePodActions benchmark of both trees.
func goBenchSection(md *strings.Builder, benches []goBench) {
	md.WriteString("\n## computePodActions, patched against upstream\n\n")
	md.WriteString("`go test -bench BenchmarkComputePodActions` in `pkg/kubelet/kuberuntime` of each tree (the same benchmark\n" +
		"function copied into the pristine tree); a pod of three running containers, with the feature gate at its default.\n\n")
	goBenchTable(md, benches)
	md.WriteString("\nOn a busy machine the times of single runs spread widely; the allocations are exact.\n")
}

// timelinesSection draws one timeline per scenario (timeline-a.svg to
// timeline-e.svg): for every way, its pod whose value is the scenario's
// median.
func timelinesSection(md *strings.Builder, dir string, sum map[string]map[string]*stats, ways []string, samples []results.Sample) error {
	md.WriteString("\n## Timelines\n\nEach picture shows, for every way, the pod whose value is the median of the scenario.\n\n")
	for _, letter := range []string{"a", "b", "c", "d", "e"} {
		key := pictureKey(letter)
		var panels []pictures.Panel
		for _, w := range ways {
			st := sum[key][w]
			if st == nil || st.MedianSampleAt < 0 {
				continue
			}
			s := samples[st.MedianSampleAt]
			panels = append(panels, pictures.Panel{Label: fmt.Sprintf("%s (%s, %d sidecars)", w, s.Kind, s.Sidecars), Sample: s, Key: key})
		}
		if len(panels) == 0 {
			continue
		}
		title := scenarioTitle(key)
		name := "timeline-" + letter + ".svg"
		if err := writeSVG(dir, name, func(w io.Writer) error { return pictures.WriteTimeline(w, title, panels) }); err != nil {
			return err
		}
		fmt.Fprintf(md, "### %s\n\n![%s](%s)\n\n", title, title, name)
	}
	return nil
}

// writeSVG writes one picture into dir.
func writeSVG(dir, name string, draw func(io.Writer) error) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := draw(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// densitySection writes the density runs into the report: the table, the
// pictures (density-*.svg) and density.json.
func densitySection(md *strings.Builder, dir string, runs []results.DensityRun, sums []densitySummary) error {
	md.WriteString("\n## Many pods at once\n\n")
	md.WriteString(densityNote)
	densityTable(md, sums)
	if l := densityIdleLine(runs); l != "" {
		md.WriteString("\n" + l + "\n")
	}
	if l := densityCgroupsLine(runs); l != "" {
		md.WriteString("\n" + l + "\n")
	}
	md.WriteString("\n")
	densityNodeSection(md, sums)
	densityAPrimeSplit(md, sums)
	js, err := densityJSON(runs, sums)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "density.json"), js, 0o644); err != nil {
		return err
	}
	spread := func(v, lo, hi float64) (float64, float64, float64) {
		if lo == hi {
			return v, math.NaN(), math.NaN()
		}
		return v, lo, hi
	}
	pictures := []struct {
		name, title string
		draw        func(io.Writer, string) error
	}{
		{"density-ready.svg", "Time from the first create to every pod Ready, against the pods created at once",
			func(w io.Writer, title string) error {
				return pictures.WriteLineChart(w, title, "pods created at once", "seconds (p50 of the runs; bar: their range)",
					densityCurve(sums, func(s densitySummary) (float64, float64, float64) {
						return spread(s.AllReadyP50/1000, s.AllReadyMin/1000, s.AllReadyMax/1000)
					}))
			}},
		{"density-cpu.svg", "The kubelet's CPU per pod above idle, against the pods created at once",
			func(w io.Writer, title string) error {
				return pictures.WriteLineChart(w, title, "pods created at once", "CPU ms per pod (p50 of the runs; bar: their range)",
					densityCurve(sums, func(s densitySummary) (float64, float64, float64) {
						return spread(s.KubeletPerPod, s.KubeletPerPodMin, s.KubeletPerPodMax)
					}))
			}},
		{"density-aprime.svg", "a′ with many pods at once: sidecar /ready 200 → its app's start, every pod of every run",
			func(w io.Writer, title string) error {
				return pictures.WriteBoxPlot(w, title, "milliseconds", densityBoxGroups(sums), 0, "")
			}},
	}
	md.WriteString("\n")
	for _, p := range pictures {
		if err := writeSVG(dir, p.name, func(w io.Writer) error { return p.draw(w, p.title) }); err != nil {
			return err
		}
		fmt.Fprintf(md, "![%s](%s)\n\n", p.title, p.name)
	}
	return nil
}

// pictureKey is the scenario key a picture of scenario letter k shows
// (d and e: the 3-sidecar pods).
func pictureKey(k string) string {
	switch k {
	case "d", "e":
		return k + "3"
	}
	return k
}

func scenarioTitle(key string) string {
	for _, s := range results.Scenarios {
		if s.Key == key {
			return s.Title
		}
	}
	return key
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(append([]string(nil), list...), s)
	_ = i
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// costNote explains the columns of the probe and CPU table.
const costNote = "From the kubelet itself: `prober_probe_total` (its `/metrics/probes`, by pod, container, probe type\n" +
	"and result), scraped once the pod's containers are ready (its series go when the pod's probe workers stop),\n" +
	"the \"Probe failed\" lines of its log (`--v` 1 and up), which also show the failed runs it leaves out of\n" +
	"that metric, and its process's CPU time (`/proc/<pid>/stat`, user + system) over each way's runs.\n\n" +
	"- *sidecars waited on*, *mean wait*: the sidecars whose next container waits for them (the startup probe of\n" +
	"  `native-startup`, the readiness probe otherwise; the postStart way's hook), each from its CRI start to its\n" +
	"  first 200 on /ready (the probe, or the hook, that saw it ready; the server turns ready 200 ms after it starts).\n" +
	"  The postStart way's hook polls /ready from inside the container every 100 ms (not counted here); the kubelet\n" +
	"  ran no probe of those sidecars before their hook returned (the sync that runs a hook publishes the\n" +
	"  container's status, which the probe workers follow, only when it ends).\n" +
	"- *probe runs while waiting*: the waited-on probe's runs over those waits, the first success included where the\n" +
	"  apps wait for the kubelet's probe: every run (failures counted from the log), and those the metric counts.\n" +
	"- *failed runs left out of the metric*: logged failures minus the metric's, every probe of the way's pods.\n" +
	"- *probe runs/s per probed container*: every probe's runs from its container's start to the scrape,\n" +
	"  divided by that time: pods without annotations should probe alike on both kubelets.\n" +
	"- *kubelet CPU per pod*: its CPU time over the way's runs (all lanes, so also its housekeeping, relists and\n" +
	"  the benchmark's own scrapes) divided by the pods run; *above idle* takes away its rate with no pod of ours\n" +
	"  over the same time; *% of a core*: that CPU time over the runs' wall time.\n\n"

// lanesNote says how many of a way's pods ran at once.
func lanesNote(samples []results.Sample) string {
	p := 1
	for _, s := range samples {
		p = max(p, s.Parallel)
	}
	if p == 1 {
		return "The pods ran one at a time: every repeat of a way runs a Job pod with 1 sidecar, then service pods\n" +
			"with 1, 3 and 5 sidecars, then a plain pod whose container the benchmark stops itself through the CRI\n" +
			"(c's floor); one way after the other."
	}
	return fmt.Sprintf("Every repeat of a way ran %d lanes at once, each a Job pod with 1 sidecar, service pods with 1, 3\n"+
		"and 5 sidecars and a plain pod whose container the benchmark stops itself through the CRI (c's floor, under\n"+
		"the same load as c), one after the other (lane l starts l/%d s after the first, with the plan rotated by l, so\n"+
		"that the lanes run pods of different sizes at any one time); the ways ran one after the other, so the\n"+
		"kubelet's CPU time of a way's runs is that way's. Up to %d pods of one way ran at once.", p, p, p)
}
