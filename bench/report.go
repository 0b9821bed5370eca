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
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Container is one container's timeline, every time in Unix nanoseconds
// (0: did not happen or was not seen).
type Container struct {
	Name    string `json:"name"`
	Sidecar bool   `json:"sidecar"`
	Created int64  `json:"created"`          // CRI CreatedAt
	Started int64  `json:"started"`          // CRI StartedAt
	Ready   int64  `json:"ready,omitempty"`  // testserver: first 200 on /ready (the probe, or the hook, that saw it ready)
	Up      int64  `json:"up,omitempty"`     // testserver: /ready turned 200
	Hook    int64  `json:"hook,omitempty"`   // postStart hook returned (poststart way)
	Signal  int64  `json:"signal,omitempty"` // testserver: SIGTERM received
	Exited  int64  `json:"exited"`           // CRI FinishedAt
	Code    int32  `json:"exitCode"`
	// Probes: what the kubelet counted of the container's probes (see
	// ProbeCount), when the run scraped its metrics.
	Probes []ProbeCount `json:"probes,omitempty"`
}

// Probe returns the container's count of probe type t, if any.
func (c Container) Probe(t string) (ProbeCount, bool) {
	for _, p := range c.Probes {
		if p.Type == t {
			return p, true
		}
	}
	return ProbeCount{}, false
}

// Sample is one pod's run.
type Sample struct {
	Way      string `json:"way"`
	Kind     string `json:"kind"` // svc or job
	Sidecars int    `json:"sidecars"`
	Repeat   int    `json:"repeat"`
	Lane     int    `json:"lane,omitempty"`     // which of the way's parallel lanes ran it
	Parallel int    `json:"parallel,omitempty"` // lanes of the way that ran at once (0: 1)
	Pod      string `json:"pod"`
	// Pod events, Unix ns: the benchmark's create and delete calls, and the
	// receive times of the API server's watch events.
	Create          int64 `json:"create"`
	ContainersReady int64 `json:"containersReady,omitempty"`
	Succeeded       int64 `json:"succeeded,omitempty"`
	Delete          int64 `json:"delete,omitempty"`
	// StopCall and StopReturn: the benchmark's own StopContainer call of a
	// KindStop pod's container, Unix ns.
	StopCall   int64       `json:"stopCall,omitempty"`
	StopReturn int64       `json:"stopReturn,omitempty"`
	Gone       int64       `json:"gone,omitempty"`
	Containers []Container `json:"containers"`
	// ProbesAt is when the kubelet's probe metrics were scraped (0: not):
	// once the containers were ready, before anything terminated.
	ProbesAt int64 `json:"probesAt,omitempty"`
	// KubeletLog: the kubelet's log was read for this pod's failed probe
	// runs (ProbeCount.FailedLog).
	KubeletLog bool    `json:"kubeletLog,omitempty"`
	Metrics    Metrics `json:"metrics"` // scenario -> milliseconds
	Error      string  `json:"error,omitempty"`
}

// A Segment is one way's run of one repeat (all its lanes), or the
// kubelet's idle time before the ways (Way "idle"), with the CPU time the
// kubelet process spent over it.
type Segment struct {
	Way        string  `json:"way"`
	Repeat     int     `json:"repeat"`
	Parallel   int     `json:"parallel,omitempty"`
	Pods       int     `json:"pods"`
	Start      int64   `json:"start"` // Unix ns
	End        int64   `json:"end"`
	KubeletCPU float64 `json:"kubeletCPU"` // seconds, user + system, from /proc/<pid>/stat
	KubeletPID int     `json:"kubeletPid,omitempty"`
	Error      string  `json:"error,omitempty"` // the CPU time is not known
}

// Metrics maps a scenario key (see Scenarios) to a duration in ms.
type Metrics map[string]float64

// Scenario is one row group of the report.
type Scenario struct {
	Key, Title, Goal string
}

// Scenarios in report order.
var Scenarios = []Scenario{
	{"a", "a. sidecar ready (probe result) → first app start", "p95 < 100 ms"},
	{"a1", "a, the kubelet's part: sidecar ready → the app's CreateContainer (CRI created)", "—"},
	{"a0", "a'. sidecar /ready turns 200 → first app start (includes the probe period)", "p95 ≤ 250 ms, and < the postStart hook's"},
	{"a2", "a', the wait's part: sidecar /ready turns 200 → the app's CreateContainer (detection and the kubelet)", "—"},
	{"a3", "a', the runtime's part: the app's CreateContainer → its start (the same call in every way)", "—"},
	{"b", "b. Job: last app exit → pod Succeeded (API watch)", "p95 ≤ 1000 ms, and ≤ no sidecars"},
	{"c", "c. delete: last app exit → first sidecar SIGTERM", "p95 within 20 ms of c's floor"},
	{"c0", "c's floor: a plain container's exit → its StopContainer returning (the benchmark's own CRI call)", "—"},
	{"c1", "the runtime's kill path: StopContainer called → the container's SIGTERM", "—"},
	{"d1", "d. delete → pod gone, 1 sidecar", "—"},
	{"d3", "d. delete → pod gone, 3 sidecars", "—"},
	{"d5", "d. delete → pod gone, 5 sidecars", "—"},
	{"e1", "e. create → containers ready, 1 sidecar", "—"},
	{"e3", "e. create → containers ready, 3 sidecars", "—"},
	{"e5", "e. create → containers ready, 5 sidecars", "—"},
}

func ms(from, to int64) float64 { return float64(to-from) / 1e6 }

// Intervals derives, from a sample's times, the interval each scenario it
// measures spans: [from, to] in Unix ns.
func Intervals(s *Sample) map[string][2]int64 {
	m := map[string][2]int64{}
	var lastReady, lastUp, firstAppStart, firstAppCreated, lastAppExit, firstSignal int64
	sidecars := 0
	for _, c := range s.Containers {
		if c.Sidecar {
			sidecars++
			ready := c.Ready
			if c.Hook != 0 && (ready == 0 || c.Hook < ready) {
				ready = c.Hook
			}
			lastReady = maxNZ(lastReady, ready)
			lastUp = maxNZ(lastUp, c.Up)
			if c.Signal != 0 && (firstSignal == 0 || c.Signal < firstSignal) {
				firstSignal = c.Signal
			}
			continue
		}
		if c.Started != 0 && (firstAppStart == 0 || c.Started < firstAppStart) {
			firstAppStart = c.Started
		}
		if c.Created != 0 && (firstAppCreated == 0 || c.Created < firstAppCreated) {
			firstAppCreated = c.Created
		}
		lastAppExit = maxNZ(lastAppExit, c.Exited)
	}
	if sidecars > 0 && lastReady != 0 && firstAppStart != 0 {
		m["a"] = [2]int64{lastReady, firstAppStart}
		if firstAppCreated != 0 {
			m["a1"] = [2]int64{lastReady, firstAppCreated}
		}
		if lastUp != 0 {
			m["a0"] = [2]int64{lastUp, firstAppStart}
			if firstAppCreated != 0 {
				m["a2"] = [2]int64{lastUp, firstAppCreated}
			}
		}
		if firstAppCreated != 0 {
			m["a3"] = [2]int64{firstAppCreated, firstAppStart}
		}
	}
	if s.Kind == KindJob && lastAppExit != 0 && s.Succeeded != 0 {
		m["b"] = [2]int64{lastAppExit, s.Succeeded}
	}
	if s.Kind == KindStop && s.StopCall != 0 {
		for _, c := range s.Containers {
			if c.Exited != 0 && s.StopReturn != 0 {
				m["c0"] = [2]int64{c.Exited, s.StopReturn}
			}
			if c.Signal != 0 {
				m["c1"] = [2]int64{s.StopCall, c.Signal}
			}
		}
	}
	if s.Kind == KindService {
		if sidecars > 0 && lastAppExit != 0 && firstSignal != 0 {
			m["c"] = [2]int64{lastAppExit, firstSignal}
		}
		if s.Delete != 0 && s.Gone != 0 {
			m[fmt.Sprintf("d%d", s.Sidecars)] = [2]int64{s.Delete, s.Gone}
		}
		if s.ContainersReady != 0 {
			m[fmt.Sprintf("e%d", s.Sidecars)] = [2]int64{s.Create, s.ContainersReady}
		}
	}
	return m
}

// ComputeMetrics gives each interval of Intervals in milliseconds.
func ComputeMetrics(s *Sample) Metrics {
	m := Metrics{}
	for k, iv := range Intervals(s) {
		m[k] = ms(iv[0], iv[1])
	}
	return m
}

func maxNZ(a, b int64) int64 {
	if b > a {
		return b
	}
	return a
}

// Stats are the summary of one scenario and way.
type Stats struct {
	N              int
	P50, P95, Max  float64
	Min            float64
	Scenario, Way  string
	SamplesMillis  []float64
	MedianSampleAt int // index in the sample list of the sample nearest the median
}

// Percentile is the nearest-rank percentile of sorted values (p in 0..100);
// NaN for none.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

// Summarize groups the samples by scenario and way.
func Summarize(samples []Sample) map[string]map[string]*Stats {
	out := map[string]map[string]*Stats{}
	for i, s := range samples {
		for k, v := range s.Metrics {
			if out[k] == nil {
				out[k] = map[string]*Stats{}
			}
			st := out[k][s.Way]
			if st == nil {
				st = &Stats{Scenario: k, Way: s.Way, MedianSampleAt: -1}
				out[k][s.Way] = st
			}
			st.SamplesMillis = append(st.SamplesMillis, v)
			_ = i
		}
	}
	for k, byWay := range out {
		for w, st := range byWay {
			sorted := append([]float64(nil), st.SamplesMillis...)
			sort.Float64s(sorted)
			st.N = len(sorted)
			st.Min = sorted[0]
			st.P50 = Percentile(sorted, 50)
			st.P95 = Percentile(sorted, 95)
			st.Max = sorted[len(sorted)-1]
			// The sample whose value is the median: the picture shows it.
			for i, s := range samples {
				if v, ok := s.Metrics[k]; ok && s.Way == w && v == st.P50 {
					st.MedianSampleAt = i
					break
				}
			}
		}
	}
	return out
}

func fmtMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}

// Table writes the markdown table: one row per scenario and way that has
// samples, times in ms.
func Table(w io.Writer, sum map[string]map[string]*Stats, ways []string) {
	fmt.Fprintln(w, "| scenario | way | n | p50 ms | p95 ms | max ms | goal |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | --- |")
	for _, sc := range Scenarios {
		first := true
		for _, way := range ways {
			st := sum[sc.Key][way]
			if st == nil {
				continue
			}
			title, goal := "", ""
			if first {
				title, goal = sc.Title, sc.Goal
				first = false
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s |\n", title, way, st.N, fmtMS(st.P50), fmtMS(st.P95), fmtMS(st.Max), goal)
		}
	}
}

// GoBench is one line of `go test -bench` output.
type GoBench struct {
	Tree, Name           string
	NsPerOp, BPerOp, Ops float64
	AllocsPerOp          float64
}

// ParseGoBench reads `go test -bench` output; every line of it is
// prefixed with the tree's name and a tab by hack/bench/run.sh ("patched\t...").
func ParseGoBench(r io.Reader) ([]GoBench, error) {
	var out []GoBench
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		tree, line, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		b := GoBench{Tree: tree, Name: f[0]}
		// Drop the GOMAXPROCS suffix (-2).
		if i := strings.LastIndex(b.Name, "-"); i > 0 {
			if _, err := strconv.Atoi(b.Name[i+1:]); err == nil {
				b.Name = b.Name[:i]
			}
		}
		var err error
		if b.Ops, err = strconv.ParseFloat(f[1], 64); err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			switch f[i+1] {
			case "ns/op":
				b.NsPerOp = v
			case "B/op":
				b.BPerOp = v
			case "allocs/op":
				b.AllocsPerOp = v
			}
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

// median is the middle of the values (the mean of the two middle ones for
// an even count); NaN for none. The values are not reordered.
func median(values []float64) float64 {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	if len(v) == 0 {
		return math.NaN()
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// GoBenchTable writes the medians per tree and benchmark and the patched
// tree's difference to upstream, benchstat's way (Compare).
func GoBenchTable(w io.Writer, benches []GoBench) {
	type key struct{ tree, name string }
	ns := map[key][]float64{}
	last := map[key]GoBench{}
	var names []string
	seen := map[string]bool{}
	for _, b := range benches {
		k := key{b.Tree, b.Name}
		ns[k] = append(ns[k], b.NsPerOp)
		last[k] = b
		if !seen[b.Name] {
			seen[b.Name] = true
			names = append(names, b.Name)
		}
	}
	fmt.Fprintln(w, "| benchmark | upstream | patched | patched vs upstream |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: |")
	for _, n := range names {
		up, pa := key{"upstream", n}, key{"patched", n}
		cell := func(k key) string {
			if len(ns[k]) == 0 {
				return "—"
			}
			b := last[k]
			return fmt.Sprintf("%.2f µs, %.0f B, %.0f allocs (median of %d)", median(ns[k])/1e3, b.BPerOp, b.AllocsPerOp, len(ns[k]))
		}
		diff := "—"
		if len(ns[up]) > 0 && len(ns[pa]) > 0 {
			diff = Compare(ns[up], ns[pa]).String()
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", strings.TrimPrefix(n, "BenchmarkComputePodActions/"), cell(up), cell(pa), diff)
	}
}

// relTime formats t relative to base in ms.
func relTime(base, t int64) string {
	return time.Duration(t - base).Round(time.Millisecond).String()
}

// Cost is what probing cost the kubelet in one way's pods, and the CPU
// time the kubelet spent over the way's runs.
type Cost struct {
	Way  string
	Pods int // pods whose probe counts were scraped
	// The sidecars waited on: sidecars that started and then served their
	// first 200 on /ready (the probe, or the postStart hook, that saw them
	// ready), each from its start to that first 200.
	Waiting     int
	WaitSeconds float64
	// Probe runs of the waited-on probe (WaitedOnProbe) over those waits,
	// the first success included when the apps wait on the kubelet's
	// probe: every run (failures from the kubelet's log, when read), and
	// those prober_probe_total counted.
	WaitRuns, WaitCounted int
	// Failed runs the kubelet logged and prober_probe_total left out, over
	// every probe of the way's pods until the scrape; -1 when the log was
	// not read for every pod.
	Uncounted int
	// Every probe of every container, from the container's start to the
	// scrape: runs and seconds.
	AllRuns    int
	AllSeconds float64
	// The kubelet's CPU time over the way's runs (Segments), their wall
	// time and the pods they ran; IdleRate is its CPU time per second with
	// no pod of ours (NaN: not measured); CPUError says why the CPU time is
	// not known, for one of the runs.
	CPUSeconds, WallSeconds float64
	SegPods                 int
	IdleRate                float64
	CPUError                string
}

// Costs computes the Cost of every way that has samples or segments.
func Costs(samples []Sample, segs []Segment, ways []string) map[string]*Cost {
	out := map[string]*Cost{}
	for _, name := range ways {
		out[name] = &Cost{Way: name, IdleRate: math.NaN()}
	}
	for i := range samples {
		s := &samples[i]
		c := out[s.Way]
		w, ok := WayByName(s.Way)
		if c == nil || !ok || s.ProbesAt == 0 {
			continue
		}
		c.Pods++
		logRead := s.KubeletLog
		// A kubelet at --v=0 logs no failed probe: its metric's failures
		// with no line in the log say so.
		metricFailed, logFailed := 0, 0
		for _, ct := range s.Containers {
			for _, p := range ct.Probes {
				metricFailed += p.Failed
				logFailed += len(p.FailedLog)
			}
		}
		if metricFailed > 0 && logFailed == 0 {
			logRead = false
		}
		if !logRead {
			c.Uncounted = -1
		}
		for _, ct := range s.Containers {
			for _, p := range ct.Probes {
				if logRead && c.Uncounted >= 0 {
					c.Uncounted += max(0, p.FailedLogUntil(s.ProbesAt)-p.Failed)
				}
				if ct.Started != 0 && ct.Started < s.ProbesAt {
					c.AllRuns += p.Runs(logRead, s.ProbesAt)
					c.AllSeconds += float64(s.ProbesAt-ct.Started) / 1e9
				}
			}
			p, ok := ct.Probe(w.WaitedOnProbe())
			if !ct.Sidecar || !ok || ct.Started == 0 || ct.Ready <= ct.Started {
				continue
			}
			success := 0
			if w.WaitsOnKubeletProbe() && p.Successful > 0 {
				success = 1
			}
			counted := p.Failed + p.Unknown + success
			runs := counted
			if logRead {
				runs = max(runs, p.FailedLogUntil(ct.Ready)+p.Unknown+success)
			}
			c.Waiting++
			c.WaitSeconds += float64(ct.Ready-ct.Started) / 1e9
			c.WaitRuns += runs
			c.WaitCounted += counted
		}
	}
	// The idle rate of each kubelet process.
	idle := map[int][2]float64{} // pid -> CPU s, wall s
	for _, g := range segs {
		if g.Way == "idle" && g.Error == "" && g.End > g.Start {
			v := idle[g.KubeletPID]
			idle[g.KubeletPID] = [2]float64{v[0] + g.KubeletCPU, v[1] + float64(g.End-g.Start)/1e9}
		}
	}
	for _, g := range segs {
		c := out[g.Way]
		if c == nil {
			continue
		}
		if g.Error != "" {
			if c.CPUError == "" {
				c.CPUError = g.Error
			}
			continue
		}
		c.CPUSeconds += g.KubeletCPU
		c.WallSeconds += float64(g.End-g.Start) / 1e9
		c.SegPods += g.Pods
		if v, ok := idle[g.KubeletPID]; ok && v[1] > 0 {
			c.IdleRate = v[0] / v[1]
		}
	}
	return out
}

// CostTable writes the probe and CPU table, one row per way.
func CostTable(w io.Writer, costs map[string]*Cost, ways []string) {
	fmt.Fprintln(w, "| way | sidecars waited on | mean wait ms | probe runs while waiting: all / in prober_probe_total | per second per waiting sidecar: all / in the metric | failed runs left out of the metric | probe runs/s per probed container, start → ready | kubelet CPU ms per pod | above idle | kubelet CPU, % of a core |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range ways {
		c := costs[name]
		if c == nil || (c.Pods == 0 && c.SegPods == 0) {
			continue
		}
		cells := []string{"`" + name + "`", "—", "—", "—", "—", "—", "—", "—", "—", "—"}
		if c.Waiting > 0 {
			cells[1] = strconv.Itoa(c.Waiting)
			cells[2] = fmtMS(c.WaitSeconds / float64(c.Waiting) * 1000)
			cells[3] = fmt.Sprintf("%d / %d", c.WaitRuns, c.WaitCounted)
			cells[4] = fmt.Sprintf("%.2f / %.2f", float64(c.WaitRuns)/c.WaitSeconds, float64(c.WaitCounted)/c.WaitSeconds)
		}
		if c.Pods > 0 && c.Uncounted >= 0 {
			cells[5] = strconv.Itoa(c.Uncounted)
		}
		if c.AllSeconds > 0 {
			cells[6] = fmt.Sprintf("%.2f", float64(c.AllRuns)/c.AllSeconds)
		}
		switch {
		case c.CPUError != "":
			cells[7] = "? (" + strings.ReplaceAll(c.CPUError, "|", "/") + ")"
		case c.SegPods > 0 && c.WallSeconds > 0:
			cells[7] = fmtMS(c.CPUSeconds / float64(c.SegPods) * 1000)
			if !math.IsNaN(c.IdleRate) {
				cells[8] = fmtMS((c.CPUSeconds - c.IdleRate*c.WallSeconds) / float64(c.SegPods) * 1000)
			}
			cells[9] = fmt.Sprintf("%.1f%%", c.CPUSeconds/c.WallSeconds*100)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// IdleLine describes the kubelet's idle CPU measurements.
func IdleLine(segs []Segment) string {
	var parts []string
	for _, g := range segs {
		if g.Way != "idle" {
			continue
		}
		if g.Error != "" || g.End <= g.Start {
			parts = append(parts, fmt.Sprintf("pid %d: unknown (%s)", g.KubeletPID, g.Error))
			continue
		}
		wall := float64(g.End-g.Start) / 1e9
		parts = append(parts, fmt.Sprintf("pid %d: %.2f s of CPU in %.1f s, %.1f%% of a core", g.KubeletPID, g.KubeletCPU, wall, g.KubeletCPU/wall*100))
	}
	if len(parts) == 0 {
		return ""
	}
	return "The kubelet with no pod of ours (measured before the ways): " + strings.Join(parts, "; ") + "."
}

// PeriodTable writes a′ of every way side by side by its probes'
// periodSeconds: one row per kubelet and pod style, one column per period.
func PeriodTable(w io.Writer, sum map[string]map[string]*Stats, ways []string) bool {
	type row struct {
		label string
		by    map[int32]*Stats
	}
	var rows []*row
	byKey := map[string]*row{}
	periods := map[int32]bool{}
	for _, name := range ways {
		st := sum["a0"][name]
		way, ok := WayByName(name)
		if st == nil || !ok {
			continue
		}
		key := way.Kubelet + "/" + way.Style
		r := byKey[key]
		if r == nil {
			r = &row{label: strings.TrimSuffix(name, "-p10"), by: map[int32]*Stats{}}
			byKey[key] = r
			rows = append(rows, r)
		}
		period := max(way.Period, 1)
		r.by[period] = st
		periods[period] = true
	}
	if len(rows) == 0 {
		return false
	}
	var cols []int32
	for p := range periods {
		cols = append(cols, p)
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i] < cols[j] })
	fmt.Fprint(w, "| a′ p50 / p95 ms (n) |")
	for _, p := range cols {
		fmt.Fprintf(w, " periodSeconds %d |", p)
	}
	fmt.Fprint(w, "\n| --- |")
	for range cols {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "| `%s` |", r.label)
		for _, p := range cols {
			if st := r.by[p]; st != nil {
				fmt.Fprintf(w, " %s / %s (%d) |", fmtMS(st.P50), fmtMS(st.P95), st.N)
			} else {
				fmt.Fprint(w, " — |")
			}
		}
		fmt.Fprintln(w)
	}
	return true
}
