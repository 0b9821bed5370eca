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

// bench chain: a pod of many sidecars started one after another, each
// waited on through an exec readiness probe left at the API's defaults
// (periodSeconds 10), as a mesh, a log shipper and a secrets agent in one
// pod would be. Every sidecar turns ready 0.5 s after it starts; the pod's
// one app starts after the last. Issue 36's goal: the app runs within
// n × (0.5 s + the runtime's start) + 5 s of the first sidecar's start,
// that is the ordering itself (detection, the kubelet's syncs) adds at
// most 5 s over a chain of 20, a quarter of a second a sidecar (contract rule
// 3's promise). The same pod runs in the ways users have instead: native
// sidecars under wait-ready, the postStart-hook workaround, and upstream's
// native sidecars with exec startup probes.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/utils/ptr"
)

const (
	chainLabel     = "bench.sidecar-kubelet.io/chain"
	chainPodPrefix = "ch-"
	// ChainReadyAfter is how long after its start each sidecar of the
	// chain turns ready (its READY_AFTER).
	ChainReadyAfter = 500 * time.Millisecond
	// ChainSlack is what the goal allows the ordering over a whole chain:
	// detection, the kubelet's syncs and its CreateContainer calls.
	ChainSlack = 5 * time.Second
)

// chainWayStyles are the ways a chain can run: every way that orders its
// sidecars (a pod without ordering starts them all at once).
var chainWayStyles = map[string]bool{"annotated": true, "native-wait-ready": true, "native-startup": true, "poststart": true}

// execReadyProbe is the chain's probe of a sidecar: an exec probe whose
// command asks the sidecar's own /ready once and answers at once, as a
// `test -f` of a file would (testserver wait-ready gives up after its first
// request with a timeout of 1 ms; its own log lines go to /dev/null, so
// that they are not taken for a postStart hook's, see applyLog). The e2e
// suite's ExecReadiness waits up to 100 ms for a 200 instead: a failing
// run that long makes the fork space its extra runs four times as far
// (sidecars.ExtraCheckDutyFactor), which the first trial of the chain on
// 2026-11-26 showed (detection 300 to 600 ms a step). Every setting but the handler is left to the API server's
// defaults: periodSeconds 10, timeoutSeconds 1, failureThreshold 3.
func execReadyProbe(port int) *v1.Probe {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/ready"
	return &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{
		Command: []string{"/testserver", "wait-ready", "--timeout", "1ms", "--out", "/dev/null", url}}}}
}

// chainPod is the way's service pod with n sidecars sc1..scn (PodFor), each
// ready ChainReadyAfter after its start, its probe (readiness, or startup
// for native-startup; the postStart way's readiness probe, which its hook
// does not wait for) the exec probe of execReadyProbe.
func chainPod(w Way, name string, n int) *v1.Pod {
	pod := PodFor(w, KindService, n, name)
	pod.Labels[chainLabel] = "true"
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			if !strings.HasPrefix(c.Name, "sc") {
				continue
			}
			port := 0
			for j := range c.Env {
				switch c.Env[j].Name {
				case "READY_AFTER":
					c.Env[j].Value = ChainReadyAfter.String()
				case "PORT":
					port, _ = strconv.Atoi(c.Env[j].Value)
				}
			}
			if c.StartupProbe != nil {
				c.StartupProbe = execReadyProbe(port)
			}
			if c.ReadinessProbe != nil {
				c.ReadinessProbe = execReadyProbe(port)
			}
		}
	}
	return pod
}

// ChainPod is one chain pod's run: a JSON line of bench chain.
type ChainPod struct {
	Way      string `json:"way"`
	Kubelet  string `json:"kubelet"`
	Sidecars int    `json:"sidecars"`
	Repeat   int    `json:"repeat"`
	Pod      string `json:"pod"`
	// Unix ns: the create call, and the watch's first ContainersReady.
	Create          int64 `json:"create"`
	ContainersReady int64 `json:"containersReady,omitempty"`
	// Containers: the CRI's times and the test server's logged ones, in
	// the pod's order (sidecars, then the app), read while the pod ran.
	Containers []Container `json:"containers,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// A ChainStep is one sidecar's turn in a chain, Unix ns: its start, its
// /ready turning 200, its readiness seen, and the next container's (the
// next sidecar's, or the app's) CreateContainer and start.
type ChainStep struct {
	Sidecar                  string
	Started, Up, Seen        int64
	NextCreated, NextStarted int64
}

// Own is the sidecar's own time to turn ready, in ms: READY_AFTER plus its
// process's start, the same in every way.
func (s ChainStep) Own() float64 { return ms(s.Started, s.Up) }

// Detect is its /ready turning 200 → its readiness seen: by the waited-on
// probe (the 200 it was served, the test server's record) or by the
// postStart hook's poll.
func (s ChainStep) Detect() float64 { return ms(s.Up, s.Seen) }

// Kubelet is the readiness seen → the next container's CreateContainer:
// the probe's result reaching the kubelet (an exec probe's ExecSync
// returning), its sync, and its CreateContainer call up to the runtime's
// CreatedAt.
func (s ChainStep) Kubelet() float64 { return ms(s.Seen, s.NextCreated) }

// RuntimeStart is the runtime's start of the next container: its CRI
// CreatedAt → StartedAt, both the runtime's own clock.
//
// This is the goal's "runtime's start", measured per step in the same pod,
// not a reference figure: it is the part of a step that the runtime does
// and reports itself, the same StartContainer (runc creating and starting
// the process) in every way; of the kubelet's, only its hand-over from the
// create call to the start call falls inside (the internal lifecycle's
// PreStartContainer, the same in every way too). Everything before CreatedAt
// (detection, the result's way back, the kubelet's sync and its
// CreateContainer call) is the ordering's, which the goal's 5 s allow for.
// A reference pod's create → start would add the scheduler, the sandbox
// and its network, none of which a chain's step goes through; the time
// from the previous sidecar's readiness seen to the next start (Kubelet +
// RuntimeStart) would hand the kubelet's own part, upstream's wait for the
// next relist among it, to the runtime. CreatedAt is taken when the
// runtime has created the container, so the create call itself (about
// 25 ms in the 2026-11-23 trace, docs/benchmarks.md) stays on the
// ordering's side: stricter, alike for every way.
func (s ChainStep) RuntimeStart() float64 { return ms(s.NextCreated, s.NextStarted) }

// Whole is the sidecar's start → the next container's start.
func (s ChainStep) Whole() float64 { return ms(s.Started, s.NextStarted) }

// seenReady is when a sidecar's readiness was seen, as Intervals takes it:
// the first 200 its /ready served (to the waited-on probe), or the
// postStart hook's return when that came first.
func seenReady(c Container) int64 {
	if c.Hook != 0 && (c.Ready == 0 || c.Hook < c.Ready) {
		return c.Hook
	}
	return c.Ready
}

// ChainSteps are the pod's steps, one per sidecar in the pod's order.
func (p ChainPod) ChainSteps() ([]ChainStep, error) {
	var sidecars []Container
	var app *Container
	for i := range p.Containers {
		c := p.Containers[i]
		if c.Sidecar {
			if app != nil {
				return nil, fmt.Errorf("sidecar %s after the app", c.Name)
			}
			sidecars = append(sidecars, c)
		} else if app == nil {
			app = &p.Containers[i]
		}
	}
	if len(sidecars) == 0 || app == nil {
		return nil, fmt.Errorf("%d sidecars and no app, or no sidecar", len(sidecars))
	}
	var steps []ChainStep
	var missing []string
	for i, c := range sidecars {
		next := *app
		if i+1 < len(sidecars) {
			next = sidecars[i+1]
		}
		st := ChainStep{Sidecar: c.Name, Started: c.Started, Up: c.Up, Seen: seenReady(c), NextCreated: next.Created, NextStarted: next.Started}
		for _, t := range []struct {
			what string
			at   int64
		}{{c.Name + "'s start", st.Started}, {c.Name + "'s /ready turning 200", st.Up}, {c.Name + "'s readiness seen", st.Seen},
			{next.Name + "'s CreateContainer", st.NextCreated}, {next.Name + "'s start", st.NextStarted}} {
			if t.at == 0 {
				missing = append(missing, t.what)
			}
		}
		steps = append(steps, st)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no time of %s", strings.Join(missing, ", "))
	}
	return steps, nil
}

// ChainFigures are a chain pod's figures against the goal, in ms.
type ChainFigures struct {
	Sidecars int
	// Span: the first sidecar's start → the app's start.
	Span float64
	// RuntimeStarts: the steps' runtime starts (ChainStep.RuntimeStart)
	// summed; Bound: the goal, Sidecars × ChainReadyAfter + RuntimeStarts
	// + ChainSlack.
	RuntimeStarts, Bound float64
	Steps                []ChainStep
}

// Met says whether the pod's app started within the goal's bound.
func (f ChainFigures) Met() bool { return f.Span <= f.Bound }

// Figures computes the pod's figures; an error when the pod failed or a
// time is missing.
func (p ChainPod) Figures() (ChainFigures, error) {
	if p.Error != "" {
		return ChainFigures{}, errors.New(p.Error)
	}
	steps, err := p.ChainSteps()
	if err != nil {
		return ChainFigures{}, err
	}
	f := ChainFigures{Sidecars: len(steps), Span: ms(steps[0].Started, steps[len(steps)-1].NextStarted), Steps: steps}
	for _, s := range steps {
		f.RuntimeStarts += s.RuntimeStart()
	}
	f.Bound = float64(len(steps))*float64(ChainReadyAfter.Milliseconds()) + f.RuntimeStarts + float64(ChainSlack.Milliseconds())
	return f, nil
}

// ChainSummary is one way's chain pods.
type ChainSummary struct {
	Way      string
	Sidecars int // of the measured pods (0: none measured)
	Pods     int // measured
	Errors   []string
	// Spans of the measured pods, sorted, ms; their p50 and max.
	Spans          []float64
	SpanP50        float64
	SpanMax        float64
	Missed         int          // pods whose span went over their bound
	Tightest       ChainFigures // the pod with the least room under its bound (or the furthest over)
	MeanRuntime    float64      // ms, a step's runtime start over every step
	Own, Detect    []float64    // every step's, sorted, ms
	Kubelet        []float64
	RuntimeStart   []float64
	Whole          []float64
	SidecarsDiffer bool // the measured pods have different chain lengths
}

// SummarizeChain groups the chain pods by way, in the order of Ways.
func SummarizeChain(pods []ChainPod) []ChainSummary {
	byWay := map[string]*ChainSummary{}
	var order []string
	for _, p := range pods {
		s := byWay[p.Way]
		if s == nil {
			s = &ChainSummary{Way: p.Way}
			byWay[p.Way] = s
			order = append(order, p.Way)
		}
		f, err := p.Figures()
		if err != nil {
			s.Errors = append(s.Errors, fmt.Sprintf("%s: %v", p.Pod, err))
			continue
		}
		if s.Pods > 0 && s.Sidecars != f.Sidecars {
			s.SidecarsDiffer = true
		}
		s.Pods++
		s.Sidecars = f.Sidecars
		s.Spans = append(s.Spans, f.Span)
		if !f.Met() {
			s.Missed++
		}
		if s.Pods == 1 || f.Bound-f.Span < s.Tightest.Bound-s.Tightest.Span {
			s.Tightest = f
		}
		for _, st := range f.Steps {
			s.Own = append(s.Own, st.Own())
			s.Detect = append(s.Detect, st.Detect())
			s.Kubelet = append(s.Kubelet, st.Kubelet())
			s.RuntimeStart = append(s.RuntimeStart, st.RuntimeStart())
			s.Whole = append(s.Whole, st.Whole())
		}
	}
	var out []ChainSummary
	for _, w := range order {
		s := byWay[w]
		for _, v := range [][]float64{s.Spans, s.Own, s.Detect, s.Kubelet, s.RuntimeStart, s.Whole} {
			sort.Float64s(v)
		}
		s.SpanP50, s.SpanMax = Percentile(s.Spans, 50), math.NaN()
		if len(s.Spans) > 0 {
			s.SpanMax = s.Spans[len(s.Spans)-1]
		}
		s.MeanRuntime = math.NaN()
		if len(s.RuntimeStart) > 0 {
			sum := 0.0
			for _, v := range s.RuntimeStart {
				sum += v
			}
			s.MeanRuntime = sum / float64(len(s.RuntimeStart))
		}
		out = append(out, *s)
	}
	sort.SliceStable(out, func(i, j int) bool { return wayOrder(out[i].Way) < wayOrder(out[j].Way) })
	return out
}

// chainJudged are the ways the chain's goal judges: the fork's two ways of
// waiting for a ready sidecar. The others are what users have instead.
var chainJudged = []string{"fork/annotated", "fork/native-wait-ready"}

// chainGoal is the goal as the verdicts state it.
func chainGoal(sidecars int) string {
	if sidecars == 0 {
		sidecars = 20
	}
	return fmt.Sprintf("exec chain, %d sidecars (exec readiness probe, periodSeconds 10, each ready %s after its start): first sidecar start → app start ≤ %d × (%s + the runtime's start) + %s, every pod",
		sidecars, fmtDuration(ChainReadyAfter), sidecars, fmtDuration(ChainReadyAfter), fmtDuration(ChainSlack))
}

// fmtDuration shows 500ms as 0.5 s and 5s as 5 s.
func fmtDuration(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// ChainGoals is the chain's one verdict line (the README's table of
// verdicts has a bound of lines): the fork's ways judged together, every
// pod of each within its own bound, the alternatives' spans (p50) of the
// same run beside them. Without chain runs (a run that skipped them, or
// the raw files of a run from before the scenario) the line says so.
func ChainGoals(sums []ChainSummary) []RateVerdict {
	sidecars := 0
	for _, s := range sums {
		sidecars = max(sidecars, s.Sidecars)
	}
	v := RateVerdict{Goal: chainGoal(sidecars), Way: strings.Join(chainJudged, "`, `"), Figure: "not measured", Met: "—"}
	var figures, rivals, missed []string
	measured := 0
	for _, way := range chainJudged {
		fig := fmt.Sprintf("`%s` not measured", way)
		for _, s := range sums {
			if s.Way != way {
				continue
			}
			if s.Pods == 0 {
				fig = fmt.Sprintf("`%s` no pod measured (%d failed: %s)", way, len(s.Errors), strings.Join(s.Errors, "; "))
				missed = append(missed, fmt.Sprintf("`%s`", way))
				measured++
				continue
			}
			t := s.Tightest
			fig = fmt.Sprintf("`%s` p50 %.1f s, max %.1f s (n = %d), the tightest %.1f s against %.1f s (%d × (%s + %.0f ms mean runtime start) + %s)",
				way, s.SpanP50/1000, s.SpanMax/1000, s.Pods, t.Span/1000, t.Bound/1000, t.Sidecars, fmtDuration(ChainReadyAfter),
				t.RuntimeStarts/float64(t.Sidecars), fmtDuration(ChainSlack))
			if len(s.Errors) > 0 {
				fig += fmt.Sprintf(", %d failed", len(s.Errors))
			}
			if s.Missed > 0 || len(s.Errors) > 0 {
				missed = append(missed, fmt.Sprintf("`%s`", way))
			}
			measured++
		}
		figures = append(figures, fig)
	}
	for _, s := range sums {
		if !contains(chainJudged, s.Way) && s.Pods > 0 {
			rivals = append(rivals, fmt.Sprintf("`%s` %.1f s", s.Way, s.SpanP50/1000))
		}
	}
	if measured == 0 {
		return []RateVerdict{v}
	}
	v.Figure = strings.Join(figures, "; ")
	if len(rivals) > 0 {
		v.Figure += "; p50 " + strings.Join(rivals, ", ")
	}
	v.Met = "yes"
	if measured < len(chainJudged) {
		v.Met = "yes, of the ways measured"
	}
	if len(missed) > 0 {
		v.Met = "no: " + strings.Join(missed, ", ")
	}
	return []RateVerdict{v}
}

// ChainNote explains the chain's table.
const ChainNote = "`bench chain`: for each way, pods of N sidecars and one app, one pod at a time; every sidecar turns ready\n" +
	"0.5 s after it starts and is waited on through an exec probe (`testserver wait-ready` asking its own /ready)\n" +
	"left at the API's defaults, periodSeconds 10: the readiness probe of `fork/annotated`, `fork/native-wait-ready`\n" +
	"and `fork/poststart` (whose apps wait for the postStart hook, polling /ready every 100 ms), the startup probe\n" +
	"of `upstream/native-startup` on the unpatched kubelet. The goal's bound is each pod's own: N × (0.5 s + the\n" +
	"runtime's start) + 5 s, the runtime's start being each step's CRI CreatedAt → StartedAt of the next container\n" +
	"in the same pod (bench/chain.go, ChainStep.RuntimeStart, says why that one). A step is one sidecar's turn:\n" +
	"its start → its /ready turning 200 (the server's own, 0.5 s) → its readiness seen (the probe served 200, or\n" +
	"the hook returned) → the next container's CreateContainer (the result's way back, the kubelet's sync and\n" +
	"its create call) → that container's start (the runtime's start). Per-step figures are p50 / p95 over every\n" +
	"step of every pod of the way, in ms.\n\n"

// ChainTable writes the chain runs, the ways as columns.
func ChainTable(w io.Writer, sums []ChainSummary) {
	fmt.Fprint(w, "| |")
	for _, s := range sums {
		fmt.Fprintf(w, " `%s` |", s.Way)
	}
	fmt.Fprint(w, "\n| --- |")
	for range sums {
		fmt.Fprint(w, " ---: |")
	}
	fmt.Fprintln(w)
	row := func(label string, cell func(ChainSummary) string) {
		fmt.Fprintf(w, "| %s |", label)
		for _, s := range sums {
			fmt.Fprintf(w, " %s |", cell(s))
		}
		fmt.Fprintln(w)
	}
	measured := func(s ChainSummary, f func() string) string {
		if s.Pods == 0 {
			return "—"
		}
		return f()
	}
	pq := func(pick func(ChainSummary) []float64) func(ChainSummary) string {
		return func(s ChainSummary) string {
			return measured(s, func() string {
				v := pick(s)
				return fmt.Sprintf("%s / %s", fmtMS(Percentile(v, 50)), fmtMS(Percentile(v, 95)))
			})
		}
	}
	row("sidecars, pods measured (failed)", func(s ChainSummary) string {
		return fmt.Sprintf("%s, %d (%d)", map[bool]string{true: "—", false: strconv.Itoa(s.Sidecars)}[s.Pods == 0], s.Pods, len(s.Errors))
	})
	row("first sidecar start → app start, p50 / max (s)", func(s ChainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%.2f / %.2f", s.SpanP50/1000, s.SpanMax/1000) })
	})
	row("the goal's bound of the tightest pod (s)", func(s ChainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%.2f (its span %.2f)", s.Tightest.Bound/1000, s.Tightest.Span/1000) })
	})
	row("pods within their bound", func(s ChainSummary) string {
		return measured(s, func() string { return fmt.Sprintf("%d of %d", s.Pods-s.Missed, s.Pods) })
	})
	row("step: the sidecar's start → its /ready 200", pq(func(s ChainSummary) []float64 { return s.Own }))
	row("step: /ready 200 → readiness seen (probe or hook)", pq(func(s ChainSummary) []float64 { return s.Detect }))
	row("step: seen → the next CreateContainer (the kubelet)", pq(func(s ChainSummary) []float64 { return s.Kubelet }))
	row("step: CreateContainer → start (the runtime's start)", pq(func(s ChainSummary) []float64 { return s.RuntimeStart }))
	row("step: a sidecar's start → the next one's", pq(func(s ChainSummary) []float64 { return s.Whole }))
}

// chainSection writes the chain's section of the report: the table, the
// failed pods' errors, or that the run did not measure it.
func chainSection(md io.Writer, pods []ChainPod) {
	fmt.Fprint(md, "\n## Exec chain: many sidecars one after another\n\n")
	if len(pods) == 0 {
		fmt.Fprint(md, "Not measured in this run (`BENCH_CHAIN=0`, or the raw files of a run from before `bench chain`).\n")
		return
	}
	fmt.Fprint(md, ChainNote)
	sums := SummarizeChain(pods)
	ChainTable(md, sums)
	for _, s := range sums {
		if s.SidecarsDiffer {
			fmt.Fprintf(md, "\n`%s`: its pods had chains of different lengths; the figures mix them.\n", s.Way)
		}
		for _, e := range s.Errors {
			fmt.Fprintf(md, "\n`%s`, failed: %s\n", s.Way, e)
		}
	}
}

// chainCmd runs bench chain: for each repeat, one pod of each way (the
// ways taking turns, so that a drift of the machine's load touches each
// alike), one pod at a time.
func chainCmd(args []string) error {
	fs := flag.NewFlagSet("chain", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...): the containers' times")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir: the sidecars' logged ready times")
	waysFlag := fs.String("ways", "", "comma-separated ways (see pods.go), all of the running kubelet: those that order sidecars")
	sidecars := fs.Int("sidecars", 20, "sidecars in each pod's chain")
	repeat := fs.Int("repeat", 2, "pods of every way")
	timeout := fs.Duration("timeout", 8*time.Minute, "how long a pod may take to have every container ready (upstream's native sidecars take a probe period, 10 s, per sidecar)")
	out := fs.String("out", "", "file to append each pod's ChainPod to (JSON lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *cri == "" || *podLogs == "" || *waysFlag == "" || *out == "" {
		return errors.New("chain: -kubeconfig, -cri, -pod-logs, -ways and -out are required")
	}
	if *sidecars < 1 || *sidecars > 100 || *repeat < 1 {
		return errors.New("chain: -sidecars must be 1 to 100 (their ports) and -repeat at least 1")
	}
	ways, err := parseWays(*waysFlag)
	if err != nil {
		return fmt.Errorf("chain: %v", err)
	}
	for _, w := range ways {
		if !chainWayStyles[w.Style] {
			return fmt.Errorf("chain: way %s does not order its sidecars", w.Name)
		}
	}
	_, cs, err := newAPIClient(*kubeconfig)
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
	// bench run's recorder without its poller, as bench density uses it:
	// the CRI's times are the runtime's own, read once while the pod runs.
	r := &runner{cs: cs, rt: rt, podLogs: *podLogs}
	r.poller = &criPoller{rt: rt, recs: map[*criRecorder]bool{}}
	if err := r.setup(ctx); err != nil {
		return err
	}
	// The first pods after a kubelet restart see slow probes (and
	// upstream's probe workers a random delay of up to a period): a short
	// chain that is not kept.
	if warm := measureChain(ctx, r, ways[0], min(2, *sidecars), -1, *timeout); warm.Error != "" {
		fmt.Fprintf(os.Stderr, "  warm-up chain: %s\n", warm.Error)
	}
	for rep := 0; rep < *repeat; rep++ {
		for _, w := range ways {
			p := measureChain(ctx, r, w, *sidecars, rep, *timeout)
			line, err := json.Marshal(p)
			if err != nil {
				return err
			}
			if _, err := f.Write(append(line, '\n')); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "  %s\n", chainPodLine(p))
		}
	}
	return nil
}

// chainPodLine is a pod's progress line.
func chainPodLine(p ChainPod) string {
	head := fmt.Sprintf("%-24s %d sidecars, repeat %d:", p.Way, p.Sidecars, p.Repeat)
	fig, err := p.Figures()
	if err != nil {
		return head + " ERROR " + err.Error()
	}
	return fmt.Sprintf("%s first sidecar start → app start %.2f s, bound %.2f s (runtime starts %.0f ms in all)",
		head, fig.Span/1000, fig.Bound/1000, fig.RuntimeStarts)
}

// measureChain runs one chain pod: creates it, waits until every
// container is ready, reads the runtime's times and the sidecars' logs,
// then deletes it and waits until it is gone.
func measureChain(ctx context.Context, r *runner, w Way, n, rep int, timeout time.Duration) ChainPod {
	name := fmt.Sprintf("%s%s-r%d", chainPodPrefix, strings.ReplaceAll(w.Name, "/", "-"), rep)
	if rep < 0 {
		name = fmt.Sprintf("%s%s-warm-up", chainPodPrefix, strings.ReplaceAll(w.Name, "/", "-"))
	}
	pod := chainPod(w, name, n)
	p := ChainPod{Way: w.Name, Kubelet: w.Kubelet, Sidecars: n, Repeat: rep, Pod: name}
	fail := func(format string, a ...any) {
		if p.Error != "" {
			p.Error += "; "
		}
		p.Error += fmt.Sprintf(format, a...)
	}
	pods := r.cs.CoreV1().Pods(namespace)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := &podWatch{changed: make(chan struct{})}
	go pw.run(wctx, func() (watch.Interface, error) {
		return pods.Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	})
	time.Sleep(100 * time.Millisecond) // the watch open before the create, as bench run's
	p.Create = time.Now().UnixNano()
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		fail("create: %v", err)
		return p
	}
	rec := r.record(name, string(created.UID))
	if !pw.waitFor(timeout, func(st podState) bool { return st.containersReady != 0 || st.failed }) {
		fail("containers not ready after %s", timeout)
	}
	st, _ := pw.get()
	p.ContainersReady = st.containersReady
	var problems []string
	p.Containers, problems = rec.finish(pod, true)
	for _, pr := range problems {
		fail("%s", pr)
	}
	if err := pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](2)}); err != nil {
		fail("delete: %v", err)
		return p
	}
	if !pw.waitFor(3*time.Minute, func(st podState) bool { return st.gone != 0 }) {
		fail("not gone 3 minutes after the delete")
	}
	return p
}

// ReadChainPods reads a JSON-lines file of ChainPod.
func ReadChainPods(path string) ([]ChainPod, error) { return readJSONLines[ChainPod](path) }

// readChainAndNeverReady reads the raw files of bench chain and bench
// never-ready for the report; an empty path (a run that skipped them, or
// one from before them) reads as none.
func readChainAndNeverReady(chainPath, neverReadyPath string) ([]ChainPod, []NeverReadyRun, error) {
	var chains []ChainPod
	var never []NeverReadyRun
	var err error
	if chainPath != "" {
		if chains, err = ReadChainPods(chainPath); err != nil {
			return nil, nil, err
		}
	}
	if neverReadyPath != "" {
		if never, err = ReadNeverReadyRuns(neverReadyPath); err != nil {
			return nil, nil, err
		}
	}
	return chains, never, nil
}

// chainAndNeverReadyGoals are the verdicts of both scenarios, "not
// measured" where the run has none.
func chainAndNeverReadyGoals(chains []ChainPod, never []NeverReadyRun) []RateVerdict {
	return append(ChainGoals(SummarizeChain(chains)), NeverReadyGoals(never)...)
}
