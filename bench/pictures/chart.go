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

// Distributions and curves, in the timelines' SVG style: a box plot (one
// row per group, so that ten ways read side by side with their names in
// full, which a CDF's legend would not allow) and a line chart (one line
// per way against the number of pods).

import (
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// chartPalette are distinguishable colours; a way keeps its colour in
// every picture (its place in Ways).
var chartPalette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#843c39"}

// WayColor is the colour of a way in every chart.
func WayColor(name string) string {
	for i, w := range results.Ways {
		if w.Name == name {
			return chartPalette[i%len(chartPalette)]
		}
	}
	return "#555555"
}

// textWidth estimates the width in pixels of text in a sans-serif font of
// size px: 0.6 em a character is wider than most of them, so that labels
// placed by it do not touch.
func textWidth(s string, px float64) float64 {
	return float64(utf8.RuneCountInString(s)) * px * 0.6
}

// axisMax is the end of an axis from 0 that holds v, on a step of
// niceStep, and that step.
func axisMax(v float64) (end, step float64) {
	if !(v > 0) || math.IsInf(v, 0) {
		return 1, 0.1
	}
	step = niceStep(v)
	return math.Ceil(v/step-1e-9) * step, step
}

// tickLabel formats an axis value on a step: as many decimals as the step
// has, so that 0.1 + 0.2 reads 0.3.
func tickLabel(v, step float64) string {
	decimals := 0
	if step > 0 && step < 1 {
		decimals = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	v = math.Round(v*math.Pow(10, float64(decimals))) / math.Pow(10, float64(decimals))
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func svgOpen(b *strings.Builder, width, height int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(b, `<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
}

// A BoxGroup is one row of a box plot.
type BoxGroup struct {
	Label  string
	Color  string
	Values []float64
}

// WriteBoxPlot draws one horizontal box per group on a common axis from 0:
// the box from p25 to p75, a bar at the median, whiskers to the minimum
// and the maximum, a diamond at p95 (nearest-rank percentiles, as the
// tables'); and, when goal > 0, a dashed line at it.
func WriteBoxPlot(w io.Writer, title, unit string, groups []BoxGroup, goal float64, goalLabel string) error {
	const (
		width  = 980
		left   = 290
		right  = 30
		top    = 74
		row    = 24
		bottom = 44
	)
	high := goal
	for _, g := range groups {
		for _, v := range g.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				high = max(high, v)
			}
		}
	}
	end, step := axisMax(high)
	height := top + row*len(groups) + bottom
	plotW := float64(width - left - right)
	x := func(v float64) float64 { return left + math.Max(0, v)/end*plotW }
	var b strings.Builder
	svgOpen(&b, width, height, title)
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">%s</text>`+"\n", html.EscapeString(
		"box: p25 to p75; bar: median; whiskers: min to max; ◆: p95; (n) values"))
	bottomY := float64(top + row*len(groups))
	for t := 0.0; t <= end+step/2; t += step {
		tx := x(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#e6e6e6"/>`+"\n", tx, top-4, tx, bottomY)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" fill="#888" text-anchor="middle" font-size="9">%s</text>`+"\n", tx, top-8, tickLabel(t, step))
	}
	if goal > 0 {
		gx := x(goal)
		fmt.Fprintf(&b, `<line class="goal" x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#b03030" stroke-dasharray="5,3"/>`+"\n", gx, top-4, gx, bottomY)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#b03030" font-size="10">%s</text>`+"\n", gx+4, top-20, html.EscapeString(goalLabel))
	}
	for i, g := range groups {
		cy := float64(top + row*i + row/2)
		var vals []float64
		for _, v := range g.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		sort.Float64s(vals)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, cy+4,
			html.EscapeString(fmt.Sprintf("%s (%d)", g.Label, len(vals))))
		if len(vals) == 0 {
			continue
		}
		color := g.Color
		if color == "" {
			color = "#555555"
		}
		lo, hi := x(vals[0]), x(vals[len(vals)-1])
		q1, q2, q3, p95 := x(results.Percentile(vals, 25)), x(results.Percentile(vals, 50)), x(results.Percentile(vals, 75)), x(results.Percentile(vals, 95))
		fmt.Fprintf(&b, `<line class="whisker" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", lo, cy, hi, cy, color)
		for _, cx := range []float64{lo, hi} {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", cx, cy-4, cx, cy+4, color)
		}
		fmt.Fprintf(&b, `<rect class="box" x="%.1f" y="%.1f" width="%.1f" height="14" fill="%s" fill-opacity="0.35" stroke="%s"/>`+"\n",
			q1, cy-7, math.Max(q3-q1, 1), color, color)
		fmt.Fprintf(&b, `<line class="median" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"/>`+"\n", q2, cy-7, q2, cy+7, color)
		fmt.Fprintf(&b, `<path class="p95" d="M %.1f %.1f l 4 4 l -4 4 l -4 -4 z" fill="%s"/>`+"\n", p95, cy-4, color)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#555" text-anchor="middle">%s</text>`+"\n", left+plotW/2, height-14, html.EscapeString(unit))
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// A SeriesPoint is one point of a line: Y at X, and the spread of the
// values Y sums up from Lo to Hi (NaN: none drawn).
type SeriesPoint struct {
	X, Y, Lo, Hi float64
}

// A Series is one line of a line chart.
type Series struct {
	Name   string
	Color  string
	Points []SeriesPoint
}

// WriteLineChart draws one line per series, points as dots with their
// spread as a vertical bar, on axes from 0 (y below 0 when a value is):
// the x ticks at the points' X (the pod counts run), the y ticks on a nice
// step.
func WriteLineChart(w io.Writer, title, xLabel, yLabel string, series []Series) error {
	const (
		width  = 760
		left   = 80
		right  = 30
		plotH  = 300
		bottom = 52
	)
	// The legend, in rows that fit the width.
	type entry struct {
		x, y float64
		s    Series
	}
	var legend []entry
	lx, ly := 10.0, 40.0
	for _, s := range series {
		wEntry := 26 + textWidth(s.Name, 11) + 14
		if lx+wEntry > width-10 && lx > 10 {
			lx, ly = 10, ly+16
		}
		legend = append(legend, entry{lx, ly, s})
		lx += wEntry
	}
	top := ly + 24
	height := int(top) + plotH + bottom
	plotW := float64(width - left - right)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	xs := map[float64]bool{}
	xHigh, yLow, yHigh := 0.0, 0.0, 0.0
	for _, s := range series {
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			xs[p.X] = true
			xHigh = max(xHigh, p.X)
			for _, v := range []float64{p.Y, p.Lo, p.Hi} {
				if finite(v) {
					yLow, yHigh = min(yLow, v), max(yHigh, v)
				}
			}
		}
	}
	if xHigh <= 0 {
		xHigh = 1
	}
	xEnd := xHigh * 1.06
	yEnd, step := axisMax(yHigh - yLow)
	yStart := 0.0
	if yLow < 0 {
		yStart = -math.Ceil(-yLow/step-1e-9) * step
		yEnd = yStart + math.Ceil((yHigh-yStart)/step-1e-9)*step
		if yEnd <= yStart {
			yEnd = yStart + step
		}
	}
	px := func(v float64) float64 { return left + v/xEnd*plotW }
	py := func(v float64) float64 { return top + plotH - (v-yStart)/(yEnd-yStart)*plotH }

	var b strings.Builder
	svgOpen(&b, width, height, title)
	for _, e := range legend {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", e.x, e.y, e.x+20, e.y, e.s.Color)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", e.x+10, e.y, e.s.Color)
		fmt.Fprintf(&b, `<text class="legend" x="%.1f" y="%.1f">%s</text>`+"\n", e.x+26, e.y+4, html.EscapeString(e.s.Name))
	}
	for t := yStart; t <= yEnd+step/2; t += step {
		ty := py(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e6e6e6"/>`+"\n", left, ty, left+plotW, ty)
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%.1f" fill="#888" text-anchor="end" font-size="9">%s</text>`+"\n", left-6, ty+3, tickLabel(t, step))
	}
	var xticks []float64
	for v := range xs {
		xticks = append(xticks, v)
	}
	sort.Float64s(xticks)
	for _, v := range xticks {
		tx := px(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e6e6e6"/>`+"\n", tx, top, tx, top+plotH)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" fill="#888" text-anchor="middle" font-size="9">%s</text>`+"\n", tx, top+plotH+13, tickLabel(v, 1))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", left, py(0), left+plotW, py(0))
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>`+"\n", left, top, left, top+plotH)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555" text-anchor="middle">%s</text>`+"\n", left+plotW/2, top+plotH+34, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text x="18" y="%.1f" fill="#555" text-anchor="middle" transform="rotate(-90 18 %.1f)">%s</text>`+"\n",
		top+plotH/2, top+plotH/2, html.EscapeString(yLabel))
	for _, s := range series {
		var pts []SeriesPoint
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				pts = append(pts, p)
			}
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		if len(pts) == 0 {
			continue
		}
		var coords []string
		for _, p := range pts {
			coords = append(coords, fmt.Sprintf("%.1f,%.1f", px(p.X), py(p.Y)))
		}
		fmt.Fprintf(&b, `<polyline class="series" points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(coords, " "), s.Color)
		for _, p := range pts {
			if finite(p.Lo) && finite(p.Hi) {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.6"/>`+"\n", px(p.X), py(p.Lo), px(p.X), py(p.Hi), s.Color)
			}
			fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s</title></circle>`+"\n",
				px(p.X), py(p.Y), s.Color, html.EscapeString(fmt.Sprintf("%s at %g: %.4g", s.Name, p.X, p.Y)))
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
