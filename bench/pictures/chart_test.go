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

package pictures

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestAxisMaxAndTickLabel(t *testing.T) {
	for _, tt := range []struct{ v, end, step float64 }{
		{0, 1, 0.1}, {-3, 1, 0.1}, {math.NaN(), 1, 0.1}, {math.Inf(1), 1, 0.1},
		{9, 9, 1}, {11, 12, 2}, {250, 250, 50}, {251, 300, 50}, {0.37, 0.4, 0.05}, {1500, 1600, 200},
	} {
		end, step := axisMax(tt.v)
		if math.Abs(end-tt.end) > 1e-9 || math.Abs(step-tt.step) > 1e-9 {
			t.Errorf("axisMax(%v) = %v, %v; want %v, %v", tt.v, end, step, tt.end, tt.step)
		}
	}
	for _, tt := range []struct {
		v, step float64
		want    string
	}{
		{0.1 + 0.2, 0.1, "0.3"}, {0.15, 0.05, "0.15"}, {1500, 200, "1500"}, {-0.0000001, 0.1, "0.0"}, {30, 1, "30"}, {2.5, 0.5, "2.5"},
	} {
		if got := tickLabel(tt.v, tt.step); got != tt.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

func TestWayColor(t *testing.T) {
	seen := map[string]string{}
	for _, w := range results.Ways {
		c := WayColor(w.Name)
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s share the colour %s", w.Name, other, c)
		}
		seen[c] = w.Name
	}
	if got := WayColor("no such way"); got != "#555555" {
		t.Errorf("an unknown way: %s", got)
	}
	if got, want := textWidth("ready", 10), 30.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("textWidth = %v, want %v", got, want)
	}
	if textWidth("a′", 10) != textWidth("ab", 10) {
		t.Error("textWidth counts bytes, not characters")
	}
}

func TestWriteBoxPlot(t *testing.T) {
	groups := []BoxGroup{
		{Label: "fork/annotated <1 s>", Color: "#1f77b4", Values: []float64{100, 120, 110, 130, 300}},
		{Label: "fork/poststart", Values: []float64{140, math.NaN(), 150}}, // NaN left out; default colour
		{Label: "none", Values: nil},
	}
	var b strings.Builder
	if err := WriteBoxPlot(&b, "a′ & more", "milliseconds", groups, 250, "goal: p95 ≤ 250 ms"); err != nil {
		t.Fatal(err)
	}
	root := benchtest.ParseSVG(t, b.String())
	if got := len(root.Find("rect", "box")); got != 2 {
		t.Errorf("%d boxes, want 2 (the group without values has none)", got)
	}
	if got := len(root.Find("line", "median")); got != 2 {
		t.Errorf("%d medians, want 2", got)
	}
	if got := len(root.Find("path", "p95")); got != 2 {
		t.Errorf("%d p95 marks, want 2", got)
	}
	if got := len(root.Find("line", "goal")); got != 1 {
		t.Errorf("%d goal lines, want 1", got)
	}
	var labels []string
	for _, e := range root.Find("text", "") {
		if e.Attr("text-anchor") == "end" {
			labels = append(labels, e.Text)
		}
	}
	if diff := cmp.Diff([]string{"fork/annotated <1 s> (5)", "fork/poststart (2)", "none (0)"}, labels); diff != "" {
		t.Errorf("row labels (-want +got):\n%s", diff)
	}
	// The first box spans p25 to p75 (110 to 130) on an axis to 300.
	box := root.Find("rect", "box")[0]
	x, _ := strconv.ParseFloat(box.Attr("x"), 64)
	w, _ := strconv.ParseFloat(box.Attr("width"), 64)
	plotW := 980.0 - 290 - 30
	if want := 290 + 110.0/300*plotW; math.Abs(x-want) > 0.1 {
		t.Errorf("box x = %v, want %v", x, want)
	}
	if want := 20.0 / 300 * plotW; math.Abs(w-want) > 0.1 {
		t.Errorf("box width = %v, want %v", w, want)
	}
	if !strings.Contains(b.String(), "a′ &amp; more") {
		t.Error("the title is not escaped")
	}

	b.Reset()
	if err := WriteBoxPlot(&b, "empty", "ms", nil, 0, ""); err != nil {
		t.Fatal(err)
	}
	if root := benchtest.ParseSVG(t, b.String()); len(root.Find("line", "goal")) != 0 {
		t.Error("a goal line without a goal")
	}
}

func TestWriteLineChart(t *testing.T) {
	nan := math.NaN()
	series := []Series{
		{Name: "fork/annotated", Color: "#1f77b4", Points: []SeriesPoint{{100, 9, 8, 10}, {10, 3, nan, nan}, {30, 5, 4.5, 6}}},
		{Name: "fork/poststart", Color: "#8c564b", Points: []SeriesPoint{{10, 3.5, nan, nan}, {30, nan, nan, nan}}},
		{Name: "nothing", Color: "#000", Points: []SeriesPoint{{10, nan, nan, nan}}},
	}
	var b strings.Builder
	if err := WriteLineChart(&b, "all Ready", "pods", "seconds", series); err != nil {
		t.Fatal(err)
	}
	root := benchtest.ParseSVG(t, b.String())
	lines := root.Find("polyline", "series")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (a series without a point draws none)", len(lines))
	}
	if got := len(strings.Fields(lines[0].Attr("points"))); got != 3 {
		t.Errorf("the first line has %d points, want 3", got)
	}
	// Points in x order, whatever the input's.
	var xs []float64
	for _, p := range strings.Fields(lines[0].Attr("points")) {
		x, _ := strconv.ParseFloat(strings.Split(p, ",")[0], 64)
		xs = append(xs, x)
	}
	if !(xs[0] < xs[1] && xs[1] < xs[2]) {
		t.Errorf("points not in x order: %v", xs)
	}
	if got := len(root.Find("circle", "point")); got != 4 {
		t.Errorf("%d points drawn, want 4", got)
	}
	var legend, ticks []string
	for _, e := range root.Find("text", "legend") {
		legend = append(legend, e.Text)
	}
	for _, e := range root.Find("text", "tick") {
		if e.Attr("text-anchor") == "middle" {
			ticks = append(ticks, e.Text)
		}
	}
	if diff := cmp.Diff([]string{"fork/annotated", "fork/poststart", "nothing"}, legend); diff != "" {
		t.Errorf("legend (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10", "30", "100"}, ticks); diff != "" {
		t.Errorf("x ticks at the pod counts (-want +got):\n%s", diff)
	}

	// Negative values (CPU above idle can be) get an axis below 0.
	b.Reset()
	neg := []Series{{Name: "w", Color: "#000", Points: []SeriesPoint{{10, -3, nan, nan}, {30, 12, nan, nan}}}}
	if err := WriteLineChart(&b, "t", "x", "y", neg); err != nil {
		t.Fatal(err)
	}
	root = benchtest.ParseSVG(t, b.String())
	var yticks []string
	for _, e := range root.Find("text", "tick") {
		if e.Attr("text-anchor") == "end" {
			yticks = append(yticks, e.Text)
		}
	}
	if len(yticks) == 0 || yticks[0] != "-4" || yticks[len(yticks)-1] != "12" {
		t.Errorf("y ticks %v, want -4 to 12", yticks)
	}

	b.Reset()
	if err := WriteLineChart(&b, "nothing", "x", "y", nil); err != nil {
		t.Fatal(err)
	}
	benchtest.ParseSVG(t, b.String())
}
