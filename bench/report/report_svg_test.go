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
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// writeJSONLines writes values as JSON lines.
func writeJSONLines[T any](t *testing.T, path string, values []T) {
	t.Helper()
	var b strings.Builder
	for _, v := range values {
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportPictures runs bench report on a run of every kind and parses
// every SVG it writes: well-formed, with the elements each picture is
// made of, every one linked from report.md and every link a picture.
func TestReportPictures(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	var samples []results.Sample
	for i, way := range []string{"fork/annotated", "fork/poststart", "upstream/native-startup"} {
		s := benchtest.ServiceSample(way, 1000+int64(i)*20, 1040+int64(i)*30, 2000, 2010)
		s.Create = 1
		s3 := s
		s3.Sidecars = 3 // d3 and e3: the pictures of d and e
		job := results.Sample{Way: way, Kind: results.KindJob, Sidecars: 1, Create: 1, ContainersReady: 1500 * msNS, Succeeded: 3300 * msNS,
			Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Started: 100 * msNS, Up: 850 * msNS, Ready: 900 * msNS, Signal: 3100 * msNS, Exited: 3110 * msNS},
				{Name: "app", Created: 950 * msNS, Started: 1000 * msNS, Exited: 3000 * msNS},
			}}
		samples = append(samples, s, s3, job)
	}
	samplesPath := filepath.Join(in, "samples.jsonl")
	writeJSONLines(t, samplesPath, samples)

	var runs []results.DensityRun
	for _, n := range []int{10, 30} {
		for run := 0; run < 3; run++ {
			f := float64(n) / 10
			runs = append(runs,
				benchtest.DensityRun("fork/annotated", n, run, 2000*f, 50+float64(run), 100, 90, 110, 130),
				benchtest.DensityRun("fork/poststart", n, run, 2200*f, 48, 0, 120, 140),
				benchtest.DensityRun("fork/no-sidecars", n, run, 1900*f, 45, 0),
				benchtest.DensityRun("upstream/native-startup", n, run, 2100*f, 47, 0, 400, 900))
		}
	}
	densityPath := filepath.Join(in, "density.jsonl")
	writeJSONLines(t, densityPath, runs)
	ratesPath := filepath.Join(in, "probe-rates.jsonl")
	writeJSONLines(t, ratesPath, []results.ProbeRate{{Way: "fork/annotated", Kubelet: "fork", Probe: "Readiness", Pods: 50, From: 0, To: 2 * sec,
		Scrapes: []results.ProbeScrape{{At: 0}, {At: sec, Runs: 250, Extra: 200}, {At: 2 * sec, Runs: 500, Extra: 400}}}})

	if err := Command([]string{"-samples", samplesPath, "-density", densityPath, "-probe-rates", ratesPath, "-out", out}); err != nil {
		t.Fatal(err)
	}

	// What each picture is made of: element, class, how many (-1: some).
	type part struct {
		element, class string
		count          int
	}
	timeline := []part{{"text", "event", -1}, {"text", "tick", -1}, {"rect", "", -1}}
	want := map[string][]part{
		"timeline-a.svg": timeline, "timeline-b.svg": timeline, "timeline-c.svg": timeline,
		"timeline-d.svg": timeline, "timeline-e.svg": timeline,
		"aprime.svg":         {{"rect", "box", 3}, {"line", "median", 3}, {"path", "p95", 3}, {"line", "goal", 1}},
		"density-aprime.svg": {{"rect", "box", 6}, {"line", "median", 6}, {"path", "p95", 6}}, // no-sidecars has no a′
		"density-ready.svg":  {{"polyline", "series", 4}, {"circle", "point", 8}, {"text", "legend", 4}},
		"density-cpu.svg":    {{"polyline", "series", 4}, {"circle", "point", 8}, {"text", "legend", 4}},
	}
	files, err := filepath.Glob(filepath.Join(out, "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, f := range files {
		written = append(written, filepath.Base(f))
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	if diff := cmp.Diff(names, written); diff != "" {
		t.Fatalf("pictures written (-want +got):\n%s", diff)
	}
	for _, name := range written {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			root := benchtest.ParseSVG(t, string(b))
			for _, p := range want[name] {
				got := len(root.Find(p.element, p.class))
				if (p.count < 0 && got == 0) || (p.count >= 0 && got != p.count) {
					t.Errorf("%d <%s class=%q>, want %d (-1: some)", got, p.element, p.class, p.count)
				}
			}
		})
	}

	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	var linked []string
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1) {
		linked = append(linked, m[1])
	}
	sort.Strings(linked)
	if diff := cmp.Diff(written, linked); diff != "" {
		t.Errorf("pictures linked from report.md (-written +linked):\n%s", diff)
	}
	for _, s := range []string{"## Many pods at once", "| `fork/annotated` | 30 | 3 |", "Idle, no pod of ours"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md has no %q", s)
		}
	}

	// The probe-rate and density verdicts in one table of goals.md.
	goals, err := os.ReadFile(filepath.Join(out, "goals.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(goals), "| goal | way | figure | met |"); n != 1 {
		t.Errorf("%d tables of verdicts with figures in goals.md, want 1:\n%s", n, goals)
	}
	for _, s := range []string{"extra probe runs with 50 sidecars waiting", "kubelet CPU per pod, many pods at once", "all pods Ready, N at once", "the node's CPU per pod"} {
		if !strings.Contains(string(goals), s) {
			t.Errorf("goals.md has no %q:\n%s", s, goals)
		}
	}
	var doc struct {
		Summaries []map[string]any     `json:"summaries"`
		Runs      []results.DensityRun `json:"runs"`
	}
	js, err := os.ReadFile(filepath.Join(out, "density.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatalf("density.json: %v", err)
	}
	if len(doc.Runs) != len(runs) || len(doc.Summaries) != 8 {
		t.Errorf("density.json: %d runs and %d summaries, want %d and 8", len(doc.Runs), len(doc.Summaries), len(runs))
	}
}

// TestReportWithoutDensity: a report of bench run alone writes no density
// section, file or picture.
func TestReportWithoutDensity(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	samplesPath := filepath.Join(in, "samples.jsonl")
	writeJSONLines(t, samplesPath, []results.Sample{benchtest.ServiceSample("fork/annotated", 1000, 1040, 2000, 2010)})
	if err := Command([]string{"-samples", samplesPath, "-out", out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"density.json", "density-ready.svg", "density-cpu.svg", "density-aprime.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s written without density runs", name)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "Many pods at once") {
		t.Error("a density section without density runs")
	}
}
