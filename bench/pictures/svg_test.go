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
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const msNS = int64(1e6)

func TestNiceStep(t *testing.T) {
	for _, tt := range []struct{ span, want float64 }{
		{0, 1}, {9, 1}, {10, 1}, {11, 2}, {35, 5}, {100, 10}, {1500, 200}, {8000, 1000}, {12000, 2000},
	} {
		if got := niceStep(tt.span); got != tt.want {
			t.Errorf("niceStep(%v) = %v, want %v", tt.span, got, tt.want)
		}
	}
}

func TestWriteTimeline(t *testing.T) {
	s := benchtest.ServiceSample("fork/annotated", 1000, 1040, 2000, 2010)
	s.Metrics = results.ComputeMetrics(&s)
	s.Create = 1 // 0 means "not seen"
	job := results.Sample{Way: "x", Kind: results.KindJob, Succeeded: 2 * 1000 * msNS, Containers: []results.Container{{Name: "app", Started: 10 * msNS}}}
	tests := []struct {
		name     string
		panels   []Panel
		contains []string
	}{
		{
			name:   "service pod, scenario c",
			panels: []Panel{{Label: "fork/annotated <svc>", Sample: s, Key: "c"}},
			contains: []string{
				"fork/annotated &lt;svc&gt;   c = 10.0 ms", // escaped label and the value
				`fill="#e07b00"`,                    // a SIGTERM marker
				`fill="#1b7f3b"`,                    // a ready marker
				`fill="#ffd84d" fill-opacity="0.5"`, // the interval
				">create<", ">delete<", ">gone<", ">sc1<", ">app<",
			},
		},
		{
			name:     "a Job pod that never exited: the bar runs to the end",
			panels:   []Panel{{Label: "job", Sample: job, Key: "b"}},
			contains: []string{">Succeeded<", `fill="#66b377"`, ">2s<"},
		},
		{name: "no panels", contains: []string{"<svg", "</svg>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteTimeline(&b, "title & more", tt.panels); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			// Well-formed XML.
			d := xml.NewDecoder(strings.NewReader(out))
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed: %v\n%s", err, out)
				}
			}
			for _, c := range append(tt.contains, "title &amp; more") {
				if !strings.Contains(out, c) {
					t.Errorf("no %q in\n%s", c, out)
				}
			}
			if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
				t.Errorf("NaN or Inf in the SVG:\n%s", out)
			}
		})
	}
}

func TestLabelLanes(t *testing.T) {
	tests := []struct {
		name       string
		xs, widths []float64
		want       []int
	}{
		{"none", nil, nil, []int{}},
		{"apart: one lane", []float64{10, 100}, []float64{20, 20}, []int{0, 0}},
		{"overlapping: stacked", []float64{100, 105}, []float64{30, 30}, []int{0, 1}},
		{"three close: three lanes", []float64{100, 105, 110}, []float64{30, 30, 30}, []int{0, 1, 2}},
		{"the third clear of the first: back on lane 0", []float64{100, 110, 140}, []float64{30, 30, 20}, []int{0, 1, 0}},
		{"in any order: by left edge", []float64{140, 100, 110}, []float64{20, 30, 30}, []int{0, 0, 1}},
		{"exactly gap apart: one lane", []float64{0, 34}, []float64{30, 30}, []int{0, 0}},
		{"less than gap apart: stacked", []float64{0, 33}, []float64{30, 30}, []int{0, 1}},
		{"a wide label holds its lane to its right edge", []float64{100, 90}, []float64{100, 10}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, labelLanes(tt.xs, tt.widths, 4)); diff != "" {
				t.Errorf("labelLanes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodEventsAndPanelHead(t *testing.T) {
	s := results.Sample{Create: 1, ContainersReady: 5, Succeeded: 7}
	var got []string
	for _, ev := range podEvents(s) {
		got = append(got, ev.name)
	}
	if diff := cmp.Diff([]string{"create", "ready", "Succeeded"}, got); diff != "" {
		t.Errorf("podEvents (-want +got):\n%s", diff)
	}
	if podEvents(results.Sample{}) != nil {
		t.Error("events of a pod that never was")
	}
	if panelHead(1) != headHeight || panelHead(3) != headHeight+2*eventLaneHeight {
		t.Errorf("panelHead(1) = %d, panelHead(3) = %d", panelHead(1), panelHead(3))
	}
}
