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

// bench never-ready in the report: the verdict, the table of windows and
// the section of report.md.

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const (
	// lateReadyAPrimeGoal bounds a′ (p95) of the fresh pods' sidecars, which
	// start while the others wait: the contract's quarter of a second (rule 3).
	lateReadyAPrimeGoal = 250.0
)

// neverReadyJudged: the fork's ways whose extra checks the goals judge
// when the run measured none of the fork's ways that wait on a probe
// (their verdicts then say "not measured").
var neverReadyJudged = []string{"fork/annotated-p10", "fork/native-wait-ready-p10"}

// judgedNeverReady says whether the goals judge a run: the fork's ways
// whose apps wait on the kubelet's probe, where the extra checks are.
func judgedNeverReady(r results.NeverReadyRun) bool {
	w, ok := results.WayByName(r.Way)
	return ok && w.Kubelet == "fork" && w.WaitsOnKubeletProbe()
}

// neverReadyGoals is the scenario's one verdict line (the README's table
// of verdicts has a bound of lines): for each of the fork's runs, the
// never-ready sidecars' extra checks at most one a second each from 10 s
// to 60 s of their life, and a′ (p95) of the late sidecars' apps within
// lateReadyAPrimeGoal meanwhile; the other ways' a′ of the same run beside
// them. Without a run of the fork's the line says it was not measured.
func neverReadyGoals(runs []results.NeverReadyRun) []rateVerdict {
	goal := fmt.Sprintf("never-ready sidecars: extra checks from %s to 60 s of their life ≤ %.0f/s each; meanwhile pods created beside them: a′ (/ready 200 → app start) p95 ≤ %.0f ms",
		results.FormatDuration(results.ExtraChecksSettledAfter), results.MaxExtraChecksPerSecond, lateReadyAPrimeGoal)
	var judged, rivals []results.NeverReadyRun
	for _, r := range runs {
		if judgedNeverReady(r) {
			judged = append(judged, r)
		} else {
			rivals = append(rivals, r)
		}
	}
	if len(judged) == 0 {
		return []rateVerdict{{Goal: goal, Way: strings.Join(neverReadyJudged, "`, `"), Figure: "not measured", Met: "—"}}
	}
	var ways, figures, missed []string
	for _, r := range judged {
		ways = append(ways, r.Way)
		fig := fmt.Sprintf("`%s` ", r.Way)
		checksMet, aPrimeMet := false, false
		if s, err := r.Settled(); err != nil {
			fig += "error: " + err.Error()
		} else {
			never, _ := r.NeverCounts()
			fig += fmt.Sprintf("%.2f/s per waiting sidecar (%.0f extra runs in %.0f sidecar-seconds, at most %.0f; %d never ready), the busiest %.2f/s of all its runs (at most %.2f)",
				s.PerSidecar, s.Extra, s.WaitedSeconds, s.Allowed, never, s.Busiest, s.BusiestAllowed)
			checksMet = s.Met()
		}
		if ap, missing := r.FreshAPrimes(); r.Error == "" {
			if len(ap) > 0 {
				fig += fmt.Sprintf(", fresh pods' a′ p95 %s ms (each %s, created after %s)", results.FormatMS(results.Percentile(ap, 95)), results.JoinMS(ap), strings.Join(r.FreshTimes(), ", "))
				aPrimeMet = missing == 0 && results.Percentile(ap, 95) <= lateReadyAPrimeGoal
			}
			if missing > 0 {
				fig += fmt.Sprintf(", %d fresh pods without a′", missing)
			}
			if len(ap)+missing == 0 {
				fig += ", no fresh pod"
			}
			if late, _ := r.LateAPrimes(); len(late) > 0 {
				_, delays := r.NeverCounts()
				fig += fmt.Sprintf("; beside, sidecars ready late (after %s): a′ %s ms", strings.Join(delays, ", "), results.JoinMS(late))
			}
		}
		if !checksMet {
			missed = append(missed, fmt.Sprintf("`%s`'s checks", r.Way))
		}
		if !aPrimeMet {
			missed = append(missed, fmt.Sprintf("`%s`'s a′", r.Way))
		}
		figures = append(figures, fig)
	}
	var rivalAPrimes []string
	for _, r := range rivals {
		if ap, _ := r.FreshAPrimes(); len(ap) > 0 {
			rivalAPrimes = append(rivalAPrimes, fmt.Sprintf("`%s` %s ms", r.Way, results.FormatMS(results.Percentile(ap, 95))))
		}
	}
	v := rateVerdict{Goal: goal, Way: strings.Join(ways, "`, `"), Figure: strings.Join(figures, "; "), Met: "yes"}
	if len(rivalAPrimes) > 0 {
		v.Figure += "; fresh pods' a′ p95 " + strings.Join(rivalAPrimes, ", ")
	}
	if len(missed) > 0 {
		v.Met = "no: " + strings.Join(missed, ", ")
	}
	return []rateVerdict{v}
}

// neverReadyNote explains the section.
const neverReadyNote = "`bench never-ready`: for each way, pods created at once, each with one sidecar its app waits for: N whose\n" +
	"/ready never answers 200 (bench probe-rate's pods), and a few whose sidecar turns ready late; then, while they wait,\n" +
	"fresh pods created one at a time, whose sidecar turns ready 1 s after its start. The kubelet's counters\n" +
	"are scraped once a second for the sidecars' first minute and 2 s more: the fork's extra runs node-wide, and\n" +
	"every pod's `prober_probe_total` of its sidecar's waited-on probe (periodic and extra runs). The windows are 2 s of\n" +
	"the youngest never-ready sidecar's age (the others started up to the spread below earlier); a cell is the extra\n" +
	"runs per waiting sidecar and second (a late sidecar waits until its readiness is seen; a fresh pod's runs are left\n" +
	"out, its periodic ones too, one or two each; the kubelet makes extra\n" +
	"runs for a minute at most), then the busiest never-ready sidecar's runs per second, periodic included. The\n" +
	"fork backs off to one extra run a second from 10 s on (sidecars.ExtraCheckInterval); the goal is judged from\n" +
	"10 s to 60 s, where runs at least a second apart allow the waited seconds plus one run a sidecar for the phase\n" +
	"of its first. a′ of a fresh or late sidecar's app: its /ready turning 200 → the app's start, as the density runs\n" +
	"take it. The goal judges the fresh pods': the waiting sidecars must not hold back those that start beside them. A\n" +
	"late sidecar turns ready after 10 s of waiting, when it is checked once a second, so its detection alone may take\n" +
	"a second: its a′ is shown beside.\n\n"

// neverReadyTable writes the windows of every run, the runs as columns.
func neverReadyTable(w io.Writer, runs []results.NeverReadyRun) {
	cols := make([][]results.NeverReadyWindow, len(runs))
	rows := 0
	fmt.Fprint(w, "| age (s) |")
	for i, r := range runs {
		fmt.Fprintf(w, " `%s` |", r.Way)
		if r.Error == "" {
			cols[i], _ = r.Windows()
		}
		rows = max(rows, len(cols[i]))
	}
	fmt.Fprint(w, "\n| --- |")
	for range runs {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprintln(w)
	for k := 0; k < rows; k++ {
		age := time.Duration(k) * results.NeverReadyWindowWidth
		fmt.Fprintf(w, "| %.0f–%.0f |", age.Seconds(), (age + results.NeverReadyWindowWidth).Seconds())
		for i := range runs {
			if k >= len(cols[i]) {
				fmt.Fprint(w, " |")
				continue
			}
			win := cols[i][k]
			per := "—"
			if !math.IsNaN(win.PerSidecar) {
				per = fmt.Sprintf("%.2f", win.PerSidecar)
			}
			cell := fmt.Sprintf("%s, %.2f", per, win.Busiest)
			if win.Limited > 0 {
				cell += fmt.Sprintf(" (%.0f held back)", win.Limited)
			}
			fmt.Fprintf(w, " %s |", cell)
		}
		fmt.Fprintln(w)
	}
	row := func(label string, cell func(results.NeverReadyRun) string) {
		fmt.Fprintf(w, "| %s |", label)
		for _, r := range runs {
			fmt.Fprintf(w, " %s |", cell(r))
		}
		fmt.Fprintln(w)
	}
	row("never-ready sidecars, their starts' spread", func(r results.NeverReadyRun) string {
		never, _ := r.NeverCounts()
		s, err := r.Settled()
		if err != nil {
			return fmt.Sprintf("%d, error: %v", never, err)
		}
		return fmt.Sprintf("%d, %.0f ms", never, s.StartSpreadMillis)
	})
	row("10–60 s: extra runs per waiting sidecar and second, the busiest's runs/s", func(r results.NeverReadyRun) string {
		s, err := r.Settled()
		if err != nil {
			return "—"
		}
		return fmt.Sprintf("%.2f, %.2f", s.PerSidecar, s.Busiest)
	})
	row("fresh pods (created after): a′ each, ms", func(r results.NeverReadyRun) string {
		at := r.FreshTimes()
		if len(at) == 0 {
			return "—"
		}
		ap, missing := r.FreshAPrimes()
		cell := fmt.Sprintf("(%s) %s", strings.Join(at, ", "), results.JoinMS(ap))
		if missing > 0 {
			cell += fmt.Sprintf(", %d without", missing)
		}
		return cell
	})
	row("late sidecars (ready after): a′ each, ms", func(r results.NeverReadyRun) string {
		_, late := r.NeverCounts()
		if len(late) == 0 {
			return "—"
		}
		ap, missing := r.LateAPrimes()
		cell := fmt.Sprintf("(%s) %s", strings.Join(late, ", "), results.JoinMS(ap))
		if missing > 0 {
			cell += fmt.Sprintf(", %d without", missing)
		}
		return cell
	})
}

// neverReadySection writes the section of the report, or that the run did
// not measure it.
func neverReadySection(md io.Writer, runs []results.NeverReadyRun) {
	fmt.Fprint(md, "\n## Sidecars that stay not ready for a minute\n\n")
	if len(runs) == 0 {
		fmt.Fprint(md, "Not measured in this run (`BENCH_NEVER_READY=0`, or the raw files of a run from before `bench never-ready`).\n")
		return
	}
	runs = append([]results.NeverReadyRun(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return wayOrder(runs[i].Way) < wayOrder(runs[j].Way) })
	fmt.Fprint(md, neverReadyNote)
	neverReadyTable(md, runs)
	for _, r := range runs {
		if r.Error != "" {
			fmt.Fprintf(md, "\n`%s`, failed: %s\n", r.Way, r.Error)
		}
	}
}
