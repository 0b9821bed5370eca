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
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// stats are the summary of one scenario and way.
type stats struct {
	N              int
	P50, P95, Max  float64
	Min            float64
	Scenario, Way  string
	SamplesMillis  []float64
	MedianSampleAt int // index in the sample list of the sample nearest the median
}

// summarize groups the samples by scenario and way.
func summarize(samples []results.Sample) map[string]map[string]*stats {
	out := map[string]map[string]*stats{}
	for i, s := range samples {
		for k, v := range s.Metrics {
			if out[k] == nil {
				out[k] = map[string]*stats{}
			}
			st := out[k][s.Way]
			if st == nil {
				st = &stats{Scenario: k, Way: s.Way, MedianSampleAt: -1}
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
			st.P50 = results.Percentile(sorted, 50)
			st.P95 = results.Percentile(sorted, 95)
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

// table writes the markdown table: one row per scenario and way that has
// samples, times in ms.
func table(w io.Writer, sum map[string]map[string]*stats, ways []string) {
	fmt.Fprintln(w, "| scenario | way | n | p50 ms | p95 ms | max ms | goal |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | --- |")
	for _, sc := range results.Scenarios {
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
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s |\n", title, way, st.N, results.FormatMS(st.P50), results.FormatMS(st.P95), results.FormatMS(st.Max), goal)
		}
	}
}

// cost is what probing cost the kubelet in one way's pods, and the CPU
// time the kubelet spent over the way's runs.
type cost struct {
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

// costs computes the cost of every way that has samples or segments.
func costs(samples []results.Sample, segs []results.Segment, ways []string) map[string]*cost {
	out := map[string]*cost{}
	for _, name := range ways {
		out[name] = &cost{Way: name, IdleRate: math.NaN()}
	}
	for i := range samples {
		s := &samples[i]
		c := out[s.Way]
		w, ok := results.WayByName(s.Way)
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

// costTable writes the probe and CPU table, one row per way.
func costTable(w io.Writer, costs map[string]*cost, ways []string) {
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
			cells[2] = results.FormatMS(c.WaitSeconds / float64(c.Waiting) * 1000)
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
			cells[7] = results.FormatMS(c.CPUSeconds / float64(c.SegPods) * 1000)
			if !math.IsNaN(c.IdleRate) {
				cells[8] = results.FormatMS((c.CPUSeconds - c.IdleRate*c.WallSeconds) / float64(c.SegPods) * 1000)
			}
			cells[9] = fmt.Sprintf("%.1f%%", c.CPUSeconds/c.WallSeconds*100)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// idleLine describes the kubelet's idle CPU measurements.
func idleLine(segs []results.Segment) string {
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

// periodTable writes a′ of every way side by side by its probes'
// periodSeconds: one row per kubelet and pod style, one column per period.
func periodTable(w io.Writer, sum map[string]map[string]*stats, ways []string) bool {
	type row struct {
		label string
		by    map[int32]*stats
	}
	var rows []*row
	byKey := map[string]*row{}
	periods := map[int32]bool{}
	for _, name := range ways {
		st := sum["a0"][name]
		way, ok := results.WayByName(name)
		if st == nil || !ok {
			continue
		}
		key := way.Kubelet + "/" + way.Style
		r := byKey[key]
		if r == nil {
			r = &row{label: strings.TrimSuffix(name, "-p10"), by: map[int32]*stats{}}
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
				fmt.Fprintf(w, " %s / %s (%d) |", results.FormatMS(st.P50), results.FormatMS(st.P95), st.N)
			} else {
				fmt.Fprint(w, " — |")
			}
		}
		fmt.Fprintln(w)
	}
	return true
}
