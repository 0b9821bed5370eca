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
}

// Sample is one pod's run.
type Sample struct {
	Way      string `json:"way"`
	Kind     string `json:"kind"` // svc or job
	Sidecars int    `json:"sidecars"`
	Repeat   int    `json:"repeat"`
	Pod      string `json:"pod"`
	// Pod events, Unix ns: the benchmark's create and delete calls, and the
	// receive times of the API server's watch events.
	Create          int64       `json:"create"`
	ContainersReady int64       `json:"containersReady,omitempty"`
	Succeeded       int64       `json:"succeeded,omitempty"`
	Delete          int64       `json:"delete,omitempty"`
	Gone            int64       `json:"gone,omitempty"`
	Containers      []Container `json:"containers"`
	Metrics         Metrics     `json:"metrics"` // scenario -> milliseconds
	Error           string      `json:"error,omitempty"`
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
	{"a0", "a'. sidecar /ready turns 200 → first app start (includes the probe period)", "—"},
	{"b", "b. Job: last app exit → pod Succeeded (API watch)", "≤ PLEG relist (1 s) + 500 ms, and ≤ native"},
	{"c", "c. delete: last app exit → first sidecar SIGTERM", "p95 < 100 ms"},
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
		}
	}
	if s.Kind == KindJob && lastAppExit != 0 && s.Succeeded != 0 {
		m["b"] = [2]int64{lastAppExit, s.Succeeded}
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
// prefixed with the tree's name and a tab by hack/bench.sh ("patched\t...").
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

// GoBenchTable writes the medians per tree and benchmark and the patched
// tree's difference to upstream.
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
	median := func(k key) float64 {
		v := append([]float64(nil), ns[k]...)
		sort.Float64s(v)
		if len(v) == 0 {
			return math.NaN()
		}
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
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
			return fmt.Sprintf("%.2f µs, %.0f B, %.0f allocs (median of %d)", median(k)/1e3, b.BPerOp, b.AllocsPerOp, len(ns[k]))
		}
		diff := "—"
		if len(ns[up]) > 0 && len(ns[pa]) > 0 {
			diff = fmt.Sprintf("%+.1f%%", (median(pa)/median(up)-1)*100)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", strings.TrimPrefix(n, "BenchmarkComputePodActions/"), cell(up), cell(pa), diff)
	}
}

// relTime formats t relative to base in ms.
func relTime(base, t int64) string {
	return time.Duration(t - base).Round(time.Millisecond).String()
}
