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

// bench probe-rate's runs in the report: their table, and the verdicts on
// the fork's node-wide bound of extra runs and the checks each waiting
// sidecar still gets (rateVerdict, the table the other scenarios' verdicts
// share).

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// probeRateNote explains the probe-rate table.
const probeRateNote = "`bench probe-rate`: for each way, N pods created at once, each with one sidecar whose /ready never\n" +
	"answers 200 (its probe, periodSeconds 1, never gives up), so that every sidecar stays waited on. The kubelet's\n" +
	"counters are scraped once a second: `prober_probe_total` of the sidecars' waited-on probe (every run, periodic\n" +
	"and extra; `fork/no-sidecars`: the same sidecar's plain readiness probe) and the fork's\n" +
	"`kubelet_sidecar_extra_probe_runs_total` (extra runs made, and those the node-wide bound held back), node-wide.\n" +
	"The rates are over the seconds in which every sidecar ran and was still in the first minute of its life, the\n" +
	"only time the fork adds runs; *peak* is the highest one-second rate. The fork's bound is 200 extra runs a\n" +
	"second node-wide, with bursts of 20 (the series' prober: extraProbeRunsPerSecond, extraProbeRunsBurst).\n" +
	"Rows whose probe is *exec* ran again with an exec readiness probe that asks the same /ready (`testserver\n" +
	"wait-ready`, once, as `test -f` would); the lines under the table divide the CPU each serving process spent a\n" +
	"second more with extra checks than `fork/no-sidecars` (the same sidecars and probe, on its period alone) by\n" +
	"the extra checks a second: what one extra check costs.\n\n"

// probeRateTable writes the probe-rate runs as a markdown table.
func probeRateTable(w io.Writer, runs []results.ProbeRate) {
	fmt.Fprintln(w, "| way | probe | waiting sidecars | all running after | measured | probe runs/s (periodic + extra) | per sidecar | peak runs/s | extra runs/s, peak | held back/s | kubelet CPU, % of a core | containerd + shims + runc CPU, % of a core |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, p := range runs {
		if p.Error != "" {
			fmt.Fprintf(w, "| `%s` | %s | %d | — | — | error: %s | | | | | | |\n", p.Way, p.HandlerName(), p.Pods, p.Error)
			continue
		}
		r, err := p.RatesOf()
		if err != nil {
			fmt.Fprintf(w, "| `%s` | %s | %d | — | — | error: %v | | | | | | |\n", p.Way, p.HandlerName(), p.Pods, err)
			continue
		}
		cpu, runtime := "—", "—"
		if !math.IsNaN(r.KubeletCores) {
			cpu = fmt.Sprintf("%.0f", r.KubeletCores*100)
		}
		if c, ok := r.ServeCores["containerd"]; ok {
			runtime = fmt.Sprintf("%.0f", c*100)
		}
		fmt.Fprintf(w, "| `%s` | %s | %d | %.1f s | %.1f s | %.0f (%.0f + %.0f) | %.1f | %.0f | %.0f, %.0f | %.0f | %s | %s |\n",
			p.Way, p.HandlerName(), p.Pods, p.AllRunning/1000, r.Seconds, r.Runs, r.Periodic, r.Extra, r.PerSidecar, r.PeakRuns, r.Extra, r.PeakExtra, r.Limited, cpu, runtime)
	}
	for _, line := range extraCheckCosts(runs) {
		fmt.Fprintf(w, "\n%s\n", line)
	}
}

// extraCheckCosts says what one extra check cost the node in a probe-rate
// run, per probe handler: a fork way whose waiting sidecars get extra
// checks against `fork/no-sidecars`, whose same sidecars, as many, with
// the same probe, are probed on their period alone, on the same kubelet
// one after the other. The CPU each serving process spent a second more,
// over the extra checks a second, is the CPU of one extra check (the
// periodic runs are alike in both). The kubelet's own CPU comes from
// /proc where the serve cgroups were not read.
func extraCheckCosts(runs []results.ProbeRate) []string {
	type key struct{ way, handler string }
	rates := map[key]results.Rates{}
	var order []key
	for _, p := range runs {
		if p.Error != "" || p.Kubelet != "fork" {
			continue
		}
		r, err := p.RatesOf()
		if err != nil {
			continue
		}
		k := key{p.Way, p.HandlerName()}
		if _, seen := rates[k]; !seen {
			order = append(order, k)
		}
		rates[k] = r
	}
	var out []string
	for _, k := range order {
		base, ok := rates[key{"fork/no-sidecars", k.handler}]
		r := rates[k]
		if k.way == "fork/no-sidecars" || !ok || r.Extra < 1 {
			continue
		}
		var parts []string
		perCheck := func(name string, more float64) {
			parts = append(parts, fmt.Sprintf("%s %.2f ms", name, more*1000/r.Extra))
		}
		if _, ok := r.ServeCores["kubelet"]; ok {
			for _, g := range results.ServeGroups {
				now, ok1 := r.ServeCores[g.Cgroup]
				then, ok2 := base.ServeCores[g.Cgroup]
				if ok1 && ok2 {
					perCheck(g.Label, now-then)
				}
			}
		} else if !math.IsNaN(r.KubeletCores) && !math.IsNaN(base.KubeletCores) {
			perCheck("kubelet", r.KubeletCores-base.KubeletCores)
		}
		if len(parts) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("What an extra check of a waiting sidecar's %s probe cost, `%s` (%.0f extra checks a second) against `fork/no-sidecars` (none), in CPU per extra check: %s.",
			k.handler, k.way, r.Extra, strings.Join(parts, ", ")))
	}
	return out
}

// A rateVerdict is one goal judged on one way's probe-rate run.
type rateVerdict struct {
	Goal, Way, Figure, Met string
}

// probeRateGoals judges the fork's ways of a probe-rate run against the
// node-wide bound of the extra runs, a token bucket of ExtraRunsPerSecond
// with a burst of ExtraRunsBurst: in any T seconds it lets at most
// ExtraRunsPerSecond·T + ExtraRunsBurst runs through, so over the measured
// span the runs counted must stay within that, and no one-second rate above
// ExtraRunsPerSecond + ExtraRunsBurst. The verdicts come goal by goal.
//
// How often each waiting sidecar was checked is shown beside them, not
// judged: the measured span opens once every sidecar runs, when on a busy
// node most are past their first ExtraChecksBackOffAfter and their checks
// back off (sidecars.ExtraCheckInterval), by design. Whether a sidecar
// that turns ready among waiting ones is still seen promptly is the
// never-ready run's goal (neverReadyGoals), which follows each sidecar by
// its age.
func probeRateGoals(runs []results.ProbeRate) []rateVerdict {
	var bounds, each []rateVerdict
	for _, p := range runs {
		if p.Kubelet != "fork" || p.Way == "fork/no-sidecars" {
			continue
		}
		// Runs with exec probes say so; HTTP ones keep the words they always had.
		probes := ""
		if p.Handler != "" {
			probes = " (" + p.Handler + " probes)"
		}
		bound := rateVerdict{Goal: fmt.Sprintf("extra probe runs with %d sidecars waiting%s: within the node-wide bound, %d/s with bursts of %d (at most %d·T + %d in any T seconds between scrapes)",
			p.Pods, probes, results.ExtraRunsPerSecond, results.ExtraRunsBurst, results.ExtraRunsPerSecond, results.ExtraRunsBurst), Way: p.Way, Figure: "—", Met: "—"}
		checked := rateVerdict{Goal: fmt.Sprintf("each of %d waiting sidecars%s: probe runs a second (shown, not judged: their checks back off by age, which the never-ready goal judges)", p.Pods, probes),
			Way: p.Way, Figure: "—", Met: "—"}
		r, err := p.RatesOf()
		if p.Error == "" && err == nil {
			all := results.Window{Runs: r.Extra * r.Seconds, Seconds: r.Seconds}
			bound.Figure = fmt.Sprintf("%.0f in %.1f s (%.0f/s; the bound: %.0f); tightest window %s", all.Runs, all.Seconds, r.Extra, all.Bound(), r.Tightest)
			bound.Met = yesNo(all.WithinBound() && r.Tightest.WithinBound())
			checked.Figure = fmt.Sprintf("%.1f/s over %.1f s, from %.1f s after the first create (all running)", r.PerSidecar, r.Seconds, p.AllRunning/1000)
		}
		bounds = append(bounds, bound)
		each = append(each, checked)
	}
	return append(bounds, each...)
}

func yesNo(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }

// probeRateGoalsTable writes the verdicts as a markdown table, a goal
// named once for the ways judged against it in a row (as goalsTable does).
func probeRateGoalsTable(w io.Writer, verdicts []rateVerdict) {
	fmt.Fprintln(w, "| goal | way | figure | met |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	last := ""
	for _, v := range verdicts {
		goal := v.Goal
		if goal == last {
			goal = ""
		}
		last = v.Goal
		fmt.Fprintf(w, "| %s | `%s` | %s | %s |\n", goal, v.Way, v.Figure, v.Met)
	}
}
