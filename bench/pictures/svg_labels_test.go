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
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/internal/benchtest"
	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// TestTimelineEventLabelsDoNotOverlap: the pod events' labels at the top
// of a panel ("create", "ready", "delete", "Succeeded", "gone") print over
// neither each other nor the axis' labels, however close the events fall.
// It reads the picture as a reader would, from the SVG alone.
func TestTimelineEventLabelsDoNotOverlap(t *testing.T) {
	// A service pod deleted 12 ms after it is ready and gone 28 ms later,
	// and a Job pod Succeeded 15 ms after its ready: a few pixels apart on
	// a picture of 1.8 s.
	svc := results.Sample{Way: "fork/annotated", Kind: results.KindService, Sidecars: 1, Create: 1,
		ContainersReady: 1000 * msNS, Delete: 1012 * msNS, Gone: 1040 * msNS,
		Containers: []results.Container{
			{Name: "sc1", Sidecar: true, Started: 100 * msNS, Up: 850 * msNS, Ready: 900 * msNS, Signal: 1020 * msNS, Exited: 1030 * msNS},
			{Name: "app", Created: 920 * msNS, Started: 950 * msNS, Signal: 1013 * msNS, Exited: 1025 * msNS},
		}}
	job := results.Sample{Way: "fork/annotated", Kind: results.KindJob, Sidecars: 1, Create: 1,
		ContainersReady: 1800 * msNS, Succeeded: 1815 * msNS,
		Containers: []results.Container{
			{Name: "sc1", Sidecar: true, Started: 100 * msNS, Ready: 400 * msNS, Signal: 1790 * msNS, Exited: 1795 * msNS},
			{Name: "app", Started: 450 * msNS, Exited: 1780 * msNS},
		}}
	for _, s := range []*results.Sample{&svc, &job} {
		s.Metrics = results.ComputeMetrics(s)
	}
	var b strings.Builder
	if err := WriteTimeline(&b, "labels", []Panel{{Label: "svc", Sample: svc, Key: "d1"}, {Label: "job", Sample: job, Key: "b"}}); err != nil {
		t.Fatal(err)
	}
	root := benchtest.ParseSVG(t, b.String())

	// Every small centred label: the events' and the axis'. A label's box
	// runs from its letters' top (0.75 em above the baseline) to its
	// descenders' foot.
	type box struct {
		text           string
		x0, x1, y0, y1 float64
	}
	var events, ticks []box
	for _, e := range root.Find("text", "") {
		size, _ := strconv.ParseFloat(e.Attr("font-size"), 64)
		if size != 9 || e.Attr("text-anchor") != "middle" {
			continue
		}
		x, errX := strconv.ParseFloat(e.Attr("x"), 64)
		y, errY := strconv.ParseFloat(e.Attr("y"), 64)
		if errX != nil || errY != nil {
			t.Fatalf("label %q at %q, %q", e.Text, e.Attr("x"), e.Attr("y"))
		}
		w := textWidth(e.Text, size)
		bx := box{e.Text, x - w/2, x + w/2, y - 0.75*size, y + 2}
		switch e.Text {
		case "create", "ready", "delete", "Succeeded", "gone":
			events = append(events, bx)
		default:
			ticks = append(ticks, bx)
		}
	}
	if len(events) != 7 || len(ticks) == 0 {
		t.Fatalf("%d event labels and %d axis labels, want 7 (create, ready, delete, gone; create, ready, Succeeded) and some", len(events), len(ticks))
	}
	overlap := func(a, b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }
	for i, a := range events {
		for _, c := range events[i+1:] {
			if overlap(a, c) {
				t.Errorf("%q (x %.1f–%.1f, y %.1f–%.1f) prints over %q (x %.1f–%.1f, y %.1f–%.1f)", a.text, a.x0, a.x1, a.y0, a.y1, c.text, c.x0, c.x1, c.y0, c.y1)
			}
		}
		for _, c := range ticks {
			if overlap(a, c) {
				t.Errorf("%q (x %.1f–%.1f, y %.1f–%.1f) prints over the axis' %q (x %.1f–%.1f, y %.1f–%.1f)", a.text, a.x0, a.x1, a.y0, a.y1, c.text, c.x0, c.x1, c.y0, c.y1)
			}
		}
		if a.x0 < 0 || a.x1 > svgWidth {
			t.Errorf("%q runs off the picture: x %.1f–%.1f", a.text, a.x0, a.x1)
		}
	}
}
