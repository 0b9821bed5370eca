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
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// Panel is one pod's timeline in a picture: the sample and the interval
// of the scenario the picture is about.
type Panel struct {
	Label  string
	Sample results.Sample
	Key    string // scenario key: its interval is highlighted
}

// SVG geometry.
const (
	svgWidth   = 980
	labelWidth = 170
	plotRight  = 20
	rowHeight  = 16
	headHeight = 42 // with one lane of event labels; each further lane adds eventLaneHeight
	panelGap   = 14
	topHeight  = 64
)

// niceStep picks an axis step (1, 2 or 5 times a power of ten, in ms) that
// gives at most about ten ticks over span ms.
func niceStep(span float64) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / 10
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// panelSpan is the first and last time a panel shows.
func panelSpan(s results.Sample) (int64, int64) {
	start, end := s.Create, s.Create
	see := func(t int64) {
		if t != 0 && t > end {
			end = t
		}
	}
	for _, t := range []int64{s.ContainersReady, s.Succeeded, s.Delete, s.Gone} {
		see(t)
	}
	for _, c := range s.Containers {
		for _, t := range []int64{c.Created, c.Started, c.Ready, c.Up, c.Hook, c.Signal, c.Exited} {
			see(t)
		}
	}
	return start, end
}

// WriteTimeline writes one picture: a panel per pod, one row per container
// (a bar from its start to its exit; markers for ready, SIGTERM and exit),
// the pod's events as dashed lines, the scenario's interval highlighted
// with its value. Every panel has the same time scale, from the pod's
// creation.
func WriteTimeline(w io.Writer, title string, panels []Panel) error {
	var span int64 = 1
	for _, p := range panels {
		a, b := panelSpan(p.Sample)
		if b-a > span {
			span = b - a
		}
	}
	plotW := float64(svgWidth - labelWidth - plotRight)
	spanMS := float64(span) / 1e6
	x := func(base, t int64) float64 {
		return float64(labelWidth) + float64(t-base)/1e6/spanMS*plotW
	}
	// The pod events' labels of every panel, stacked on lanes where they
	// fall close (a delete 10 ms after the pod is ready, say).
	type eventLabel struct {
		x, labelX float64 // the event's line, its label's centre
		lane      int
		name      string
	}
	labels := make([][]eventLabel, len(panels))
	height := topHeight
	for i, p := range panels {
		var xs, widths []float64
		for _, ev := range podEvents(p.Sample) {
			ex := x(p.Sample.Create, ev.t)
			wd := textWidth(ev.name, eventFontSize)
			// Kept inside the picture.
			lx := math.Min(math.Max(ex, wd/2+2), svgWidth-wd/2-2)
			labels[i] = append(labels[i], eventLabel{x: ex, labelX: lx, name: ev.name})
			xs, widths = append(xs, lx), append(widths, wd)
		}
		lanes := 1
		for j, lane := range labelLanes(xs, widths, 4) {
			labels[i][j].lane = lane
			lanes = max(lanes, lane+1)
		}
		height += panelHead(lanes) + rowHeight*len(p.Sample.Containers) + panelGap
	}
	height += 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	// Legend.
	lx, ly := 10.0, 40.0
	legend := func(shape, text string) {
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(shape, "X", fmt.Sprintf("%.1f", lx)), "Y", fmt.Sprintf("%.1f", ly)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+14, ly+4, html.EscapeString(text))
		lx += 14 + float64(len(text))*6.2 + 16
	}
	legend(`<rect x="X" y="Y" width="10" height="8" transform="translate(0,-4)" fill="#7f9fd9"/>`, "sidecar running")
	legend(`<rect x="X" y="Y" width="10" height="8" transform="translate(0,-4)" fill="#66b377"/>`, "app running")
	legend(`<circle cx="X" cy="Y" r="4" transform="translate(5,0)" fill="#1b7f3b"/>`, "ready (probe / hook saw it)")
	legend(`<path d="M X Y m 0 -5 l 10 5 l -10 5 z" fill="#e07b00"/>`, "SIGTERM")
	legend(`<rect x="X" y="Y" width="3" height="12" transform="translate(3,-6)" fill="#b03030"/>`, "exit")
	legend(`<rect x="X" y="Y" width="10" height="10" transform="translate(0,-5)" fill="#ffd84d" fill-opacity="0.5"/>`, "measured interval")

	y := float64(topHeight)
	step := niceStep(spanMS)
	for pi, p := range panels {
		s := p.Sample
		base := s.Create
		rows := len(s.Containers)
		lanes := 1
		for _, l := range labels[pi] {
			lanes = max(lanes, l.lane+1)
		}
		top := y + float64(panelHead(lanes))
		bottom := top + float64(rows*rowHeight)
		label := p.Label
		if v, ok := s.Metrics[p.Key]; ok {
			label += fmt.Sprintf("   %s = %s ms", p.Key, results.FormatMS(v))
		}
		fmt.Fprintf(&b, `<text x="10" y="%.1f" font-weight="bold">%s</text>`+"\n", y+12, html.EscapeString(label))
		// Axis ticks (their labels come after the events' lines).
		for t := 0.0; t <= spanMS+1e-9; t += step {
			tx := float64(labelWidth) + t/spanMS*plotW
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e6e6e6"/>`+"\n", tx, top-4, tx, bottom)
		}
		// The measured interval.
		if iv, ok := results.Intervals(&s)[p.Key]; ok {
			x1, x2 := x(base, iv[0]), x(base, iv[1])
			if x2 < x1 {
				x1, x2 = x2, x1
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#ffd84d" fill-opacity="0.5"/>`+"\n",
				x1, top-4, math.Max(x2-x1, 1.5), bottom-top+4)
		}
		// Pod events: the lines from their labels down, then the labels
		// on a white ground, so that a line that passes a lower lane's
		// label does not strike it through.
		for _, l := range labels[pi] {
			ly := y + eventFirstBaseline + float64(l.lane*eventLaneHeight)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="3,2"/>`+"\n", l.x, ly+2, l.x, bottom)
		}
		// The axis' labels on a white ground too: the create line always
		// passes the "0ms".
		for t := 0.0; t <= spanMS+1e-9; t += step {
			tx := float64(labelWidth) + t/spanMS*plotW
			text := axisLabel(t, step)
			wd := textWidth(text, eventFontSize)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="9" fill="white"/>`+"\n", tx-wd/2-1, top-13, wd+2)
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" fill="#888" text-anchor="middle" font-size="9">%s</text>`+"\n", tx, top-6, text)
		}
		for _, l := range labels[pi] {
			ly := y + eventFirstBaseline + float64(l.lane*eventLaneHeight)
			wd := textWidth(l.name, eventFontSize)
			// From the letters' top to their descenders' foot, no further:
			// the lane above keeps its descenders.
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="9" fill="white"/>`+"\n", l.labelX-wd/2-1, ly-7, wd+2)
			fmt.Fprintf(&b, `<text class="event" x="%.1f" y="%.1f" fill="#555" font-size="%g" text-anchor="middle">%s</text>`+"\n", l.labelX, ly, eventFontSize, l.name)
		}
		for i, c := range s.Containers {
			ry := top + float64(i*rowHeight) + rowHeight/2
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", labelWidth-6, ry+4, html.EscapeString(c.Name))
			if c.Created != 0 && c.Started != 0 {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb"/>`+"\n", x(base, c.Created), ry, x(base, c.Started), ry)
			}
			if c.Started != 0 {
				end := c.Exited
				if end == 0 {
					_, end = panelSpan(s)
				}
				fill := "#66b377"
				if c.Sidecar {
					fill = "#7f9fd9"
				}
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="10" fill="%s"/>`+"\n",
					x(base, c.Started), ry-5, math.Max(x(base, end)-x(base, c.Started), 1), fill)
			}
			if c.Ready != 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="#1b7f3b"/>`+"\n", x(base, c.Ready), ry)
			}
			if c.Hook != 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="none" stroke="#1b7f3b"/>`+"\n", x(base, c.Hook), ry)
			}
			if c.Signal != 0 {
				sx := x(base, c.Signal)
				fmt.Fprintf(&b, `<path d="M %.1f %.1f l 9 5 l -9 5 z" fill="#e07b00"/>`+"\n", sx, ry-5)
			}
			if c.Exited != 0 {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="3" height="12" fill="#b03030"/>`+"\n", x(base, c.Exited)-1.5, ry-6)
			}
		}
		y = bottom + panelGap
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// The pod events' labels: their font size, the baseline of the first lane
// below the panel's title, and the height of a lane.
const (
	eventFontSize      = 9.0
	eventFirstBaseline = 26
	eventLaneHeight    = 10
)

// panelHead is the height of a panel's head (its title, the event labels
// on lanes lanes, the axis' labels) above its first container.
func panelHead(lanes int) int { return headHeight + (lanes-1)*eventLaneHeight }

// podEvent is one of a pod's events drawn on its panel.
type podEvent struct {
	t    int64
	name string
}

// podEvents are the pod's events that happened, in a fixed order.
func podEvents(s results.Sample) []podEvent {
	var out []podEvent
	for _, ev := range []podEvent{{s.Create, "create"}, {s.ContainersReady, "ready"}, {s.Delete, "delete"}, {s.Succeeded, "Succeeded"}, {s.Gone, "gone"}} {
		if ev.t != 0 {
			out = append(out, ev)
		}
	}
	return out
}

// labelLanes puts labels (centred at xs, widths wide) on lanes 0, 1, ...:
// in the order of their left edges, each goes on the first lane where it
// starts at least gap after every label already there ends, so that
// labels that would overprint each other are stacked instead.
func labelLanes(xs, widths []float64, gap float64) []int {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]]-widths[order[a]]/2 < xs[order[b]]-widths[order[b]]/2 })
	lanes := make([]int, len(xs))
	var ends []float64 // the right edge of each lane's labels so far
	for _, i := range order {
		left, right := xs[i]-widths[i]/2, xs[i]+widths[i]/2
		lane := 0
		for lane < len(ends) && left < ends[lane]+gap {
			lane++
		}
		if lane == len(ends) {
			ends = append(ends, right)
		} else {
			ends[lane] = math.Max(ends[lane], right)
		}
		lanes[i] = lane
	}
	return lanes
}

func axisLabel(t, step float64) string {
	if step >= 1000 {
		return fmt.Sprintf("%gs", t/1000)
	}
	if t >= 1000 {
		return fmt.Sprintf("%gs", math.Round(t/100)/10)
	}
	return fmt.Sprintf("%gms", t)
}
