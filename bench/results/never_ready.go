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

package results

// What bench never-ready records of a way's run (measure/never_ready.go
// takes it), and its figures: the fork's extra checks of the waiting
// sidecars in windows of their age and over the span the goal judges, and
// a′ of the late and the fresh pods.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

const (
	// ExtraChecksSettledAfter is how long a sidecar is waited on before its
	// extra checks are at their slowest, MaxExtraChecksPerSecond
	// (sidecars.ExtraChecksBackOffAfter plus the doublings up to
	// sidecars.MaxExtraCheckInterval; bench does not import the kubelet's
	// packages).
	ExtraChecksSettledAfter = 10 * time.Second
	MaxExtraChecksPerSecond = 1.0
	// NeverReadyWindowWidth is the width of the report's windows of age.
	NeverReadyWindowWidth = 2 * time.Second
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
		if c.Name == SidecarName(1) {
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
	// MissedScrapes: scrapes of the kubelet's metrics that did not answer
	// within their timeout, left out: the windows around them are longer.
	// Runs of older benchmarks failed at the first.
	MissedScrapes int             `json:"missedScrapes,omitempty"`
	Pods          []NeverReadyPod `json:"pods"`
	Error         string          `json:"error,omitempty"`
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
		s := waitedSpan{pod: p.Name, never: p.ReadyAfter == 0, fresh: p.Fresh, start: c.Started, end: c.Started + int64(ExtraRunsWindow)}
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
		if s.At <= oldest+int64(ExtraRunsWindow) {
			b = i
		}
	}
	if a < 0 || b < 0 || r.Scrapes[b].At-r.Scrapes[a].At < int64(10*time.Second) {
		return NeverReadySettled{}, fmt.Errorf("%s: no 10 s of scrapes between %s and a minute of the sidecars' life", r.Way, FormatDuration(ExtraChecksSettledAfter))
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

// NeverCounts are the run's never-ready pods and its late ones' delays.
func (r NeverReadyRun) NeverCounts() (never int, late []string) {
	for _, p := range r.Pods {
		switch {
		case p.ReadyAfter == 0:
			never++
		case !p.Fresh:
			late = append(late, FormatDuration(time.Duration(p.ReadyAfter)*time.Millisecond))
		}
	}
	return never, late
}

// FreshTimes are when the run's fresh pods were created, after its first
// create.
func (r NeverReadyRun) FreshTimes() (at []string) {
	for _, p := range r.Pods {
		if p.Fresh {
			at = append(at, FormatDuration(time.Duration(p.CreatedAfter)*time.Millisecond))
		}
	}
	return at
}

// ReadNeverReadyRuns reads a JSON-lines file of NeverReadyRun.
func ReadNeverReadyRuns(path string) ([]NeverReadyRun, error) {
	return readJSONLines[NeverReadyRun](path)
}
