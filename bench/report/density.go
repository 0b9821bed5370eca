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

// The density runs in the report: one summary per way and pod count, the
// table, the goals of issue 28, and the data of the pictures.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/pictures"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// densitySummary is one way's figures at one pod count.
type densitySummary struct {
	Way, Kubelet string
	N            int
	Runs, Failed int      // runs without and with an error
	Errors       []string // the failed runs' errors
	// Over the runs without an error: the time from the first create to
	// every pod Ready (each run's, and their nearest-rank p50, min, max),
	// every pod's a′, the kubelet's and containerd's CPU ms per pod above
	// idle (p50 of the runs) and the probe runs per second while the pods
	// started (p50 of the runs). NaN: no figure.
	AllReadyMs               []float64
	AllReadyP50              float64
	AllReadyMin, AllReadyMax float64
	APrimes                  []float64 // sorted
	APrimeP50, APrimeP95     float64
	// APrimeParts: every pod's a′ split (DensityPod.APrimeParts), each
	// part sorted; their p50 and p95.
	APrimeParts                  [3][]float64
	APrimePartP50, APrimePartP95 [3]float64
	// KubeletPerPod: from its serve cgroup, or from /proc in runs
	// without one (DensityRun.KubeletFigureMs). ContainerdPerPod: the
	// daemon's alone, from /proc (runs of older benchmarks).
	KubeletPerPod                      float64
	KubeletPerPodMin, KubeletPerPodMax float64
	ContainerdPerPod                   float64
	// GroupPerPod: each serve group's CPU ms per pod above idle, in the
	// order of ServeGroups (p50 of the runs); NodePerPod: their total
	// (p50 of the runs' totals), its range in NodePerPodMin/Max.
	GroupPerPod                  [len(results.ServeGroups)]float64
	NodePerPod                   float64
	NodePerPodMin, NodePerPodMax float64
	// The host's TIME_WAIT sockets when the last pod turned Ready and at
	// their peak (p50 of the runs); the API server's requests per pod
	// above idle (p50 of the runs). NaN: not counted.
	TimeWaitReady, TimeWaitPeak           float64
	APIAll, APIEventCreates, APIPodStatus float64
	// The events updated per pod above idle over both windows, and over
	// the second alone (NaN: a run of an older benchmark).
	APIEventUpdates, APIEventUpdatesWhileGoing float64
	// The kubelet's calls to the runtime per pod above idle (p50 of the
	// runs' totals; by operation, p50 of each). NaN: not counted.
	RuntimeOps               float64
	RuntimeOpsByOp           map[string]float64
	Periodic, Extra, Limited float64
	RatesKnown               bool
	// The extra runs' highest mean and one-second rate over every run,
	// failed ones too: the bound must hold always.
	PeakExtra, MaxMeanExtra float64
	Tightest                results.Window // the window closest to the bound, or furthest over it
	ExtraRatesKnown         bool
	// NodeByRun, AllReadyByRun: each run's node CPU per pod and time to
	// all Ready by its run index, to pair with another way's run of the
	// same index (pairRuns). Nil when an index repeats (the runs of two
	// bench invocations in one file): their pairs are unknown.
	NodeByRun, AllReadyByRun map[int]float64
}

// pairedRatios are a way's figures over a rival's at one N, run by run.
// The runs of one index and N are taken close together (DensityTurns: the
// kubelets take turns N by N, fork, upstream, upstream, fork, ...; the ways
// take turns within each), so a drift of the machine between turns, which
// moves the p50s of separate runs apart, touches both runs of a pair
// alike. P50 is the nearest-rank median of the ratios, Min and Max their
// range; Pairs 0: none (the figures NaN).
type pairedRatios struct {
	P50, Min, Max float64
	Pairs         int
}

// pairRuns pairs the runs of a and b (figures by run index) and returns
// the ratios a/b.
func pairRuns(a, b map[int]float64) pairedRatios {
	var ratios []float64
	for run, va := range a {
		if vb, ok := b[run]; ok && vb > 0 && !math.IsNaN(va) && !math.IsNaN(vb) {
			ratios = append(ratios, va/vb)
		}
	}
	lo, hi := minMax(ratios)
	return pairedRatios{P50: p50(ratios), Min: lo, Max: hi, Pairs: len(ratios)}
}

// judged says whether there are pairs enough to judge a goal on them.
func (p pairedRatios) judged() bool { return p.Pairs >= densityMinRuns }

// String is the ratios as a goal shows them.
func (p pairedRatios) String() string {
	if p.Pairs == 0 {
		return "no runs pair up"
	}
	if p.Min >= p.Max {
		return fmt.Sprintf("paired by run ×%.2f, %d pairs", p.P50, p.Pairs)
	}
	return fmt.Sprintf("paired by run ×%.2f (%.2f–%.2f), %d pairs", p.P50, p.Min, p.Max, p.Pairs)
}

// p50 is the nearest-rank median of values (NaN for none).
func p50(values []float64) float64 {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	return results.Percentile(v, 50)
}

// minMax are the smallest and largest of values (NaN for none).
func minMax(values []float64) (float64, float64) {
	if len(values) == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi := values[0], values[0]
	for _, v := range values[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// wayOrder is a way's place in Ways (unknown ways after them).
func wayOrder(name string) int {
	for i, w := range results.Ways {
		if w.Name == name {
			return i
		}
	}
	return len(results.Ways)
}

// sameProbeWay is upstream's native sidecars with a readiness probe beside
// the startup probe their app waits for, as a mesh proxy is injected: the
// goals compare the fork's ways with upstream/native-startup, whose
// sidecar has no readiness probe, and show this way's figures beside
// where a run has them (docs/benchmarks.md: the readiness probe's cost
// while pods terminate is upstream's).
const sameProbeWay = "upstream/native-startup-ready"

// summarizeDensity groups the runs by way and pod count, in the order of
// Ways, then by pod count.
func summarizeDensity(runs []results.DensityRun) []densitySummary {
	type key struct {
		way string
		n   int
	}
	byKey := map[key]*densitySummary{}
	var keys []key
	type acc struct {
		kubelet, containerd, periodic, extra, limited []float64
		groups                                        [len(results.ServeGroups)][]float64
		node, timeWaitReady, timeWaitPeak             []float64
		apiAll, apiEvents, apiPodStatus               []float64
		apiEventUpdates, apiEventUpdatesWhileGoing    []float64
		runtimeOps                                    []float64
		runtimeOpsByOp                                map[string][]float64
		runSeen                                       map[int]bool
		runRepeats                                    bool
	}
	accs := map[key]*acc{}
	for _, r := range runs {
		k := key{r.Way, r.N}
		s := byKey[k]
		if s == nil {
			s = &densitySummary{Way: r.Way, Kubelet: r.Kubelet, N: r.N}
			byKey[k] = s
			accs[k] = &acc{}
			keys = append(keys, k)
		}
		a := accs[k]
		rates, ratesErr := r.ProbeRates()
		if ratesErr == nil {
			s.PeakExtra = max(s.PeakExtra, rates.PeakExtra)
			s.MaxMeanExtra = max(s.MaxMeanExtra, rates.Extra)
			if !s.ExtraRatesKnown || rates.Tightest.Over() > s.Tightest.Over() {
				s.Tightest = rates.Tightest
			}
			s.ExtraRatesKnown = true
		}
		if r.Error != "" {
			s.Failed++
			s.Errors = append(s.Errors, fmt.Sprintf("run %d: %s", r.Run, r.Error))
			continue
		}
		s.Runs++
		if a.runSeen == nil {
			a.runSeen, s.NodeByRun, s.AllReadyByRun = map[int]bool{}, map[int]float64{}, map[int]float64{}
		}
		a.runRepeats = a.runRepeats || a.runSeen[r.Run]
		a.runSeen[r.Run] = true
		if v, ok := r.AllReadyMs(); ok {
			s.AllReadyMs = append(s.AllReadyMs, v)
			s.AllReadyByRun[r.Run] = v
		}
		s.APrimes = append(s.APrimes, r.APrimes()...)
		for i, part := range r.APrimeParts() {
			s.APrimeParts[i] = append(s.APrimeParts[i], part...)
		}
		if v := r.KubeletFigureMs(); !math.IsNaN(v) {
			a.kubelet = append(a.kubelet, v)
		}
		for i, g := range results.ServeGroups {
			if v := r.GroupPerPodMs(g.Cgroup); !math.IsNaN(v) {
				a.groups[i] = append(a.groups[i], v)
			}
		}
		if v := r.NodePerPodMs(); !math.IsNaN(v) {
			a.node = append(a.node, v)
			s.NodeByRun[r.Run] = v
		}
		if tw := r.TimeWait; tw != nil {
			a.timeWaitReady = append(a.timeWaitReady, float64(tw.Ready))
			a.timeWaitPeak = append(a.timeWaitPeak, float64(tw.Peak))
		}
		if api, ok := r.APIPerPod(); ok {
			a.apiAll = append(a.apiAll, api.All)
			a.apiEvents = append(a.apiEvents, api.EventCreates)
			a.apiPodStatus = append(a.apiPodStatus, api.PodStatus)
			a.apiEventUpdates = append(a.apiEventUpdates, api.EventUpdates)
		}
		if v, ok := r.EventUpdatesWhileGoingPerPod(); ok {
			a.apiEventUpdatesWhileGoing = append(a.apiEventUpdatesWhileGoing, v)
		}
		if ops, ok := r.RuntimeOpsPerPod(); ok {
			a.runtimeOps = append(a.runtimeOps, ops.Total())
			if a.runtimeOpsByOp == nil {
				a.runtimeOpsByOp = map[string][]float64{}
			}
			for op, v := range ops {
				a.runtimeOpsByOp[op] = append(a.runtimeOpsByOp[op], v)
			}
		}
		if v := r.ContainerdPerPodMs(); !math.IsNaN(v) {
			a.containerd = append(a.containerd, v)
		}
		if ratesErr == nil {
			a.periodic = append(a.periodic, rates.Periodic)
			a.extra = append(a.extra, rates.Extra)
			a.limited = append(a.limited, rates.Limited)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if oi, oj := wayOrder(keys[i].way), wayOrder(keys[j].way); oi != oj {
			return oi < oj
		}
		if keys[i].way != keys[j].way {
			return keys[i].way < keys[j].way
		}
		return keys[i].n < keys[j].n
	})
	out := make([]densitySummary, 0, len(keys))
	for _, k := range keys {
		s, a := byKey[k], accs[k]
		sort.Float64s(s.APrimes)
		s.AllReadyP50 = p50(s.AllReadyMs)
		s.AllReadyMin, s.AllReadyMax = minMax(s.AllReadyMs)
		s.APrimeP50, s.APrimeP95 = results.Percentile(s.APrimes, 50), results.Percentile(s.APrimes, 95)
		for i := range s.APrimeParts {
			sort.Float64s(s.APrimeParts[i])
			s.APrimePartP50[i], s.APrimePartP95[i] = results.Percentile(s.APrimeParts[i], 50), results.Percentile(s.APrimeParts[i], 95)
		}
		s.KubeletPerPod = p50(a.kubelet)
		s.KubeletPerPodMin, s.KubeletPerPodMax = minMax(a.kubelet)
		s.ContainerdPerPod = p50(a.containerd)
		for i := range s.GroupPerPod {
			s.GroupPerPod[i] = p50(a.groups[i])
		}
		s.NodePerPod = p50(a.node)
		s.NodePerPodMin, s.NodePerPodMax = minMax(a.node)
		s.TimeWaitReady, s.TimeWaitPeak = p50(a.timeWaitReady), p50(a.timeWaitPeak)
		s.APIAll, s.APIEventCreates, s.APIPodStatus = p50(a.apiAll), p50(a.apiEvents), p50(a.apiPodStatus)
		s.APIEventUpdates, s.APIEventUpdatesWhileGoing = p50(a.apiEventUpdates), p50(a.apiEventUpdatesWhileGoing)
		s.RuntimeOps = p50(a.runtimeOps)
		for op, vs := range a.runtimeOpsByOp {
			if s.RuntimeOpsByOp == nil {
				s.RuntimeOpsByOp = map[string]float64{}
			}
			s.RuntimeOpsByOp[op] = p50(vs)
		}
		s.Periodic, s.Extra, s.Limited = p50(a.periodic), p50(a.extra), p50(a.limited)
		if a.runRepeats {
			s.NodeByRun, s.AllReadyByRun = nil, nil
		}
		s.RatesKnown = len(a.extra) > 0
		out = append(out, *s)
	}
	return out
}

// densityNote explains the density table.
const densityNote = "`bench density`: for each pod count N and way, N pods created at once, each with one sidecar its app\n" +
	"waits for (the way's kind of sidecar; `fork/no-sidecars`: the same two containers without ordering), whose /ready\n" +
	"turns 200 between 0.5 and 3 s after it starts (drawn from a seeded generator: every way of a run meets the same\n" +
	"delays). The ways take turns within each run, each run in another order, and the kubelets N by N (fork, upstream,\n" +
	"upstream, fork, ...), so that the runs of one index and N are taken close together and the goals compare them in pairs;\n" +
	"every run deletes its pods, removes their stopped containers and sandboxes through the CRI (what the kubelet's\n" +
	"garbage collection does once a minute; runs of older benchmarks left them to it, in the next run) and waits until\n" +
	"neither the API nor the runtime has any left.\n\n" +
	"- *all Ready*: the first create call → the last pod's Ready condition on an API watch; p50 (nearest rank) of the\n" +
	"  runs, their range in brackets.\n" +
	"- *a′*: every pod of every run, its sidecar's /ready turning 200 (the test server's log) → its app's start (CRI).\n" +
	"- *probe runs/s*: the sidecars' waited-on probe (`prober_probe_total`; `fork/no-sidecars`: their readiness probe)\n" +
	"  over the pods' start, periodic and the fork's extra runs (`kubelet_sidecar_extra_probe_runs_total`) apart;\n" +
	"  *peak*: the highest one-second rate of extra runs in any run; *held back*: extra runs the node-wide bound refused.\n\n"

// densityTable writes the summaries as a markdown table, and the failed
// runs below it.
func densityTable(w io.Writer, sums []densitySummary) {
	fmt.Fprintln(w, "| way | pods | runs | all Ready, p50 s (range) | a′ p50 / p95 ms (pods) | probe runs/s: periodic + extra | extra runs/s, peak | held back/s |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var failed []string
	for _, s := range sums {
		runs := fmt.Sprint(s.Runs)
		if s.Failed > 0 {
			runs += fmt.Sprintf(" (%d failed)", s.Failed)
		}
		ready := "—"
		if len(s.AllReadyMs) > 0 {
			ready = allReadyRange(&s)
		}
		aPrime := "—"
		if len(s.APrimes) > 0 {
			aPrime = fmt.Sprintf("%s / %s (%d)", results.FormatMS(s.APrimeP50), results.FormatMS(s.APrimeP95), len(s.APrimes))
		}
		rates, peak, held := "—", "—", "—"
		if s.RatesKnown {
			rates = fmt.Sprintf("%.0f + %.0f", s.Periodic, s.Extra)
			held = fmt.Sprintf("%.0f", s.Limited)
		}
		if s.ExtraRatesKnown {
			peak = fmt.Sprintf("%.0f", s.PeakExtra)
		}
		fmt.Fprintf(w, "| `%s` | %d | %s | %s | %s | %s | %s | %s |\n", s.Way, s.N, runs, ready, aPrime, rates, peak, held)
		for _, e := range s.Errors {
			failed = append(failed, fmt.Sprintf("- `%s`, %d pods, %s", s.Way, s.N, strings.ReplaceAll(e, "\n", " ")))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\nFailed runs (left out of the figures, but not of the extra runs' peak):\n\n%s\n", strings.Join(failed, "\n"))
	}
}

// densityNodeNote explains the node's table.
const densityNodeNote = "What the node spends on the same runs (p50 of the runs without an error; — : not measured, as in runs\n" +
	"of an older benchmark, never a 0):\n\n" +
	"- *CPU ms per pod above idle*: each group's CPU time while the pods start (first create → all Ready) and while\n" +
	"  they go (delete → all gone, the removal of their containers, and on until the node has settled: a second of\n" +
	"  API requests and CPU within twice their idle rates, at most 30 s, so that the events the kubelet has yet to\n" +
	"  send and its last stops count to the run and not to the next; runs of older benchmarks ended at all gone),\n" +
	"  less its idle rate over the same time, divided by N. Each group is read from the\n" +
	"  cpuacct cgroup the local cluster starts it in (`hack/lib/node.sh`, `<cgroup root>-serve/<component>`),\n" +
	"  which keeps the CPU of processes that have exited: *containerd + shims + runc* is the daemon, every\n" +
	"  `containerd-shim-runc-v2` it started (a shim exits with its pod, and its time leaves `/proc` with it), the runc\n" +
	"  and CNI plugins they ran, and runc's init until it joins the container's cgroup; the kubelet's includes what it\n" +
	"  runs (mount, iptables). *node*: the four added up. In runs without the cgroups the kubelet's is its process's\n" +
	"  own time (`/proc/<pid>/stat`), and the containerd column shows the daemon's alone in brackets, not comparable.\n" +
	"  The benchmark's scrapes of the kubelet's metrics, once a second, are in the kubelet's figure alike for every way.\n" +
	"- *TIME_WAIT*: the host's TCP sockets in TIME_WAIT (`/proc/net/tcp`, `tcp6`; the kubelet's probe connections, the\n" +
	"  components' and the benchmark's own), when the last pod turned Ready / the most of a reading once a second from\n" +
	"  the first create to the last pod gone.\n" +
	"- *API requests per pod above idle*: `apiserver_request_total` of the API server over the same two windows (read\n" +
	"  outside them), less its idle rate, divided by N: events created (POST events), the pods' status writes (PATCH\n" +
	"  or PUT pods/status) and every request (the benchmark's creates, delete and watch included). *Event updates*:\n" +
	"  events patched (PATCH events), which is what a recorder does when it sees an event again (it raises the count\n" +
	"  of the event it created), e.g. for a readiness probe that fails every period; in brackets, those of the second\n" +
	"  window alone, while the pods go: upstream keeps probing readiness while a pod terminates, and a container its\n" +
	"  pod's deletion has stopped fails the probe each period until the kubelet sees it exit (runs of older\n" +
	"  benchmarks counted the updates only over both windows, with no idle rate: an idle node patches no event).\n" +
	"- *The kubelet's runtime calls per pod above idle*: `kubelet_runtime_operations_total` of the kubelet over the same\n" +
	"  two windows (read outside them), less its idle rate, divided by N: `ListPodSandbox` (each relist starts with one:\n" +
	"  the node's periodic relist, in the idle rate, and the relists of one pod the kubelet asks for after a sync that\n" +
	"  changed the pod, and where a wait or a phase hangs on one) and every call; the benchmark's own CRI calls are not\n" +
	"  the kubelet's. By operation in density.json.\n\n"

// densityNodeSection writes the node's table and its note, then a blank
// line.
func densityNodeSection(md *strings.Builder, sums []densitySummary) {
	md.WriteString(densityNodeNote)
	densityNodeTable(md, sums)
	md.WriteString("\n")
}

// densityNodeTable writes what the node spent per pod: every serve
// group's CPU and their total, the TIME_WAIT sockets and the API requests.
func densityNodeTable(w io.Writer, sums []densitySummary) {
	head := "| way | pods |"
	for _, g := range results.ServeGroups {
		head += " " + g.Label + " |"
	}
	fmt.Fprintln(w, head+" node, CPU ms/pod (range) | TIME_WAIT at Ready / peak | API requests/pod: events / pod status / all | event updates/pod (while the pods go) | the kubelet's runtime calls/pod: ListPodSandbox / all |")
	fmt.Fprintln(w, "| --- | ---: |"+strings.Repeat(" ---: |", len(results.ServeGroups)+5))
	count := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.0f", v)
	}
	perPod := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, s := range sums {
		row := fmt.Sprintf("| `%s` | %d |", s.Way, s.N)
		for i, g := range results.ServeGroups {
			v := s.GroupPerPod[i]
			cell := results.FormatMS(v)
			switch {
			case g.Cgroup == "kubelet" && math.IsNaN(v):
				cell = results.FormatMS(s.KubeletPerPod) // its own process, from /proc
			case g.Cgroup == "containerd" && math.IsNaN(v) && !math.IsNaN(s.ContainerdPerPod):
				cell = fmt.Sprintf("— (daemon alone %s)", results.FormatMS(s.ContainerdPerPod))
			}
			row += " " + cell + " |"
		}
		node := "—"
		if !math.IsNaN(s.NodePerPod) {
			node = nodeCPURange(&s)
		}
		api := "—"
		if !math.IsNaN(s.APIAll) {
			api = fmt.Sprintf("%s / %s / %s", perPod(s.APIEventCreates), perPod(s.APIPodStatus), perPod(s.APIAll))
		}
		updates := "—"
		if !math.IsNaN(s.APIEventUpdates) {
			updates = perPod(s.APIEventUpdates)
			if !math.IsNaN(s.APIEventUpdatesWhileGoing) {
				updates += " (" + perPod(s.APIEventUpdatesWhileGoing) + ")"
			}
		}
		ops := "—"
		if !math.IsNaN(s.RuntimeOps) {
			ops = fmt.Sprintf("%s / %s", perPod(s.RuntimeOpsByOp["list_podsandbox"]), perPod(s.RuntimeOps))
		}
		fmt.Fprintf(w, "%s %s | %s / %s | %s | %s | %s |\n", row, node, count(s.TimeWaitReady), count(s.TimeWaitPeak), api, updates, ops)
	}
}

// densityAPrimeSplit writes where every pod's a′ went, way by way and
// pod count: the trace of what bounds it when many pods start at once.
func densityAPrimeSplit(w io.Writer, sums []densitySummary) {
	fmt.Fprintln(w, "Where a′ goes (every pod of every run, p50 / p95 ms of each part; the parts' percentiles need not add up to a′'s):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| way | pods | a′ | /ready 200 → seen (probe or hook) | seen → the app's CreateContainer | CreateContainer → start |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range sums {
		if len(s.APrimeParts[0]) == 0 {
			continue
		}
		fmt.Fprintf(w, "| `%s` | %d | %s / %s |", s.Way, s.N, results.FormatMS(s.APrimeP50), results.FormatMS(s.APrimeP95))
		for i := range s.APrimeParts {
			fmt.Fprintf(w, " %s / %s |", results.FormatMS(s.APrimePartP50[i]), results.FormatMS(s.APrimePartP95[i]))
		}
		fmt.Fprintln(w)
	}
}

// densityIdleLine describes the idle measurements behind the runs, one per
// kubelet.
func densityIdleLine(runs []results.DensityRun) string {
	seen := map[string]bool{}
	var parts []string
	for _, r := range runs {
		if seen[r.Kubelet] || r.Idle.Seconds <= 0 {
			continue
		}
		seen[r.Kubelet] = true
		if len(r.Idle.Groups) > 0 {
			var groups []string
			for _, g := range results.ServeGroups {
				v, ok := r.Idle.Groups[g.Cgroup]
				if !ok {
					groups = append(groups, g.Label+" unknown")
					continue
				}
				groups = append(groups, fmt.Sprintf("%s %.1f%%", g.Label, v/r.Idle.Seconds*100))
			}
			groups[0] += " of a core"
			line := fmt.Sprintf("with the %s kubelet, over %.0f s: %s", r.Kubelet, r.Idle.Seconds, strings.Join(groups, ", "))
			if r.Idle.API != nil {
				line += fmt.Sprintf(", %.1f API requests a second", r.Idle.API.All/r.Idle.Seconds)
			}
			parts = append(parts, line)
			continue
		}
		k, c := "unknown", "unknown"
		if r.Idle.KubeletKnown {
			k = fmt.Sprintf("%.1f%% of a core", r.Idle.Kubelet/r.Idle.Seconds*100)
		}
		if r.Idle.ContainerdKnown {
			c = fmt.Sprintf("%.1f%%", r.Idle.Containerd/r.Idle.Seconds*100)
		}
		parts = append(parts, fmt.Sprintf("with the %s kubelet, over %.0f s: the kubelet %s, containerd %s", r.Kubelet, r.Idle.Seconds, k, c))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Idle, no pod of ours (measured before the runs): " + strings.Join(parts, "; ") + "."
}

// densityCgroupsLine says how many memory cgroups the host had at the
// runs' starts and whether its page cache was dropped before each
// (bench density -reclaim): a host that piles them up slows, and the
// paired ratios of a run that drifted read the drift. "": no run
// recorded them (runs of older benchmarks).
func densityCgroupsLine(runs []results.DensityRun) string {
	var counts []float64
	reclaimed := 0
	for _, r := range runs {
		if r.MemoryCgroups <= 0 {
			continue
		}
		counts = append(counts, float64(r.MemoryCgroups))
		if r.Reclaimed {
			reclaimed++
		}
	}
	if len(counts) == 0 {
		return ""
	}
	lo, hi := minMax(counts)
	line := fmt.Sprintf("Memory cgroups on the host at the runs' starts, dying ones included: %.0f to %.0f (p50 %.0f, %d runs)", lo, hi, p50(counts), len(counts))
	switch reclaimed {
	case len(counts):
		line += "; the host's page cache was dropped before each run (BENCH_RECLAIM=1), so each began on the same host."
	case 0:
		line += "; left as the runs left them (BENCH_RECLAIM=0): a host with thousands starts containers slower, and the later runs drift."
	default:
		line += fmt.Sprintf("; the host's page cache was dropped before %d of them.", reclaimed)
	}
	return line
}

// The density goals' bounds.
const (
	// densityCPURatio bounds the fork's kubelet CPU per pod against the
	// same pods' without sidecars on the same kubelet.
	densityCPURatio = 1.25
	// densityNodeCPURatio bounds the node's CPU per pod (every serve
	// group, added up) of the fork's ways against upstream's native
	// sidecars' at the same N.
	densityNodeCPURatio = 1.1
	// densityMinRuns is how many runs a time to all Ready needs, on both
	// sides, before its p50 is judged: one run's is the machine's moment.
	densityMinRuns = 3
)

// fewRuns reports whether any of the summaries has fewer than
// densityMinRuns runs: a figure that compares them is not judged.
func fewRuns(sums ...*densitySummary) bool {
	for _, s := range sums {
		if s.Runs < densityMinRuns {
			return true
		}
	}
	return false
}

// notJudged follows a figure that fewRuns leaves unjudged.
var notJudged = fmt.Sprintf(", fewer than %d runs: not judged", densityMinRuns)

// nodeCPURange is a way's node CPU per pod at one N as the goal shows it:
// the p50 of its runs, and their range when they differ.
func nodeCPURange(s *densitySummary) string {
	if math.IsNaN(s.NodePerPodMin) || math.IsNaN(s.NodePerPodMax) || s.NodePerPodMin >= s.NodePerPodMax {
		return results.FormatMS(s.NodePerPod)
	}
	return fmt.Sprintf("%s (%s–%s)", results.FormatMS(s.NodePerPod), results.FormatMS(s.NodePerPodMin), results.FormatMS(s.NodePerPodMax))
}

// allReadyRange is a way's time to all Ready at one N, in seconds: the
// p50 of its runs, and their range when they differ.
func allReadyRange(s *densitySummary) string {
	if s.AllReadyMin >= s.AllReadyMax {
		return fmt.Sprintf("%.2f", s.AllReadyP50/1000)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s.AllReadyP50/1000, s.AllReadyMin/1000, s.AllReadyMax/1000)
}

// densityFork are the ways whose cost the density goals judge: the fork's
// two ways of waiting for a ready sidecar, and each again with the
// readiness probe's defaults (periodSeconds 10). The first two probe every
// second for the pod's life, where upstream/native-startup's startup probe
// stops once it succeeds: at a full node ten times its probe connections,
// which the -p10 ways, the probe most pods have, do not make.
var densityFork = []string{"fork/annotated", "fork/native-wait-ready", "fork/annotated-p10", "fork/native-wait-ready-p10"}

// everyN is a verdict over every pod count: the figures of each count
// joined, met when every count judged met and none was left unjudged, not
// met when any judged count missed, "—" otherwise.
type everyN struct {
	parts            []string
	met              bool
	judged, unjudged int
}

func newEveryN() *everyN { return &everyN{met: true} }

// add records one pod count's figure: judged (met or not), or not.
func (e *everyN) add(part string, judged, met bool) {
	e.parts = append(e.parts, part)
	if !judged {
		e.unjudged++
		return
	}
	e.judged++
	e.met = e.met && met
}

func (e *everyN) verdict(v *rateVerdict) {
	if len(e.parts) == 0 {
		return
	}
	v.Figure = strings.Join(e.parts, "; ")
	switch {
	case e.judged > 0 && !e.met:
		v.Met = "no"
	case e.judged > 0 && e.unjudged == 0:
		v.Met = "yes"
	}
}

// densityGoals judges the fork's ways of the density runs against issues
// 28 and 36: its kubelet CPU per pod at the largest N within 1.25× of the
// same pods' without sidecars, and no more per pod than at the smallest N;
// the node's CPU per pod (kubelet, containerd with its shims and runc, the
// API server, etcd) within 1.1× of upstream's native sidecars' at every N,
// and no more at the largest N than at the smallest; its extra probe runs
// never above the node-wide bound (in any one second: the bound and its
// burst); at every N, its time to all Ready (p50 of at least 3 runs) no
// later than the postStart workaround's and upstream's native sidecars',
// and its a′ p95 below the postStart hook's. Where at least 3 runs of a
// way and its rival pair up by index, the comparisons of the node's CPU
// and of the time to all Ready are judged on the p50 of the pairs' ratios
// (pairRuns), not on the ratio of the two p50s.
func densityGoals(sums []densitySummary) []rateVerdict {
	get := func(way string, n int) *densitySummary {
		for i := range sums {
			if sums[i].Way == way && sums[i].N == n {
				return &sums[i]
			}
		}
		return nil
	}
	counts := func(way string, ok func(*densitySummary) bool) []int {
		var out []int
		for i := range sums {
			if sums[i].Way == way && ok(&sums[i]) {
				out = append(out, sums[i].N)
			}
		}
		sort.Ints(out)
		return out
	}
	// Figures are compared as the table shows them (0.1 ms, 1 ms), so that
	// a verdict never turns on a float's last digit.
	shown := func(v, unit float64) float64 { return math.Round(v/unit) * unit }
	var cpus, nodes, bounds, readies, aPrimes []rateVerdict
	for _, way := range densityFork {
		if len(counts(way, func(*densitySummary) bool { return true })) == 0 {
			continue
		}
		// CPU per pod.
		hasCPU := func(s *densitySummary) bool { return !math.IsNaN(s.KubeletPerPod) }
		cpu := rateVerdict{Goal: fmt.Sprintf("kubelet CPU per pod, many pods at once: ≤ %.2f× `fork/no-sidecars`' at the largest N, and no more than at the smallest", densityCPURatio),
			Way: way, Figure: "—", Met: "—"}
		if ns := counts(way, hasCPU); len(ns) > 0 {
			small, large := get(way, ns[0]), get(way, ns[len(ns)-1])
			cpu.Figure = fmt.Sprintf("%s ms at %d pods", results.FormatMS(large.KubeletPerPod), large.N)
			met, known := true, false
			if ns2 := get("fork/no-sidecars", large.N); ns2 != nil && hasCPU(ns2) {
				cpu.Figure += fmt.Sprintf(" (`fork/no-sidecars` %s)", results.FormatMS(ns2.KubeletPerPod))
				met, known = shown(large.KubeletPerPod, 0.1) <= shown(densityCPURatio*ns2.KubeletPerPod, 0.1), true
			}
			if small.N != large.N {
				cpu.Figure += fmt.Sprintf(", %s ms at %d pods", results.FormatMS(small.KubeletPerPod), small.N)
				met, known = met && shown(large.KubeletPerPod, 0.1) <= shown(small.KubeletPerPod, 0.1), true
				// The same pods without sidecars grow too (a relist lists
				// the node's containers): shown beside, the verdict as written.
				if a, b := get("fork/no-sidecars", small.N), get("fork/no-sidecars", large.N); a != nil && b != nil && hasCPU(a) && hasCPU(b) {
					cpu.Figure += fmt.Sprintf(" (`fork/no-sidecars` %s and %s)", results.FormatMS(b.KubeletPerPod), results.FormatMS(a.KubeletPerPod))
				}
			}
			if known {
				cpu.Met = yesNo(met)
			}
		}
		// The node's CPU per pod, every serve group.
		hasNode := func(s *densitySummary) bool { return !math.IsNaN(s.NodePerPod) }
		node := rateVerdict{Goal: fmt.Sprintf("the node's CPU per pod (kubelet, containerd + shims + runc, API server, etcd), many pods at once: ≤ %.1f× `upstream/native-startup`'s at every N (the p50 of the ratios of the runs paired by index, where %d pair up), and no more at the largest N than at the smallest", densityNodeCPURatio, densityMinRuns),
			Way: way, Figure: "—", Met: "—"}
		if ns := counts(way, hasNode); len(ns) > 0 {
			// The node's CPU per pod moves between runs of the same way
			// (up to 1.7× between two quiet reference runs): each p50
			// shows its runs' range, and one of fewer than densityMinRuns
			// runs is not judged.
			e := newEveryN()
			for _, n := range ns {
				s := get(way, n)
				if up := get("upstream/native-startup", n); up != nil && hasNode(up) {
					part := fmt.Sprintf("%s ms at %d pods (`upstream/native-startup` %s", nodeCPURange(s), n, nodeCPURange(up))
					// Upstream's native sidecars with the readiness probe
					// the fork's ways wait on, where the run has them:
					// shown beside, the verdict as written.
					if sameProbe := get(sameProbeWay, n); sameProbe != nil && hasNode(sameProbe) {
						part += fmt.Sprintf("; `%s` %s", sameProbeWay, nodeCPURange(sameProbe))
					}
					part += ")"
					// Where enough runs pair up, the ratio of each pair
					// decides: the p50s of separate turns carry the drift
					// between them.
					if pr := pairRuns(s.NodeByRun, up.NodeByRun); pr.judged() {
						e.add(part+"; "+pr.String(), true, shown(pr.P50, 0.01) <= densityNodeCPURatio)
						continue
					}
					few := fewRuns(s, up)
					if few {
						part += notJudged
					}
					e.add(part, !few, shown(s.NodePerPod, 0.1) <= shown(densityNodeCPURatio*up.NodePerPod, 0.1))
				} else {
					e.add(fmt.Sprintf("%s ms at %d pods (no `upstream/native-startup` figure)", nodeCPURange(s), n), false, false)
				}
			}
			if len(ns) > 1 {
				small, large := get(way, ns[0]), get(way, ns[len(ns)-1])
				part := fmt.Sprintf("%d pods against %d: %s against %s ms", large.N, small.N, results.FormatMS(large.NodePerPod), results.FormatMS(small.NodePerPod))
				// Upstream's own per-pod cost grows with N too: shown
				// beside, the verdict as written.
				var grow []string
				for _, up := range []string{"upstream/native-startup", sameProbeWay} {
					if a, b := get(up, small.N), get(up, large.N); a != nil && b != nil && hasNode(a) && hasNode(b) {
						grow = append(grow, fmt.Sprintf("`%s` %s against %s", up, results.FormatMS(b.NodePerPod), results.FormatMS(a.NodePerPod)))
					}
				}
				if len(grow) > 0 {
					part += " (" + strings.Join(grow, "; ") + ")"
				}
				few := fewRuns(small, large)
				if few {
					part += notJudged
				}
				e.add(part, !few, shown(large.NodePerPod, 0.1) <= shown(small.NodePerPod, 0.1))
			}
			e.verdict(&node)
		}
		// The extra runs' bound, at every N.
		bound := rateVerdict{Goal: fmt.Sprintf("extra probe runs while many pods start: within the node-wide bound (at most %d·T + %d in any T seconds between scrapes)",
			results.ExtraRunsPerSecond, results.ExtraRunsBurst), Way: way, Figure: "—", Met: "—"}
		if ns := counts(way, func(s *densitySummary) bool { return s.ExtraRatesKnown }); len(ns) > 0 {
			worstMean, worstPeak := 0.0, 0.0
			tightest, tightestN := get(way, ns[0]).Tightest, ns[0]
			for _, n := range ns {
				s := get(way, n)
				worstMean, worstPeak = max(worstMean, s.MaxMeanExtra), max(worstPeak, s.PeakExtra)
				if s.Tightest.Over() >= tightest.Over() { // ties: the larger N
					tightest, tightestN = s.Tightest, n
				}
			}
			bound.Figure = fmt.Sprintf("mean ≤ %.0f/s, peak %.0f/s; tightest window %s (%d pods)", worstMean, worstPeak, tightest, tightestN)
			bound.Met = yesNo(tightest.WithinBound())
		}
		// Time to all Ready, at every N the way and a rival share.
		ready := rateVerdict{Goal: fmt.Sprintf("all pods Ready, N at once (p50 of ≥ %d runs; where %d runs pair up by index, the p50 of their ratios), at every N: no later than `fork/poststart` and `upstream/native-startup`", densityMinRuns, densityMinRuns),
			Way: way, Figure: "—", Met: "—"}
		hasReady := func(s *densitySummary) bool { return !math.IsNaN(s.AllReadyP50) }
		e := newEveryN()
		for _, n := range counts(way, hasReady) {
			s := get(way, n)
			var against []string
			met, few := true, fewRuns(s)
			for _, rival := range []string{"fork/poststart", "upstream/native-startup"} {
				if r := get(rival, n); r != nil && hasReady(r) {
					// As for the node's CPU: the pairs decide where
					// enough runs pair up.
					if pr := pairRuns(s.AllReadyByRun, r.AllReadyByRun); pr.judged() {
						against = append(against, fmt.Sprintf("`%s` %s s, %s", rival, allReadyRange(r), pr))
						met = met && shown(pr.P50, 0.01) <= 1
						continue
					}
					against = append(against, fmt.Sprintf("`%s` %s s", rival, allReadyRange(r)))
					few = few || fewRuns(r)
					met = met && shown(s.AllReadyP50, 1) <= shown(r.AllReadyP50, 1)
				}
			}
			if len(against) == 0 {
				continue
			}
			if r := get(sameProbeWay, n); r != nil && hasReady(r) { // beside, not in the verdict
				against = append(against, fmt.Sprintf("beside: `%s` %s s", sameProbeWay, allReadyRange(r)))
			}
			part := fmt.Sprintf("%s s at %d pods (%s)", allReadyRange(s), n, strings.Join(against, ", "))
			if few {
				part += notJudged
			}
			e.add(part, !few, met)
		}
		e.verdict(&ready)
		// a′ p95 against the postStart hook's, at every N.
		aPrime := rateVerdict{Goal: "a′ p95, many pods at once, at every N: below the postStart hook's (`fork/poststart`)",
			Way: way, Figure: "—", Met: "—"}
		hasAPrime := func(s *densitySummary) bool { return !math.IsNaN(s.APrimeP95) }
		e = newEveryN()
		for _, n := range counts(way, hasAPrime) {
			s := get(way, n)
			if ps := get("fork/poststart", n); ps != nil && hasAPrime(ps) {
				e.add(fmt.Sprintf("%s ms at %d pods (`fork/poststart` %s)", results.FormatMS(s.APrimeP95), n, results.FormatMS(ps.APrimeP95)),
					true, shown(s.APrimeP95, 0.1) < shown(ps.APrimeP95, 0.1))
			}
		}
		e.verdict(&aPrime)
		cpus, nodes, bounds = append(cpus, cpu), append(nodes, node), append(bounds, bound)
		readies, aPrimes = append(readies, ready), append(aPrimes, aPrime)
	}
	return slices.Concat(cpus, nodes, bounds, readies, aPrimes)
}

// densityCurve is one figure of the summaries against the pod count, one
// series per way: y of a summary, and its spread (NaN: none).
func densityCurve(sums []densitySummary, y func(densitySummary) (v, lo, hi float64)) []pictures.Series {
	var out []pictures.Series
	at := map[string]int{}
	for _, s := range sums {
		v, lo, hi := y(s)
		if math.IsNaN(v) {
			continue
		}
		i, ok := at[s.Way]
		if !ok {
			i = len(out)
			at[s.Way] = i
			out = append(out, pictures.Series{Name: s.Way, Color: pictures.WayColor(s.Way)})
		}
		out[i].Points = append(out[i].Points, pictures.SeriesPoint{X: float64(s.N), Y: v, Lo: lo, Hi: hi})
	}
	return out
}

// densityBoxGroups are the a′ of every way at every pod count, grouped by
// the pod count first, so that the ways at one N sit together.
func densityBoxGroups(sums []densitySummary) []pictures.BoxGroup {
	order := append([]densitySummary(nil), sums...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].N < order[j].N })
	var out []pictures.BoxGroup
	for _, s := range order {
		if len(s.APrimes) == 0 {
			continue
		}
		out = append(out, pictures.BoxGroup{Label: fmt.Sprintf("%s, %d pods", s.Way, s.N), Color: pictures.WayColor(s.Way), Values: s.APrimes})
	}
	return out
}

// sampleBoxGroups are the a′ (scenario a0) of bench run's samples, one
// group per way in report order.
func sampleBoxGroups(sum map[string]map[string]*stats, ways []string) []pictures.BoxGroup {
	var out []pictures.BoxGroup
	for _, w := range ways {
		if st := sum["a0"][w]; st != nil && len(st.SamplesMillis) > 0 {
			out = append(out, pictures.BoxGroup{Label: w, Color: pictures.WayColor(w), Values: st.SamplesMillis})
		}
	}
	return out
}

// densityJSON is density.json: every run, and the summaries with unknown
// figures as null (JSON has no NaN).
func densityJSON(runs []results.DensityRun, sums []densitySummary) ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	type summary struct {
		Way              string    `json:"way"`
		Kubelet          string    `json:"kubelet"`
		N                int       `json:"n"`
		Runs             int       `json:"runs"`
		Failed           int       `json:"failed"`
		Errors           []string  `json:"errors,omitempty"`
		AllReadyMs       []float64 `json:"allReadyMs"`
		AllReadyP50Ms    *float64  `json:"allReadyP50Ms"`
		APrimeP50Ms      *float64  `json:"aPrimeP50Ms"`
		APrimeP95Ms      *float64  `json:"aPrimeP95Ms"`
		APrimePods       int       `json:"aPrimePods"`
		KubeletCPUPerPod *float64  `json:"kubeletCpuMsPerPodAboveIdle"`
		ContainerdPerPod *float64  `json:"containerdCpuMsPerPodAboveIdle"`
		PeriodicPerSec   *float64  `json:"periodicProbeRunsPerSecond"`
		ExtraPerSec      *float64  `json:"extraProbeRunsPerSecond"`
		LimitedPerSec    *float64  `json:"heldBackPerSecond"`
		PeakExtraPerSec  *float64  `json:"peakExtraProbeRunsPerSecond"`
		// Each serve group's CPU per pod above idle, by its cgroup's name,
		// and their total; the TIME_WAIT sockets; the API requests per pod.
		GroupCPUPerPod  map[string]*float64 `json:"cpuMsPerPodAboveIdle"`
		NodeCPUPerPod   *float64            `json:"nodeCpuMsPerPodAboveIdle"`
		TimeWaitReady   *float64            `json:"timeWaitAtReady"`
		TimeWaitPeak    *float64            `json:"timeWaitPeak"`
		APIAllPerPod    *float64            `json:"apiRequestsPerPod"`
		APIEventsPerPod *float64            `json:"apiEventCreatesPerPod"`
		APIStatusPerPod *float64            `json:"apiPodStatusWritesPerPod"`
		// The events updated per pod, over both windows and while the
		// pods go.
		APIEventUpdatesPerPod      *float64 `json:"apiEventUpdatesPerPod"`
		APIEventUpdatesGoingPerPod *float64 `json:"apiEventUpdatesWhileGoingPerPod"`
		// The kubelet's runtime calls per pod above idle, all and by
		// operation (kubelet_runtime_operations_total's operation_type).
		RuntimeCallsPerPod   *float64            `json:"runtimeCallsPerPod"`
		RuntimeCallsPerPodBy map[string]*float64 `json:"runtimeCallsPerPodByOperation,omitempty"`
	}
	var out struct {
		Summaries []summary            `json:"summaries"`
		Runs      []results.DensityRun `json:"runs"`
	}
	out.Runs = runs
	for _, s := range sums {
		js := summary{Way: s.Way, Kubelet: s.Kubelet, N: s.N, Runs: s.Runs, Failed: s.Failed, Errors: s.Errors,
			AllReadyMs: s.AllReadyMs, AllReadyP50Ms: num(s.AllReadyP50), APrimeP50Ms: num(s.APrimeP50), APrimeP95Ms: num(s.APrimeP95),
			APrimePods: len(s.APrimes), KubeletCPUPerPod: num(s.KubeletPerPod), ContainerdPerPod: num(s.ContainerdPerPod),
			GroupCPUPerPod: map[string]*float64{}, NodeCPUPerPod: num(s.NodePerPod),
			TimeWaitReady: num(s.TimeWaitReady), TimeWaitPeak: num(s.TimeWaitPeak),
			APIAllPerPod: num(s.APIAll), APIEventsPerPod: num(s.APIEventCreates), APIStatusPerPod: num(s.APIPodStatus),
			APIEventUpdatesPerPod: num(s.APIEventUpdates), APIEventUpdatesGoingPerPod: num(s.APIEventUpdatesWhileGoing)}
		for i, g := range results.ServeGroups {
			js.GroupCPUPerPod[g.Cgroup] = num(s.GroupPerPod[i])
		}
		js.RuntimeCallsPerPod = num(s.RuntimeOps)
		for op, v := range s.RuntimeOpsByOp {
			if js.RuntimeCallsPerPodBy == nil {
				js.RuntimeCallsPerPodBy = map[string]*float64{}
			}
			js.RuntimeCallsPerPodBy[op] = num(v)
		}
		if s.RatesKnown {
			js.PeriodicPerSec, js.ExtraPerSec, js.LimitedPerSec = num(s.Periodic), num(s.Extra), num(s.Limited)
		}
		if s.ExtraRatesKnown {
			js.PeakExtraPerSec = num(s.PeakExtra)
		}
		out.Summaries = append(out.Summaries, js)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
