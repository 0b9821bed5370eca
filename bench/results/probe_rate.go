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

// What bench probe-rate records (measure/probe_rate.go takes it): the
// kubelet's probe counters read once a second while many sidecars wait,
// the rates over the measured seconds that the report and the goals take
// from them, and the fork's node-wide bound of extra runs they are judged
// against.

import (
	"fmt"
	"math"
	"time"
)

// ExtraRunsWindow is how long after a sidecar starts the fork runs its
// waited-on probe between the periodic runs (sidecars.WaitedOnProbeWindow;
// bench does not import the kubelet's packages).
const ExtraRunsWindow = time.Minute

// A ProbeScrape is one reading of the kubelet's probe counters.
type ProbeScrape struct {
	At int64 `json:"at"` // Unix ns, when the reply came
	// Sent is when the request for the extra runs' counters went out
	// (Unix ns; 0 in runs before it was recorded: At). The kubelet read
	// them somewhere between Sent and At, and on a busy node its /metrics
	// takes hundreds of ms to answer: a window between two scrapes may be
	// as long as one's At less the other's Sent.
	Sent    int64   `json:"sent,omitempty"`
	Runs    float64 `json:"runs"`    // prober_probe_total of the sidecars' waited-on probe, every result
	Extra   float64 `json:"extra"`   // kubelet_sidecar_extra_probe_runs_total{outcome="run"}, node-wide
	Limited float64 `json:"limited"` // kubelet_sidecar_extra_probe_runs_total{outcome="limited"}, node-wide
	CPU     float64 `json:"cpu"`     // the kubelet's CPU seconds; 0 when unknown
	// Serve is the CPU seconds of each serve group (ServeGroups' Cgroup:
	// the kubelet, containerd with its shims and runc, the API server,
	// etcd), when the run read them (nil: not read).
	Serve map[string]float64 `json:"serve,omitempty"`
}

// ProbeRate is one way's run of bench probe-rate.
type ProbeRate struct {
	Way     string `json:"way"`
	Kubelet string `json:"kubelet"`
	Probe   string `json:"probe"` // the probe type counted: Readiness or Startup
	// Handler is the probes' handler: "exec", or "" for HTTP (every run
	// before exec ones were measured).
	Handler string `json:"handler,omitempty"`
	Pods    int    `json:"pods"` // pods created at once, one sidecar each
	// AllRunning is the time from the first create to every sidecar
	// running (ms); From and To bound the seconds measured (Unix ns).
	AllRunning float64       `json:"allRunningMs"`
	From       int64         `json:"from"`
	To         int64         `json:"to"`
	Scrapes    []ProbeScrape `json:"scrapes"`
	// MissedScrapes: scrapes of the kubelet's metrics that did not answer
	// within their timeout (a saturated kubelet), left out: the windows
	// around them are longer. Runs of older benchmarks failed at the first.
	MissedScrapes int    `json:"missedScrapes,omitempty"`
	Error         string `json:"error,omitempty"`
}

// Rates are the figures of a ProbeRate over its measured seconds, per
// second.
type Rates struct {
	Seconds   float64 // length of the measured span
	Runs      float64 // every run of the waited-on probes
	Extra     float64 // the fork's extra runs
	Periodic  float64 // Runs - Extra
	Limited   float64 // extra runs the node-wide bound held back
	PeakRuns  float64 // the highest one-second rate of Runs
	PeakExtra float64 // the highest rate of Extra between two scrapes (over the longest their interval may have been)
	// Tightest is the window between two scrapes where the extra runs
	// came closest to (or went furthest over) the node-wide bound, a token
	// bucket: at most ExtraRunsPerSecond·T + ExtraRunsBurst runs in any T
	// seconds. Every window counts, not only one second: a bucket lets a
	// burst through on top of the rate, so a short window's rate may
	// exceed the rate plus the burst and be within the bound.
	Tightest     Window
	PerSidecar   float64 // Runs / Pods
	KubeletCores float64 // the kubelet's CPU seconds per second; NaN when unknown
	// ServeCores is each serve group's CPU seconds per second, for the
	// groups read at both ends of the span (nil: none).
	ServeCores map[string]float64
}

// Window is a count of extra runs between two scrapes.
type Window struct {
	Runs, Seconds float64
}

// String shows the window against its bound.
func (w Window) String() string {
	return fmt.Sprintf("%.0f in %.2f s (the bound: %.0f)", w.Runs, w.Seconds, w.Bound())
}

// Bound is what the node-wide bound lets through in the window.
func (w Window) Bound() float64 { return ExtraRunsPerSecond*w.Seconds + ExtraRunsBurst }

// Over is how many runs the window holds beyond its bound (negative:
// room left).
func (w Window) Over() float64 { return w.Runs - w.Bound() }

// WithinBound says whether the window keeps to the bound; the counters
// are whole runs, so half a run of slack absorbs the rounding of scrape
// times.
func (w Window) WithinBound() bool { return w.Over() <= 0.5 }

// longestSince is the longest the kubelet's time between its reading of
// the extra runs' counters for earlier and for s may have been, in
// seconds: s's reply less earlier's request.
func (s ProbeScrape) longestSince(earlier ProbeScrape) float64 {
	sent := earlier.Sent
	if sent == 0 {
		sent = earlier.At
	}
	return float64(s.At-sent) / 1e9
}

// RatesOf computes the rates over the scrapes between From and To.
func (p ProbeRate) RatesOf() (Rates, error) {
	var in []ProbeScrape
	for _, s := range p.Scrapes {
		if s.At >= p.From && s.At <= p.To {
			in = append(in, s)
		}
	}
	if len(in) < 2 {
		return Rates{}, fmt.Errorf("%s: %d scrapes in the measured span, need 2", p.Way, len(in))
	}
	first, last := in[0], in[len(in)-1]
	secs := float64(last.At-first.At) / 1e9
	r := Rates{
		Seconds: secs,
		Runs:    (last.Runs - first.Runs) / secs,
		Extra:   (last.Extra - first.Extra) / secs,
		Limited: (last.Limited - first.Limited) / secs,
	}
	r.Periodic = r.Runs - r.Extra
	if p.Pods > 0 {
		r.PerSidecar = r.Runs / float64(p.Pods)
	}
	r.KubeletCores = math.NaN()
	if first.CPU > 0 && last.CPU > 0 {
		r.KubeletCores = (last.CPU - first.CPU) / secs
	}
	for g, end := range last.Serve {
		if begin, ok := first.Serve[g]; ok {
			if r.ServeCores == nil {
				r.ServeCores = map[string]float64{}
			}
			r.ServeCores[g] = (end - begin) / secs
		}
	}
	for i := 1; i < len(in); i++ {
		dt := float64(in[i].At-in[i-1].At) / 1e9
		if dt <= 0 {
			continue
		}
		r.PeakRuns = max(r.PeakRuns, (in[i].Runs-in[i-1].Runs)/dt)
		r.PeakExtra = max(r.PeakExtra, (in[i].Extra-in[i-1].Extra)/in[i].longestSince(in[i-1]))
	}
	r.Tightest = Window{Runs: 0, Seconds: secs}
	for i := range in {
		for j := i + 1; j < len(in); j++ {
			w := Window{Runs: in[j].Extra - in[i].Extra, Seconds: in[j].longestSince(in[i])}
			if w.Seconds > 0 && w.Over() > r.Tightest.Over() {
				r.Tightest = w
			}
		}
	}
	return r, nil
}

// ReadProbeRates reads a JSON-lines file of ProbeRate.
func ReadProbeRates(path string) ([]ProbeRate, error) { return readJSONLines[ProbeRate](path) }

// The fork's node-wide bound of extra runs (the series' prober,
// worker_sidecar.go): ExtraRunsPerSecond with bursts of ExtraRunsBurst.
const (
	ExtraRunsPerSecond = 200
	ExtraRunsBurst     = 20
)

// HandlerName names a run's probe handler for the report: HTTP or exec.
func (p ProbeRate) HandlerName() string {
	if p.Handler == "" {
		return "HTTP"
	}
	return p.Handler
}
