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

// bench never-ready: what sidecars that stay not ready cost over the whole
// minute in which the fork checks them between their probe's periods (a
// mesh waiting for its control plane, a node reboot), and whether the
// sidecars of pods created meanwhile still release their apps promptly.
// Each way creates, at once, -pods pods of bench probe-rate (probeRatePod:
// one sidecar whose /ready never answers 200) and one such pod for each
// delay of -late whose sidecar turns ready after it; then, at each time of
// -fresh, one new pod whose sidecar turns ready FreshReadyAfter after its
// start. The fresh pods are what the goal's a′ judges: the waiting
// sidecars must not hold back the checks of the sidecars that start next to
// them. A late sidecar has been waited on for a while when it turns ready,
// and by then is checked once a second (the back-off the goal asks for), so
// its a′ is a figure beside, not judged against a quarter of a second. The kubelet's counters are
// scraped once a second for the sidecars' first minute and two seconds
// more: the fork's extra runs node-wide (kubelet_sidecar_extra_probe_runs_total)
// and every pod's prober_probe_total of its sidecar's waited-on probe.
// The runtime's times and the sidecars' logs give each sidecar's start and
// the late ones' readiness, and a′ of their apps as bench density takes it.
//
// The fork's extra checks back off while a sidecar stays not ready, to one
// a second from 10 s of waiting on (sidecars.ExtraCheckInterval), and end
// after a minute: the report shows them per waiting sidecar in windows of
// 2 s of the sidecars' age, and judges them from 10 s to 60 s.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const (
	neverReadyLabel     = "bench.sidecar-kubelet.io/never-ready"
	neverReadyPodPrefix = "nr-"
	// ExtraChecksSettledAfter is how long a sidecar is waited on before its
	// extra checks are at their slowest, MaxExtraChecksPerSecond
	// (sidecars.ExtraChecksBackOffAfter plus the doublings up to
	// sidecars.MaxExtraCheckInterval; bench does not import the kubelet's
	// packages).
	ExtraChecksSettledAfter = 10 * time.Second
	MaxExtraChecksPerSecond = 1.0
	// NeverReadyWindowWidth is the width of the report's windows of age.
	NeverReadyWindowWidth = 2 * time.Second
	// LateReadyAPrimeGoal bounds a′ (p95) of the fresh pods' sidecars, which
	// start while the others wait: the contract's quarter of a second (rule 3).
	LateReadyAPrimeGoal = 250.0
	// FreshReadyAfter is when a fresh pod's sidecar turns ready, after its
	// start: within bench density's delays (0.5 to 3 s).
	FreshReadyAfter = time.Second
)

// A NeverReadyScrape is one reading of the kubelet's counters: the
// node-wide ones of bench probe-rate (Runs sums PerPod) and each pod's
// prober_probe_total of its sidecar's waited-on probe, every result.
type NeverReadyScrape struct {
	ProbeScrape
	PerPod map[string]float64 `json:"perPod"`
}

// NeverReadyPod is one pod of a never-ready run.
type NeverReadyPod struct {
	Name string `json:"name"`
	// ReadyAfter is its sidecar's READY_AFTER in ms; 0: never.
	ReadyAfter float64 `json:"readyAfterMs,omitempty"`
	// Fresh: created CreatedAfter ms after the run's first create, while
	// the others wait.
	Fresh        bool    `json:"fresh,omitempty"`
	CreatedAfter float64 `json:"createdAfterMs,omitempty"`
	UID          string  `json:"uid,omitempty"`
	// Containers: the CRI's times and the test server's logged ones, read
	// at the end of the run, while the pod still ran.
	Containers []Container `json:"containers,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// sidecar is the pod's sidecar's record.
func (p NeverReadyPod) sidecar() (Container, bool) {
	for _, c := range p.Containers {
		if c.Name == sidecarName(1) {
			return c, true
		}
	}
	return Container{}, false
}

// NeverReadyRun is one way's run: a JSON line of bench never-ready.
type NeverReadyRun struct {
	Way     string `json:"way"`
	Kubelet string `json:"kubelet"`
	Probe   string `json:"probe"`  // the probe type counted: Readiness or Startup
	Period  int32  `json:"period"` // its periodSeconds
	Start   int64  `json:"start"`  // the first create call, Unix ns
	// Scrapes: from just before the first create, once a second, to a
	// minute and 2 s after every sidecar ran.
	Scrapes []NeverReadyScrape `json:"scrapes"`
	Pods    []NeverReadyPod    `json:"pods"`
	Error   string             `json:"error,omitempty"`
}

// waitedSpan is when a sidecar was waited on with extra checks: from its
// start to its readiness seen, or to the end of the kubelet's minute of
// extra checks.
type waitedSpan struct {
	pod          string
	never, fresh bool
	start, end   int64 // Unix ns
}

// waited are the run's sidecars' waited spans; an error when a sidecar's
// start, or a late one's readiness, is missing, or a never-ready one was
// seen ready.
func (r NeverReadyRun) waited() ([]waitedSpan, error) {
	var out []waitedSpan
	var problems []string
	for _, p := range r.Pods {
		c, ok := p.sidecar()
		if !ok || c.Started == 0 {
			problems = append(problems, p.Name+": no start of its sidecar")
			continue
		}
		s := waitedSpan{pod: p.Name, never: p.ReadyAfter == 0, fresh: p.Fresh, start: c.Started, end: c.Started + int64(extraRunsWindow)}
		seen := seenReady(c)
		switch {
		case s.never && seen != 0:
			problems = append(problems, p.Name+": the never-ready sidecar was seen ready")
		case !s.never && seen == 0:
			problems = append(problems, p.Name+": its sidecar's readiness was not seen")
		case !s.never:
			s.end = min(s.end, seen)
		}
		out = append(out, s)
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return out, nil
}

// overlap is the seconds of [a, b) within [from, to), Unix ns.
func overlap(a, b, from, to int64) float64 {
	lo, hi := max(a, from), min(b, to)
	if hi <= lo {
		return 0
	}
	return float64(hi-lo) / 1e9
}

// neverStarts are the earliest and the latest start of the never-ready
// sidecars.
func neverStarts(spans []waitedSpan) (oldest, youngest int64) {
	for _, s := range spans {
		if !s.never {
			continue
		}
		if oldest == 0 || s.start < oldest {
			oldest = s.start
		}
		youngest = max(youngest, s.start)
	}
	return oldest, youngest
}

// A NeverReadyWindow is the extra checks between two scrapes.
type NeverReadyWindow struct {
	// Age: the youngest never-ready sidecar's age at the window's start
	// and end, in seconds (the others are older by up to the spread of
	// their starts).
	From, To float64
	Extra    float64 // extra runs node-wide
	Limited  float64 // extra runs the node-wide bound held back
	// Waiting is the sidecars waited on, on average over the window (a
	// late one until its readiness was seen); PerSidecar the extra runs
	// per waiting sidecar and second (NaN: none waited).
	Waiting, PerSidecar float64
	// Busiest is the highest rate of all the runs (periodic included) of
	// one never-ready sidecar's probe, per second.
	Busiest float64
}

// scrapeAtOrAfter is the index of the first scrape at or after t, or -1.
func scrapeAtOrAfter(scrapes []NeverReadyScrape, t int64) int {
	for i, s := range scrapes {
		if s.At >= t {
			return i
		}
	}
	return -1
}

// window is the extra checks between scrapes a and b.
func (r NeverReadyRun) window(spans []waitedSpan, a, b NeverReadyScrape, youngest int64) NeverReadyWindow {
	w := NeverReadyWindow{From: float64(a.At-youngest) / 1e9, To: float64(b.At-youngest) / 1e9,
		Extra: b.Extra - a.Extra, Limited: b.Limited - a.Limited}
	secs := float64(b.At-a.At) / 1e9
	waited := 0.0
	for _, s := range spans {
		if s.fresh {
			// Their checks are a fresh sidecar's, not a waiting one's.
			w.Extra -= b.PerPod[s.pod] - a.PerPod[s.pod]
			continue
		}
		waited += overlap(s.start, s.end, a.At, b.At)
		if s.never {
			w.Busiest = max(w.Busiest, (b.PerPod[s.pod]-a.PerPod[s.pod])/secs)
		}
	}
	w.Waiting, w.PerSidecar = waited/secs, math.NaN()
	if waited > 0 {
		w.PerSidecar = w.Extra / waited
	}
	return w
}

// Windows are the run's extra checks in windows of NeverReadyWindowWidth of the
// youngest never-ready sidecar's age, from its start to the last scrape:
// each from the first scrape at or after the window's start to the first
// at or after its end (scrapes come once a second, so a window is 2 s
// give or take the scrapes' own time).
func (r NeverReadyRun) Windows() ([]NeverReadyWindow, error) {
	spans, err := r.waited()
	if err != nil {
		return nil, err
	}
	_, youngest := neverStarts(spans)
	if youngest == 0 {
		return nil, errors.New("no never-ready sidecar")
	}
	var out []NeverReadyWindow
	for age := time.Duration(0); ; age += NeverReadyWindowWidth {
		a := scrapeAtOrAfter(r.Scrapes, youngest+int64(age))
		b := scrapeAtOrAfter(r.Scrapes, youngest+int64(age+NeverReadyWindowWidth))
		if a < 0 || b < 0 {
			break
		}
		if b > a {
			out = append(out, r.window(spans, r.Scrapes[a], r.Scrapes[b], youngest))
		}
	}
	return out, nil
}

// NeverReadySettled are a run's extra checks over the span the goal
// judges: from the scrape at which the youngest never-ready sidecar had
// been waited on ExtraChecksSettledAfter to the last one before the
// oldest's minute of extra checks ended.
type NeverReadySettled struct {
	Seconds float64 // the span's longest length: its last reply less its first request
	Extra   float64 // extra runs node-wide
	// WaitedSeconds: the sidecars' time waited on within the span, summed;
	// Sidecars: how many waited in it. Allowed is what at most
	// MaxExtraChecksPerSecond each lets through: runs at least a second
	// apart, so WaitedSeconds + one a sidecar for the phase of its first.
	WaitedSeconds     float64
	Sidecars          int
	Allowed           float64
	PerSidecar        float64 // Extra / WaitedSeconds
	Busiest           float64 // the highest runs per second of one never-ready sidecar's probe, periodic included
	BusiestAllowed    float64 // at most one extra a second and one periodic a period, each with a run of phase
	BusiestPod        string
	Limited           float64
	StartSpreadMillis float64 // the never-ready sidecars' starts, the latest less the earliest
}

// Met says whether the extra checks kept to at most one a second each.
func (s NeverReadySettled) Met() bool { return s.Extra <= s.Allowed && s.Busiest <= s.BusiestAllowed }

// Settled computes the span the goal judges; an error when the run has no
// such span of at least 10 s (it failed, or its scrapes stop short).
func (r NeverReadyRun) Settled() (NeverReadySettled, error) {
	if r.Error != "" {
		return NeverReadySettled{}, errors.New(r.Error)
	}
	spans, err := r.waited()
	if err != nil {
		return NeverReadySettled{}, err
	}
	oldest, youngest := neverStarts(spans)
	if youngest == 0 {
		return NeverReadySettled{}, errors.New("no never-ready sidecar")
	}
	a := scrapeAtOrAfter(r.Scrapes, youngest+int64(ExtraChecksSettledAfter))
	b := -1
	for i, s := range r.Scrapes {
		if s.At <= oldest+int64(extraRunsWindow) {
			b = i
		}
	}
	if a < 0 || b < 0 || r.Scrapes[b].At-r.Scrapes[a].At < int64(10*time.Second) {
		return NeverReadySettled{}, fmt.Errorf("%s: no 10 s of scrapes between %s and a minute of the sidecars' life", r.Way, fmtDuration(ExtraChecksSettledAfter))
	}
	first, last := r.Scrapes[a], r.Scrapes[b]
	s := NeverReadySettled{Seconds: last.longestSince(first.ProbeScrape), Extra: last.Extra - first.Extra, Limited: last.Limited - first.Limited,
		StartSpreadMillis: ms(oldest, youngest)}
	// The periodic runs of a never-ready sidecar, one a period.
	period := float64(r.Period)
	if period <= 0 {
		period = 10
	}
	s.BusiestAllowed = (s.Seconds*MaxExtraChecksPerSecond + 1 + s.Seconds/period + 1) / s.Seconds
	for _, sp := range spans {
		if sp.fresh {
			// A fresh sidecar's runs are not the waiting ones' (its
			// periodic ones are taken away too: one or two each).
			s.Extra -= last.PerPod[sp.pod] - first.PerPod[sp.pod]
			continue
		}
		if w := overlap(sp.start, sp.end, first.At, last.At); w > 0 {
			s.WaitedSeconds += w
			s.Sidecars++
		}
		if sp.never {
			if rate := (last.PerPod[sp.pod] - first.PerPod[sp.pod]) / s.Seconds; rate >= s.Busiest {
				s.Busiest, s.BusiestPod = rate, sp.pod
			}
		}
	}
	s.Allowed = s.WaitedSeconds*MaxExtraChecksPerSecond + float64(s.Sidecars)
	s.PerSidecar = math.NaN()
	if s.WaitedSeconds > 0 {
		s.PerSidecar = s.Extra / s.WaitedSeconds
	}
	return s, nil
}

// LateAPrimes are the a′ (ms, sorted) of the pods whose sidecar turned
// ready late, as bench density takes a′ (DensityPod.APrime), and how many
// such pods had none.
func (r NeverReadyRun) LateAPrimes() (aPrimes []float64, missing int) {
	return r.aPrimes(func(p NeverReadyPod) bool { return p.ReadyAfter != 0 && !p.Fresh })
}

// FreshAPrimes are the a′ (ms, sorted) of the fresh pods, and how many had
// none.
func (r NeverReadyRun) FreshAPrimes() (aPrimes []float64, missing int) {
	return r.aPrimes(func(p NeverReadyPod) bool { return p.Fresh })
}

// aPrimes are the a′ of the pods picked.
func (r NeverReadyRun) aPrimes(pick func(NeverReadyPod) bool) (aPrimes []float64, missing int) {
	for _, p := range r.Pods {
		if !pick(p) {
			continue
		}
		if v, ok := (DensityPod{Containers: p.Containers}).APrime(); ok && p.Error == "" {
			aPrimes = append(aPrimes, v)
		} else {
			missing++
		}
	}
	sort.Float64s(aPrimes)
	return aPrimes, missing
}

// neverCounts are the run's never-ready pods and its late ones' delays.
func (r NeverReadyRun) neverCounts() (never int, late []string) {
	for _, p := range r.Pods {
		switch {
		case p.ReadyAfter == 0:
			never++
		case !p.Fresh:
			late = append(late, fmtDuration(time.Duration(p.ReadyAfter)*time.Millisecond))
		}
	}
	return never, late
}

// freshTimes are when the run's fresh pods were created, after its first
// create.
func (r NeverReadyRun) freshTimes() (at []string) {
	for _, p := range r.Pods {
		if p.Fresh {
			at = append(at, fmtDuration(time.Duration(p.CreatedAfter)*time.Millisecond))
		}
	}
	return at
}

// neverReadyJudged: the fork's ways whose extra checks the goals judge
// when the run measured none of the fork's ways that wait on a probe
// (their verdicts then say "not measured").
var neverReadyJudged = []string{"fork/annotated-p10", "fork/native-wait-ready-p10"}

// judgedNeverReady says whether the goals judge a run: the fork's ways
// whose apps wait on the kubelet's probe, where the extra checks are.
func judgedNeverReady(r NeverReadyRun) bool {
	w, ok := WayByName(r.Way)
	return ok && w.Kubelet == "fork" && w.WaitsOnKubeletProbe()
}

// NeverReadyGoals is the scenario's one verdict line (the README's table
// of verdicts has a bound of lines): for each of the fork's runs, the
// never-ready sidecars' extra checks at most one a second each from 10 s
// to 60 s of their life, and a′ (p95) of the late sidecars' apps within
// LateReadyAPrimeGoal meanwhile; the other ways' a′ of the same run beside
// them. Without a run of the fork's the line says it was not measured.
func NeverReadyGoals(runs []NeverReadyRun) []RateVerdict {
	goal := fmt.Sprintf("never-ready sidecars: extra checks from %s to 60 s of their life ≤ %.0f/s each; meanwhile pods created beside them: a′ (/ready 200 → app start) p95 ≤ %.0f ms",
		fmtDuration(ExtraChecksSettledAfter), MaxExtraChecksPerSecond, LateReadyAPrimeGoal)
	var judged, rivals []NeverReadyRun
	for _, r := range runs {
		if judgedNeverReady(r) {
			judged = append(judged, r)
		} else {
			rivals = append(rivals, r)
		}
	}
	if len(judged) == 0 {
		return []RateVerdict{{Goal: goal, Way: strings.Join(neverReadyJudged, "`, `"), Figure: "not measured", Met: "—"}}
	}
	var ways, figures, missed []string
	for _, r := range judged {
		ways = append(ways, r.Way)
		fig := fmt.Sprintf("`%s` ", r.Way)
		checksMet, aPrimeMet := false, false
		if s, err := r.Settled(); err != nil {
			fig += "error: " + err.Error()
		} else {
			never, _ := r.neverCounts()
			fig += fmt.Sprintf("%.2f/s per waiting sidecar (%.0f extra runs in %.0f sidecar-seconds, at most %.0f; %d never ready), the busiest %.2f/s of all its runs (at most %.2f)",
				s.PerSidecar, s.Extra, s.WaitedSeconds, s.Allowed, never, s.Busiest, s.BusiestAllowed)
			checksMet = s.Met()
		}
		if ap, missing := r.FreshAPrimes(); r.Error == "" {
			if len(ap) > 0 {
				fig += fmt.Sprintf(", fresh pods' a′ p95 %s ms (each %s, created after %s)", fmtMS(Percentile(ap, 95)), joinMS(ap), strings.Join(r.freshTimes(), ", "))
				aPrimeMet = missing == 0 && Percentile(ap, 95) <= LateReadyAPrimeGoal
			}
			if missing > 0 {
				fig += fmt.Sprintf(", %d fresh pods without a′", missing)
			}
			if len(ap)+missing == 0 {
				fig += ", no fresh pod"
			}
			if late, _ := r.LateAPrimes(); len(late) > 0 {
				_, delays := r.neverCounts()
				fig += fmt.Sprintf("; beside, sidecars ready late (after %s): a′ %s ms", strings.Join(delays, ", "), joinMS(late))
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
			rivalAPrimes = append(rivalAPrimes, fmt.Sprintf("`%s` %s ms", r.Way, fmtMS(Percentile(ap, 95))))
		}
	}
	v := RateVerdict{Goal: goal, Way: strings.Join(ways, "`, `"), Figure: strings.Join(figures, "; "), Met: "yes"}
	if len(rivalAPrimes) > 0 {
		v.Figure += "; fresh pods' a′ p95 " + strings.Join(rivalAPrimes, ", ")
	}
	if len(missed) > 0 {
		v.Met = "no: " + strings.Join(missed, ", ")
	}
	return []RateVerdict{v}
}

// joinMS lists values in ms.
func joinMS(values []float64) string {
	var parts []string
	for _, v := range values {
		parts = append(parts, fmtMS(v))
	}
	return strings.Join(parts, ", ")
}

// NeverReadyNote explains the section.
const NeverReadyNote = "`bench never-ready`: for each way, pods created at once, each with one sidecar its app waits for: N whose\n" +
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

// NeverReadyTable writes the windows of every run, the runs as columns.
func NeverReadyTable(w io.Writer, runs []NeverReadyRun) {
	cols := make([][]NeverReadyWindow, len(runs))
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
		age := time.Duration(k) * NeverReadyWindowWidth
		fmt.Fprintf(w, "| %.0f–%.0f |", age.Seconds(), (age + NeverReadyWindowWidth).Seconds())
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
	row := func(label string, cell func(NeverReadyRun) string) {
		fmt.Fprintf(w, "| %s |", label)
		for _, r := range runs {
			fmt.Fprintf(w, " %s |", cell(r))
		}
		fmt.Fprintln(w)
	}
	row("never-ready sidecars, their starts' spread", func(r NeverReadyRun) string {
		never, _ := r.neverCounts()
		s, err := r.Settled()
		if err != nil {
			return fmt.Sprintf("%d, error: %v", never, err)
		}
		return fmt.Sprintf("%d, %.0f ms", never, s.StartSpreadMillis)
	})
	row("10–60 s: extra runs per waiting sidecar and second, the busiest's runs/s", func(r NeverReadyRun) string {
		s, err := r.Settled()
		if err != nil {
			return "—"
		}
		return fmt.Sprintf("%.2f, %.2f", s.PerSidecar, s.Busiest)
	})
	row("fresh pods (created after): a′ each, ms", func(r NeverReadyRun) string {
		at := r.freshTimes()
		if len(at) == 0 {
			return "—"
		}
		ap, missing := r.FreshAPrimes()
		cell := fmt.Sprintf("(%s) %s", strings.Join(at, ", "), joinMS(ap))
		if missing > 0 {
			cell += fmt.Sprintf(", %d without", missing)
		}
		return cell
	})
	row("late sidecars (ready after): a′ each, ms", func(r NeverReadyRun) string {
		_, late := r.neverCounts()
		if len(late) == 0 {
			return "—"
		}
		ap, missing := r.LateAPrimes()
		cell := fmt.Sprintf("(%s) %s", strings.Join(late, ", "), joinMS(ap))
		if missing > 0 {
			cell += fmt.Sprintf(", %d without", missing)
		}
		return cell
	})
}

// neverReadySection writes the section of the report, or that the run did
// not measure it.
func neverReadySection(md io.Writer, runs []NeverReadyRun) {
	fmt.Fprint(md, "\n## Sidecars that stay not ready for a minute\n\n")
	if len(runs) == 0 {
		fmt.Fprint(md, "Not measured in this run (`BENCH_NEVER_READY=0`, or the raw files of a run from before `bench never-ready`).\n")
		return
	}
	runs = append([]NeverReadyRun(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return wayOrder(runs[i].Way) < wayOrder(runs[j].Way) })
	fmt.Fprint(md, NeverReadyNote)
	NeverReadyTable(md, runs)
	for _, r := range runs {
		if r.Error != "" {
			fmt.Fprintf(md, "\n`%s`, failed: %s\n", r.Way, r.Error)
		}
	}
}

// probePeriod is the periodSeconds of the pod's sidecar's probe of type t
// (the API's default, 10, when unset).
func probePeriod(pod *v1.Pod, t string) int32 {
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.Name != sidecarName(1) {
				continue
			}
			p := c.ReadinessProbe
			if t == "Startup" {
				p = c.StartupProbe
			}
			if p != nil && p.PeriodSeconds > 0 {
				return p.PeriodSeconds
			}
		}
	}
	return 10
}

// ParseLateReady reads the late sidecars' delays, "15s,30s,45s": each
// within the kubelet's minute of extra checks; "" or "0": none.
func ParseLateReady(s string) ([]time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return nil, nil
	}
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 || d >= extraRunsWindow {
			return nil, fmt.Errorf("late sidecars %q: %q is not a duration within a minute", s, f)
		}
		out = append(out, d)
	}
	return out, nil
}

// neverReadyPods are the pods of a way's run: never ready, late, then fresh
// (created at their time of fresh, after the others).
func neverReadyPods(w Way, never int, late, fresh []time.Duration) ([]*v1.Pod, []NeverReadyPod) {
	short := strings.ReplaceAll(w.Name, "/", "-")
	var pods []*v1.Pod
	var recs []NeverReadyPod
	for i := 0; i < never; i++ {
		pods = append(pods, probeRatePod(w, fmt.Sprintf("%s%s-%d", neverReadyPodPrefix, short, i)))
		recs = append(recs, NeverReadyPod{Name: pods[i].Name})
	}
	readyAfter := func(name string, d time.Duration) *v1.Pod {
		pod := probeRatePod(w, name)
		for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for j := range list {
				for k := range list[j].Env {
					if list[j].Name == sidecarName(1) && list[j].Env[k].Name == "READY_AFTER" {
						list[j].Env[k].Value = d.String()
					}
				}
			}
		}
		return pod
	}
	for i, d := range late {
		pod := readyAfter(fmt.Sprintf("%s%s-late-%d", neverReadyPodPrefix, short, i), d)
		pods = append(pods, pod)
		recs = append(recs, NeverReadyPod{Name: pod.Name, ReadyAfter: float64(d.Milliseconds())})
	}
	for i, at := range fresh {
		pod := readyAfter(fmt.Sprintf("%s%s-fresh-%d", neverReadyPodPrefix, short, i), FreshReadyAfter)
		pods = append(pods, pod)
		recs = append(recs, NeverReadyPod{Name: pod.Name, ReadyAfter: float64(FreshReadyAfter.Milliseconds()), Fresh: true, CreatedAfter: float64(at.Milliseconds())})
	}
	for _, p := range pods {
		p.Labels[neverReadyLabel] = "true"
	}
	return pods, recs
}

// scrapeNeverReady reads the node-wide counters and every pod's of the
// run (name prefix) once.
func scrapeNeverReady(ctx context.Context, km *kubeletMetrics, prefix, probeType string) (NeverReadyScrape, error) {
	s := NeverReadyScrape{PerPod: map[string]float64{}}
	counts, err := km.probes(ctx, namespace)
	if err != nil {
		return s, err
	}
	for k, c := range counts {
		if k.container == sidecarName(1) && k.probeType == probeType && strings.HasPrefix(k.pod, prefix) {
			runs := float64(c.Successful + c.Failed + c.Unknown)
			s.PerPod[k.pod] += runs
			s.Runs += runs
		}
	}
	s.Sent = time.Now().UnixNano()
	if err := km.get(ctx, "/metrics", func(r io.Reader) (err error) {
		s.Extra, s.Limited, err = ParseExtraProbeRuns(r)
		return err
	}); err != nil {
		return s, err
	}
	s.At = time.Now().UnixNano()
	return s, nil
}

// measureNeverReady runs one way: creates the pods at once, scrapes once
// a second until every sidecar has run for a minute and 2 s, reads the
// pods' containers, and leaves the pods to the caller.
func measureNeverReady(ctx context.Context, r *runner, km *kubeletMetrics, w Way, never int, late, fresh []time.Duration) NeverReadyRun {
	run := NeverReadyRun{Way: w.Name, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe()}
	pods, recs := neverReadyPods(w, never, late, fresh)
	run.Pods = recs
	run.Period = probePeriod(pods[0], run.Probe)
	prefix := neverReadyPodPrefix + strings.ReplaceAll(w.Name, "/", "-") + "-"
	scrape := func() bool {
		s, err := scrapeNeverReady(ctx, km, prefix, run.Probe)
		if err != nil {
			run.Error = "scrape: " + err.Error()
			return false
		}
		run.Scrapes = append(run.Scrapes, s)
		return true
	}
	if !scrape() {
		return run
	}
	run.Start = time.Now().UnixNano()
	var wg sync.WaitGroup
	var mu sync.Mutex
	first := len(pods) - len(fresh) // the pods created at once
	create := func(i int) {
		created, err := r.cs.CoreV1().Pods(namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			run.Error = "create: " + err.Error()
			return
		}
		run.Pods[i].UID = string(created.UID)
	}
	for i := range pods[:first] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			create(i)
		}()
	}
	wg.Wait()
	// The fresh pods, each at its time, while the scrapes go on.
	freshDone := make(chan struct{})
	go func() {
		defer close(freshDone)
		for i, at := range fresh {
			select {
			case <-time.After(time.Until(time.Unix(0, run.Start).Add(at))):
			case <-ctx.Done():
				return
			}
			create(first + i)
		}
	}()
	lastFresh := time.Unix(0, run.Start)
	if len(fresh) > 0 {
		lastFresh = lastFresh.Add(slices.Max(fresh))
	}
	mu.Lock()
	failed := run.Error != ""
	mu.Unlock()
	if failed {
		return run
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	deadline := time.Now().Add(3 * time.Minute)
	var end time.Time
	for {
		select {
		case <-ctx.Done():
			run.Error = ctx.Err().Error()
			return run
		case <-tick.C:
		}
		if !scrape() {
			return run
		}
		now := time.Now()
		if !end.IsZero() {
			if now.After(end) {
				break
			}
			continue
		}
		list, err := r.cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: neverReadyLabel + "=true"})
		if err != nil {
			run.Error = "list: " + err.Error()
			return run
		}
		running := 0
		for i := range list.Items {
			if st := sidecarStatus(&list.Items[i]); st != nil && st.State.Running != nil && !strings.Contains(list.Items[i].Name, "-fresh-") {
				running++
			}
		}
		if running == first {
			// Every waiting sidecar's minute of extra checks, and 2 s to
			// show them end; the last fresh pod's start, readiness and app
			// within it, or 15 s after its creation.
			end = now.Add(extraRunsWindow + 2*time.Second)
			if t := lastFresh.Add(15 * time.Second); t.After(end) {
				end = t
			}
		} else if now.After(deadline) {
			run.Error = fmt.Sprintf("%d of %d sidecars running after %s", running, first, deadline.Sub(time.Unix(0, run.Start)).Round(time.Second))
			return run
		}
	}
	<-freshDone
	mu.Lock()
	failed = run.Error != ""
	mu.Unlock()
	if failed {
		return run
	}
	// What the runtime and the test server saw, while every pod runs.
	for i := range run.Pods {
		p := &run.Pods[i]
		rec := r.record(p.Name, p.UID)
		var problems []string
		p.Containers, problems = rec.finish(pods[i], true)
		var kept []string
		for _, pr := range problems {
			if p.ReadyAfter == 0 && pr == "app never seen in the runtime" {
				continue // its sidecar never turns ready: its app never starts
			}
			kept = append(kept, pr)
		}
		p.Error = strings.Join(kept, "; ")
	}
	return run
}

func neverReadyCmd(args []string) error {
	fs := flag.NewFlagSet("never-ready", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT)")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...): the sidecars' and apps' start times")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir: the late sidecars' logged ready times")
	waysFlag := fs.String("ways", "", "comma-separated ways (see pods.go) whose apps wait for a probe, all on the running kubelet")
	never := fs.Int("pods", 10, "pods whose sidecar never turns ready, per way")
	lateFlag := fs.String("late", "15s,30s,45s", "one more pod for each delay, whose sidecar turns ready after it (\"\": none)")
	freshFlag := fs.String("fresh", "15s,30s,45s", "one more pod created at each time after the others, whose sidecar turns ready 1 s after its start (\"\": none)")
	out := fs.String("out", "", "file to append each way's NeverReadyRun to (JSON lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *kubeletURL == "" || *cri == "" || *podLogs == "" || *waysFlag == "" || *out == "" {
		return errors.New("never-ready: -kubeconfig, -kubelet-url, -cri, -pod-logs, -ways and -out are required")
	}
	if *never < 1 {
		return errors.New("never-ready: -pods must be at least 1")
	}
	late, err := ParseLateReady(*lateFlag)
	if err != nil {
		return fmt.Errorf("never-ready: -late: %v", err)
	}
	fresh, err := ParseLateReady(*freshFlag)
	if err != nil {
		return fmt.Errorf("never-ready: -fresh: %v", err)
	}
	ways, err := parseWays(*waysFlag)
	if err != nil {
		return fmt.Errorf("never-ready: %v", err)
	}
	for _, w := range ways {
		// The postStart way's hook gives up after a minute (and the kubelet
		// does not probe before it returns); without ordering nothing waits.
		if w.WaitedOnProbe() == "" || w.Style == "poststart" {
			return fmt.Errorf("never-ready: way %s does not wait on the kubelet's probe", w.Name)
		}
	}
	cfg, cs, err := newAPIClient(*kubeconfig)
	if err != nil {
		return err
	}
	km, err := newKubeletMetrics(cfg, *kubeletURL)
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(*cri, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	rt := runtimeapi.NewRuntimeServiceClient(conn)
	r := &runner{cs: cs, rt: rt, podLogs: *podLogs}
	r.poller = &criPoller{rt: rt, recs: map[*criRecorder]bool{}}
	if err := r.setup(ctx); err != nil {
		return err
	}
	for _, w := range ways {
		run := measureNeverReady(ctx, r, km, w, *never, late, fresh)
		fmt.Fprintf(os.Stderr, "  %s\n", neverReadyLine(run))
		line, err := json.Marshal(run)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return err
		}
		if err := deleteProbeRatePods(ctx, cs); err != nil {
			return err
		}
	}
	return nil
}

// neverReadyLine is a run's progress line.
func neverReadyLine(r NeverReadyRun) string {
	head := fmt.Sprintf("%-28s", r.Way)
	s, err := r.Settled()
	if err != nil {
		return head + " ERROR " + err.Error()
	}
	ap, missing := r.LateAPrimes()
	fap, fmissing := r.FreshAPrimes()
	return fmt.Sprintf("%s 10–60 s: %.2f extra runs/s per waiting sidecar, the busiest %.2f runs/s; fresh pods' a′ %s ms (%d without); late sidecars' a′ %s ms (%d without)",
		head, s.PerSidecar, s.Busiest, joinMS(fap), fmissing, joinMS(ap), missing)
}

// ReadNeverReadyRuns reads a JSON-lines file of NeverReadyRun.
func ReadNeverReadyRuns(path string) ([]NeverReadyRun, error) {
	return readJSONLines[NeverReadyRun](path)
}
