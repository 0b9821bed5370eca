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

// bench probe-rate: how often the kubelet probes sidecars that others wait
// for, with many of them waiting at once (a node reboot, a rollout). Each
// way creates -pods pods at once, each with one sidecar that never turns
// ready, and scrapes the kubelet's counters once a second: prober_probe_total
// of the sidecars' waited-on probe (every run, periodic and extra) and the
// fork's kubelet_sidecar_extra_probe_runs_total (the extra runs made and
// those the node-wide bound held back). The figures are taken over the
// seconds in which every sidecar is running and still inside the first
// minute of its life, the only time the fork adds runs.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// extraRunsWindow is how long after a sidecar starts the fork runs its
// waited-on probe between the periodic runs (sidecars.WaitedOnProbeWindow;
// bench does not import the kubelet's packages).
const extraRunsWindow = time.Minute

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
}

// ProbeRate is one way's run of bench probe-rate.
type ProbeRate struct {
	Way     string `json:"way"`
	Kubelet string `json:"kubelet"`
	Probe   string `json:"probe"` // the probe type counted: Readiness or Startup
	Pods    int    `json:"pods"`  // pods created at once, one sidecar each
	// AllRunning is the time from the first create to every sidecar
	// running (ms); From and To bound the seconds measured (Unix ns).
	AllRunning float64       `json:"allRunningMs"`
	From       int64         `json:"from"`
	To         int64         `json:"to"`
	Scrapes    []ProbeScrape `json:"scrapes"`
	Error      string        `json:"error,omitempty"`
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

// ParseExtraProbeRuns reads kubelet_sidecar_extra_probe_runs_total from
// the Prometheus text of the kubelet's /metrics: 0, 0 from a kubelet
// without it (upstream's).
func ParseExtraProbeRuns(r io.Reader) (run, limited float64, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "kubelet_sidecar_extra_probe_runs_total{")
		if !ok {
			continue
		}
		end := strings.LastIndex(rest, "}")
		if end < 0 {
			return 0, 0, fmt.Errorf("no closing brace in %q", sc.Text())
		}
		labels, err := parseLabels(rest[:end])
		if err != nil {
			return 0, 0, err
		}
		value, err := strconv.ParseFloat(strings.Fields(rest[end+1:] + " x")[0], 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%q: %v", sc.Text(), err)
		}
		switch labels["outcome"] {
		case "run":
			run += value
		case "limited":
			limited += value
		}
	}
	return run, limited, sc.Err()
}

// probeRatePod is the pod of a way for bench probe-rate: the way's pod
// with one sidecar whose /ready never answers 200, and probes that never
// give up within the run (a startup probe would restart the sidecar after
// failureThreshold runs).
func probeRatePod(w Way, name string) *v1.Pod {
	pod := PodFor(w, KindService, 1, name)
	pod.Labels["bench.sidecar-kubelet.io/probe-rate"] = "true"
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](2)
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			if c.Name != sidecarName(1) {
				continue
			}
			for j := range c.Env {
				if c.Env[j].Name == "READY_AFTER" {
					c.Env[j].Value = "never"
				}
			}
			for _, p := range []*v1.Probe{c.ReadinessProbe, c.StartupProbe} {
				if p != nil {
					p.FailureThreshold = 100000
				}
			}
		}
	}
	return pod
}

// sidecarStatus finds the sidecar's status in a pod's status.
func sidecarStatus(pod *v1.Pod) *v1.ContainerStatus {
	for _, list := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range list {
			if list[i].Name == sidecarName(1) {
				return &list[i]
			}
		}
	}
	return nil
}

func probeRateCmd(args []string) error {
	fs := flag.NewFlagSet("probe-rate", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT)")
	kubeletPID := fs.Int("kubelet-pid", 0, "the kubelet's pid: its CPU time from /proc")
	waysFlag := fs.String("ways", "", "comma-separated ways (see pods.go), all on the running kubelet")
	pods := fs.Int("pods", 50, "pods created at once per way, one waiting sidecar each")
	span := fs.Duration("span", 15*time.Second, "how long to measure once every sidecar runs")
	out := fs.String("out", "", "file to append each way's ProbeRate to (JSON lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *kubeletURL == "" || *waysFlag == "" || *out == "" {
		return errors.New("probe-rate: -kubeconfig, -kubelet-url, -ways and -out are required")
	}
	if *pods < 1 || *span < 2*time.Second {
		return errors.New("probe-rate: -pods must be at least 1 and -span at least 2s")
	}
	ways, err := parseWays(*waysFlag)
	if err != nil {
		return fmt.Errorf("probe-rate: %v", err)
	}
	for _, w := range ways {
		if w.WaitedOnProbe() == "" && w.Style != "none" {
			return fmt.Errorf("probe-rate: unknown way %q", w.Name)
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
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	r := &runner{cs: cs}
	if err := r.setup(ctx); err != nil {
		return err
	}
	for _, w := range ways {
		pr := measureProbeRate(ctx, cs, km, *kubeletPID, w, *pods, *span)
		if pr.Error != "" {
			fmt.Fprintf(os.Stderr, "  %s: %s\n", w.Name, pr.Error)
		} else if rates, err := pr.RatesOf(); err == nil {
			fmt.Fprintf(os.Stderr, "  %s, %d waiting sidecars (all running after %.1f s): %.0f runs/s (%.0f extra, %.0f held back), peak extra %.0f/s\n",
				w.Name, pr.Pods, pr.AllRunning/1000, rates.Runs, rates.Extra, rates.Limited, rates.PeakExtra)
		}
		line, err := json.Marshal(pr)
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

// measureProbeRate runs one way: creates the pods at once, scrapes once a
// second until every sidecar runs and span has passed (or the first
// sidecar's extra runs would end), and leaves the pods to the caller.
func measureProbeRate(ctx context.Context, cs kubernetes.Interface, km *kubeletMetrics, pid int, w Way, pods int, span time.Duration) ProbeRate {
	pr := ProbeRate{Way: w.Name, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe(), Pods: pods}
	if pr.Probe == "" {
		pr.Probe = "Readiness" // the pod without ordering: the sidecar's plain readiness probe
	}
	scrape := func() (ProbeScrape, error) {
		return scrapeProbes(ctx, km, "pr-", sidecarName(1), pr.Probe, pid)
	}
	short := strings.NewReplacer("/", "-").Replace(w.Name)
	start := time.Now()
	errs := make(chan error, pods)
	for i := 0; i < pods; i++ {
		pod := probeRatePod(w, fmt.Sprintf("pr-%s-%d", short, i))
		go func() {
			_, err := cs.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
			errs <- err
		}()
	}
	for i := 0; i < pods; i++ {
		if err := <-errs; err != nil {
			pr.Error = "create: " + err.Error()
			return pr
		}
	}
	// Until every sidecar runs: the pods' list once a second, with a
	// scrape. The first sidecar's start bounds the span: its extra runs
	// end a minute after it.
	var firstStart time.Time
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	deadline := start.Add(4 * time.Minute)
	for {
		s, err := scrape()
		if err != nil {
			pr.Error = "scrape: " + err.Error()
			return pr
		}
		pr.Scrapes = append(pr.Scrapes, s)
		if pr.From != 0 && s.At >= pr.To {
			break
		}
		if pr.From == 0 {
			list, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "bench.sidecar-kubelet.io/probe-rate=true"})
			if err != nil {
				pr.Error = "list: " + err.Error()
				return pr
			}
			running := 0
			for i := range list.Items {
				st := sidecarStatus(&list.Items[i])
				if st == nil || st.State.Running == nil {
					continue
				}
				if st.Ready {
					pr.Error = fmt.Sprintf("pod %s: the sidecar turned ready; it must not", list.Items[i].Name)
					return pr
				}
				running++
				if t := st.State.Running.StartedAt.Time; firstStart.IsZero() || t.Before(firstStart) {
					firstStart = t
				}
			}
			if running == pods {
				now := time.Now()
				pr.AllRunning = float64(now.Sub(start).Milliseconds())
				// The API server's startedAt is whole seconds: a second
				// kept back for it.
				end := now.Add(span)
				if last := firstStart.Add(extraRunsWindow - 2*time.Second); last.Before(end) {
					end = last
				}
				if end.Sub(now) < 2*time.Second {
					pr.Error = fmt.Sprintf("every sidecar ran only %.0f s after the first create; the first one's extra runs were about to end", now.Sub(start).Seconds())
					return pr
				}
				pr.From, pr.To = now.UnixNano(), end.UnixNano()
			}
		}
		if time.Now().After(deadline) {
			pr.Error = fmt.Sprintf("not every sidecar ran within %s", deadline.Sub(start))
			return pr
		}
		select {
		case <-ctx.Done():
			pr.Error = ctx.Err().Error()
			return pr
		case <-tick.C:
		}
	}
	return pr
}

// scrapeProbes reads the kubelet's probe counters once: prober_probe_total
// of the probe probeType of the container of every pod whose name starts
// with prefix (every result), the fork's extra runs node-wide (0 from
// upstream's kubelet), and the kubelet's CPU time (pid 0: not read).
func scrapeProbes(ctx context.Context, km *kubeletMetrics, prefix, container, probeType string, pid int) (ProbeScrape, error) {
	var s ProbeScrape
	counts, err := km.probes(ctx, namespace)
	if err != nil {
		return s, err
	}
	for k, c := range counts {
		if k.container == container && k.probeType == probeType && strings.HasPrefix(k.pod, prefix) {
			s.Runs += float64(c.Successful + c.Failed + c.Unknown)
		}
	}
	s.Sent = time.Now().UnixNano()
	if err := km.get(ctx, "/metrics", func(r io.Reader) (err error) {
		s.Extra, s.Limited, err = ParseExtraProbeRuns(r)
		return err
	}); err != nil {
		return s, err
	}
	if pid != 0 {
		if cpu, err := readProcCPU(pid); err == nil {
			s.CPU = cpu.Seconds
		}
	}
	s.At = time.Now().UnixNano()
	return s, nil
}

// deleteProbeRatePods deletes the pods and waits until they are gone, so
// that the next way starts on a quiet node.
func deleteProbeRatePods(ctx context.Context, cs kubernetes.Interface) error {
	sel := metav1.ListOptions{LabelSelector: "bench.sidecar-kubelet.io/probe-rate=true"}
	if err := cs.CoreV1().Pods(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		list, err := cs.CoreV1().Pods(namespace).List(ctx, sel)
		if err != nil {
			return err
		}
		if len(list.Items) == 0 {
			time.Sleep(3 * time.Second) // the kubelet's clean-up after the last one
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("probe-rate: %d pods still there 3 minutes after their delete", len(list.Items))
		}
		time.Sleep(time.Second)
	}
}

// ReadProbeRates reads a JSON-lines file of ProbeRate.
func ReadProbeRates(path string) ([]ProbeRate, error) { return readJSONLines[ProbeRate](path) }

// ProbeRateNote explains the probe-rate table.
const ProbeRateNote = "`bench probe-rate`: for each way, N pods created at once, each with one sidecar whose /ready never\n" +
	"answers 200 (its probe, periodSeconds 1, never gives up), so that every sidecar stays waited on. The kubelet's\n" +
	"counters are scraped once a second: `prober_probe_total` of the sidecars' waited-on probe (every run, periodic\n" +
	"and extra; `fork/no-sidecars`: the same sidecar's plain readiness probe) and the fork's\n" +
	"`kubelet_sidecar_extra_probe_runs_total` (extra runs made, and those the node-wide bound held back), node-wide.\n" +
	"The rates are over the seconds in which every sidecar ran and was still in the first minute of its life, the\n" +
	"only time the fork adds runs; *peak* is the highest one-second rate. The fork's bound is 200 extra runs a\n" +
	"second node-wide, with bursts of 20 (the series' prober: extraProbeRunsPerSecond, extraProbeRunsBurst).\n\n"

// ProbeRateTable writes the probe-rate runs as a markdown table.
func ProbeRateTable(w io.Writer, runs []ProbeRate) {
	fmt.Fprintln(w, "| way | waiting sidecars | all running after | measured | probe runs/s (periodic + extra) | per sidecar | peak runs/s | extra runs/s, peak | held back/s | kubelet CPU, % of a core |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, p := range runs {
		if p.Error != "" {
			fmt.Fprintf(w, "| `%s` | %d | — | — | error: %s | | | | | |\n", p.Way, p.Pods, p.Error)
			continue
		}
		r, err := p.RatesOf()
		if err != nil {
			fmt.Fprintf(w, "| `%s` | %d | — | — | error: %v | | | | | |\n", p.Way, p.Pods, err)
			continue
		}
		cpu := "—"
		if !math.IsNaN(r.KubeletCores) {
			cpu = fmt.Sprintf("%.0f", r.KubeletCores*100)
		}
		fmt.Fprintf(w, "| `%s` | %d | %.1f s | %.1f s | %.0f (%.0f + %.0f) | %.1f | %.0f | %.0f, %.0f | %.0f | %s |\n",
			p.Way, p.Pods, p.AllRunning/1000, r.Seconds, r.Runs, r.Periodic, r.Extra, r.PerSidecar, r.PeakRuns, r.Extra, r.PeakExtra, r.Limited, cpu)
	}
}

// The fork's node-wide bound of extra runs (the series' prober, worker_sidecar.go), and the
// rate at which each waiting sidecar is still checked while the bound holds
// (rule 3: the apps start within a quarter of a second of the sidecar's
// readiness), up to ExtraRunsPerSecond / MinChecksPerSidecar sidecars.
const (
	ExtraRunsPerSecond  = 200
	ExtraRunsBurst      = 20
	MinChecksPerSidecar = 4.0
)

// A RateVerdict is one goal judged on one way's probe-rate run.
type RateVerdict struct {
	Goal, Way, Figure, Met string
}

// ProbeRateGoals judges the fork's ways of a probe-rate run against the
// node-wide bound of the extra runs, a token bucket of ExtraRunsPerSecond
// with a burst of ExtraRunsBurst: in any T seconds it lets at most
// ExtraRunsPerSecond·T + ExtraRunsBurst runs through, so over the measured
// span the runs counted must stay within that, and no one-second rate above
// ExtraRunsPerSecond + ExtraRunsBurst. And each waiting sidecar is checked
// at least MinChecksPerSidecar times a second where the bound leaves room for
// it (up to 66 sidecars, with their own periodic runs). The verdicts come
// goal by goal.
func ProbeRateGoals(runs []ProbeRate) []RateVerdict {
	var bounds, each []RateVerdict
	for _, p := range runs {
		if p.Kubelet != "fork" || p.Way == "fork/no-sidecars" {
			continue
		}
		bound := RateVerdict{Goal: fmt.Sprintf("extra probe runs with %d sidecars waiting: within the node-wide bound, %d/s with bursts of %d (at most %d·T + %d in any T seconds between scrapes)",
			p.Pods, ExtraRunsPerSecond, ExtraRunsBurst, ExtraRunsPerSecond, ExtraRunsBurst), Way: p.Way, Figure: "—", Met: "—"}
		checked := RateVerdict{Goal: fmt.Sprintf("each of %d waiting sidecars checked ≥ %.0f times a second", p.Pods, MinChecksPerSidecar),
			Way: p.Way, Figure: "—", Met: "—"}
		r, err := p.RatesOf()
		if p.Error == "" && err == nil {
			all := Window{Runs: r.Extra * r.Seconds, Seconds: r.Seconds}
			bound.Figure = fmt.Sprintf("%.0f in %.1f s (%.0f/s; the bound: %.0f); tightest window %s", all.Runs, all.Seconds, r.Extra, all.Bound(), r.Tightest)
			bound.Met = yesNo(all.WithinBound() && r.Tightest.WithinBound())
			checked.Figure = fmt.Sprintf("%.1f/s", r.PerSidecar)
			checked.Met = yesNo(r.PerSidecar >= MinChecksPerSidecar)
			if float64(p.Pods)*MinChecksPerSidecar > ExtraRunsPerSecond+float64(p.Pods) {
				checked.Met = "— (beyond the bound's room)"
			}
		}
		bounds = append(bounds, bound)
		each = append(each, checked)
	}
	return append(bounds, each...)
}

func yesNo(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }

// ProbeRateGoalsTable writes the verdicts as a markdown table, a goal
// named once for the ways judged against it in a row (as GoalsTable does).
func ProbeRateGoalsTable(w io.Writer, verdicts []RateVerdict) {
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
