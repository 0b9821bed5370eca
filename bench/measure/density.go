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

package measure

// bench density: how the ways fare with a full node's worth of pods
// starting at once (a rollout, a node reboot, a burst of Jobs). For each N
// of a list and each way, N pods are created at once, each with one
// sidecar its app waits for, whose /ready turns 200 after a delay drawn
// from a seeded generator (0.5 to 3 s, the same delays for every way of a
// run). Per run it records the time from the first create to every pod
// Ready (the API server's watch), every pod's a′ (the sidecar's /ready
// turning 200, from the test server's log, to the app's CRI start), the
// kubelet's and containerd's CPU time (/proc/<pid>/stat) and that of every
// group of processes serving the pods (their cgroups, density_serve.go)
// while the pods start and while they go, the API server's requests and
// the kubelet's calls to the runtime over the same windows, the host's
// TIME_WAIT sockets, and the kubelet's probe counters once a second (as
// bench probe-rate scrapes them). Every run deletes its pods and waits
// until they are gone from the API and the runtime before the next.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// densityLabel marks the pods of bench density, for its watch, its
// clean-up and the probe counters it sums (their names start with
// densityPodPrefix).
const (
	densityLabel     = "bench.sidecar-kubelet.io/density"
	densityPodPrefix = "dn-"
)

// The range of the sidecars' READY_AFTER: as long as real sidecars take
// (a proxy fetching its configuration, an agent registering), long
// enough that the waited-on probes run many times, and spread so that the
// sidecars turn ready at every phase of the probes' period.
const (
	densityReadyMin = 500 * time.Millisecond
	densityReadyMax = 3 * time.Second
)

// densityDelays is the READY_AFTER of the sidecar of each of the n pods of
// run number run: uniform over [0.5 s, 3 s] in whole milliseconds, drawn
// from a PCG seeded by seed, n and run, so that every way of a run meets
// the same delays and a run can be repeated exactly.
func densityDelays(seed uint64, n, run int) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, uint64(n)<<32|uint64(uint32(run))))
	steps := int64((densityReadyMax - densityReadyMin) / time.Millisecond)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = densityReadyMin + time.Duration(rng.Int64N(steps+1))*time.Millisecond
	}
	return out
}

// parseDensityList reads a list of pod counts such as "10,30,100": ""
// and "0" are the empty list (no density runs).
func parseDensityList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("pod counts %q: %q is not a positive integer", s, f)
		}
		if seen[n] {
			return nil, fmt.Errorf("pod counts %q: %d twice", s, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// densityProbe is the probe type whose runs a density run counts: the
// sidecar's waited-on probe, or its plain readiness probe in pods without
// ordering.
func densityProbe(w results.Way) string {
	if p := w.WaitedOnProbe(); p != "" {
		return p
	}
	return "Readiness"
}

// densityPod is the way's pod of one sidecar (sc1) and its app, the
// sidecar ready readyAfter after it starts.
func densityPod(w results.Way, name string, readyAfter time.Duration) *v1.Pod {
	pod := podFor(w, results.KindService, 1, name)
	pod.Labels[densityLabel] = "true"
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if list[i].Name != results.SidecarName(1) {
				continue
			}
			for j := range list[i].Env {
				if list[i].Env[j].Name == "READY_AFTER" {
					list[i].Env[j].Value = readyAfter.String()
				}
			}
		}
	}
	return pod
}

// densityPodName names pod i of a run; names repeat from run to run (the
// previous run's pods are gone by then) and say what they are in the
// kubelet's log.
func densityPodName(w results.Way, n, run, i int) string {
	return fmt.Sprintf("%s%s-n%d-r%d-%d", densityPodPrefix, strings.ReplaceAll(w.Name, "/", "-"), n, run, i)
}

// podsWatch follows a run's pods through one watch of their label: the
// receive times of each one's first Ready and of its deletion.
type podsWatch struct {
	mu       sync.Mutex
	names    map[string]bool // the run's pods
	seen     map[string]bool // in an event or a list
	ready    map[string]int64
	gone     map[string]int64
	failed   map[string]bool
	restarts int
	late     int           // times first recorded by a reopened watch's list
	why      []string      // why each watch ended, for a restart's error
	changed  chan struct{} // closed and replaced on every change
}

func newPodsWatch(names []string) *podsWatch {
	pw := &podsWatch{names: map[string]bool{}, seen: map[string]bool{}, ready: map[string]int64{}, gone: map[string]int64{},
		failed: map[string]bool{}, changed: make(chan struct{})}
	for _, n := range names {
		pw.names[n] = true
	}
	return pw
}

// podReady says whether a pod's Ready condition is true.
func podReady(pod *v1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// observe records what one event (or the list after a reopened watch:
// relisted) says of a pod, at now.
func (pw *podsWatch) observe(pod *v1.Pod, deleted bool, now int64, relisted bool) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if !pw.names[pod.Name] {
		return
	}
	pw.seen[pod.Name] = true
	if podReady(pod) && pw.ready[pod.Name] == 0 {
		pw.ready[pod.Name] = now
		if relisted {
			pw.late++
		}
	}
	if pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded {
		pw.failed[pod.Name] = true // a service pod never ends by itself
	}
	if deleted && pw.gone[pod.Name] == 0 {
		pw.gone[pod.Name] = now
		if relisted {
			pw.late++
		}
	}
	close(pw.changed)
	pw.changed = make(chan struct{})
}

// open lists the pods, records what the list shows (a pod that went in a
// gap between watches is gone now) and watches from the list on.
func (pw *podsWatch) open(ctx context.Context, pods corev1client.PodInterface, reopened bool) (watch.Interface, error) {
	sel := metav1.ListOptions{LabelSelector: densityLabel + "=true"}
	list, err := pods.List(ctx, sel)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	present := map[string]bool{}
	for i := range list.Items {
		present[list.Items[i].Name] = true
		pw.observe(&list.Items[i], false, now, reopened)
	}
	if reopened {
		pw.mu.Lock()
		pw.restarts++
		for n := range pw.names {
			if !present[n] && pw.gone[n] == 0 && pw.seen[n] {
				pw.gone[n] = now
				pw.late++
			}
		}
		pw.mu.Unlock()
	}
	sel.ResourceVersion = list.ResourceVersion
	return pods.Watch(ctx, sel)
}

// run follows the watch until ctx ends, opening it again when it ends.
func (pw *podsWatch) run(ctx context.Context, pods corev1client.PodInterface, w watch.Interface) {
	for {
		opened := time.Now()
		why := "the server ended it"
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				why = apierrors.FromObject(ev.Object).Error()
				break
			}
			if pod, ok := ev.Object.(*v1.Pod); ok {
				pw.observe(pod, ev.Type == watch.Deleted, time.Now().UnixNano(), false)
			}
		}
		w.Stop()
		if ctx.Err() == nil {
			pw.mu.Lock()
			pw.why = append(pw.why, fmt.Sprintf("%s after %.1f s", why, time.Since(opened).Seconds()))
			pw.mu.Unlock()
		}
		for {
			if ctx.Err() != nil {
				return
			}
			var err error
			if w, err = pw.open(ctx, pods, true); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// waitFor waits until cond holds of the watch's state, or timeout.
func (pw *podsWatch) waitFor(timeout time.Duration, cond func(pw *podsWatch) bool) bool {
	deadline := time.After(timeout)
	for {
		pw.mu.Lock()
		ok, ch := cond(pw), pw.changed
		pw.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// densityRunner runs the density runs of one kubelet.
type densityRunner struct {
	cs            kubernetes.Interface
	rec           *runner // the CRI and the pod logs, read as bench run reads them
	km            *kubeletMetrics
	kubeletPID    int
	containerdPID int
	// serveCgroup: the cluster's serve cgroup in the cpuacct hierarchy
	// (density_serve.go); "" reads only the kubelet and containerd from
	// /proc, as before.
	serveCgroup string
	seed        uint64
	// timeout bounds a run's pods' start and, again, their going after
	// the delete (densityTimeout); 0: densityTimeout's default.
	timeout time.Duration
	// reclaim: drop the host's page cache before each kept run
	// (reclaimHost).
	reclaim bool
}

// densityTimeout is how long n pods may take to be Ready, and again to be
// gone after their delete: the flag's value, or without one 4 minutes or
// 4 s a pod, whichever is longer. A 2-core machine whose runtime took
// 1.8 to 2.4 s of CPU per pod had 110 pods Ready after 225 s and still
// had some 3 minutes after their delete; the one before it, 41 and 31 s.
// The bound only ends a run that has failed.
func densityTimeout(flag time.Duration, n int) time.Duration {
	if flag > 0 {
		return flag
	}
	return max(4*time.Minute, time.Duration(n)*4*time.Second)
}

// mark reads the kubelet's and containerd's CPU time.
func (d *densityRunner) mark() results.CPUMark {
	m := results.CPUMark{At: time.Now().UnixNano()}
	if d.kubeletPID != 0 {
		if c, err := readProcCPU(d.kubeletPID); err == nil {
			m.Kubelet, m.KubeletStart = c.Seconds, c.StartTime
		}
	}
	if d.containerdPID != 0 {
		if c, err := readProcCPU(d.containerdPID); err == nil {
			m.Containerd, m.ContainerdStart = c.Seconds, c.StartTime
		}
	}
	m.Groups = readServeGroups(d.serveCgroup)
	return m
}

// apiCounts reads the API server's request counters; nil when it cannot
// (the run then has no API figures, never a count of 0).
func (d *densityRunner) apiCounts(ctx context.Context) *results.APICounts {
	c, err := readAPICounts(ctx, d.cs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "  %v\n", err)
		return nil
	}
	return &c
}

// runtimeOps reads the kubelet's runtime calls by operation; nil when it
// cannot (the run then has no runtime figures, never a count of 0).
func (d *densityRunner) runtimeOps(ctx context.Context) results.RuntimeOps {
	var ops results.RuntimeOps
	if err := d.km.get(ctx, "/metrics", func(r io.Reader) (err error) {
		ops, err = parseRuntimeOps(r)
		return err
	}); err != nil {
		fmt.Fprintf(os.Stderr, "  the kubelet's runtime operations: %v\n", err)
		return nil
	}
	return ops
}

// spanOps is what the kubelet's runtime calls gained from a to b, nil
// unless both were read.
func spanOps(a, b results.RuntimeOps) results.RuntimeOps {
	if a == nil || b == nil {
		return nil
	}
	return b.Sub(a)
}

// timeWaitWatch reads the host's TIME_WAIT sockets once a second until
// stopped, keeping the most it saw.
type timeWaitWatch struct {
	mu       sync.Mutex
	peak     int
	err      error
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

func startTimeWaitWatch() *timeWaitWatch {
	tw := &timeWaitWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tw.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			tw.sample()
			select {
			case <-tw.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return tw
}

// sample reads the count now, keeps the peak and returns the count.
func (tw *timeWaitWatch) sample() int {
	n, err := readTimeWait()
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if err != nil {
		tw.err = err
		return 0
	}
	tw.peak = max(tw.peak, n)
	return n
}

// end stops the readings and returns the peak (an error if any reading
// failed: the peak would be a guess). It may be called more than once.
func (tw *timeWaitWatch) end() (int, error) {
	tw.stopOnce.Do(func() { close(tw.stop) })
	<-tw.done
	tw.sample()
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.peak, tw.err
}

// idle measures, with no pod of ours for span, what the runs subtract:
// the kubelet's and containerd's CPU (/proc), every serve group's (its
// cgroup) and the API server's requests.
func (d *densityRunner) idle(ctx context.Context, span time.Duration) results.DensityIdle {
	// The API server's metrics are read outside the CPU marks: their
	// reading is work of the API server's own.
	apiA, opsA := d.apiCounts(ctx), d.runtimeOps(ctx)
	a := d.mark()
	time.Sleep(span)
	b := d.mark()
	apiB, opsB := d.apiCounts(ctx), d.runtimeOps(ctx)
	id := results.DensityIdle{Seconds: float64(b.At-a.At) / 1e9, RuntimeOps: spanOps(opsA, opsB)}
	if apiA != nil && apiB != nil {
		c := apiB.Sub(*apiA)
		id.API = &c
	}
	for g, v := range b.Groups {
		if before, ok := a.Groups[g]; ok {
			if id.Groups == nil {
				id.Groups = map[string]float64{}
			}
			id.Groups[g] = v - before
		}
	}
	if a.Kubelet > 0 && b.Kubelet > 0 && a.KubeletStart == b.KubeletStart {
		id.Kubelet, id.KubeletKnown = b.Kubelet-a.Kubelet, true
	}
	if a.Containerd > 0 && b.Containerd > 0 && a.ContainerdStart == b.ContainerdStart {
		id.Containerd, id.ContainerdKnown = b.Containerd-a.Containerd, true
	}
	return id
}

// errNodeNotClear stops the runs: a run that leaves pods behind would
// load the next.
var errNodeNotClear = errors.New("the node is not clear of the run's pods")

// measure runs one way with n pods at once; an error (wrapping
// errNodeNotClear) means the pods could not be removed and the runs must
// stop. The run's own failures are in its Error.
func (d *densityRunner) measure(ctx context.Context, w results.Way, n, run int, idle results.DensityIdle) (results.DensityRun, error) {
	dr := results.DensityRun{Way: w.Name, Kubelet: w.Kubelet, Probe: densityProbe(w), N: n, Run: run, Seed: d.seed, Idle: idle}
	if d.reclaim && run >= 0 {
		if err := reclaimHost(); err != nil {
			return dr, err
		}
		// The reclaim's own kernel work, out of the run's CPU window.
		time.Sleep(time.Second)
		dr.Reclaimed = true
	}
	dr.MemoryCgroups = memoryCgroups()
	var errMu sync.Mutex
	fail := func(format string, a ...any) {
		errMu.Lock()
		defer errMu.Unlock()
		if dr.Error != "" {
			dr.Error += "; "
		}
		dr.Error += fmt.Sprintf(format, a...)
	}
	delays := densityDelays(d.seed, n, run)
	pods := make([]*v1.Pod, n)
	names := make([]string, n)
	dr.Pods = make([]results.DensityPod, n)
	for i := range pods {
		names[i] = densityPodName(w, n, run, i)
		pods[i] = densityPod(w, names[i], delays[i])
		dr.Pods[i] = results.DensityPod{Name: names[i], ReadyAfter: float64(delays[i]) / 1e6}
	}
	client := d.cs.CoreV1().Pods(namespace)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := newPodsWatch(names)
	first, err := pw.open(wctx, client, false)
	if err != nil {
		fail("watch: %v", err)
		return dr, nil
	}
	go pw.run(wctx, client, first)

	scrape := func() (results.ProbeScrape, error) {
		return scrapeProbes(ctx, d.km, densityPodPrefix, results.SidecarName(1), dr.Probe, d.kubeletPID)
	}
	// The kubelet answers /metrics late on a saturated node (the previous
	// run's end, the pods' start): a scrape that timed out is tried again
	// where the run needs one (its start and its end), and skipped while
	// the pods start (MissedScrapes): the bound is judged over the windows
	// between the scrapes there are, each as long as it may have lasted.
	base, err := scrapeTries(3, scrape)
	if err != nil {
		fail("scrape: %v", err)
		return dr, nil
	}
	dr.Scrapes = append(dr.Scrapes, base)
	// The API server's counters are read before the start mark and after
	// the ready one (and likewise around the end's window), so that their
	// reading falls outside the CPU windows.
	var api [4]*results.APICounts
	var ops [4]results.RuntimeOps // the kubelet's runtime calls, read beside the API's
	api[0], ops[0] = d.apiCounts(ctx), d.runtimeOps(ctx)
	timeWaitStart, timeWaitErr := readTimeWait()
	dr.CPU.Start = d.mark()
	dr.Start = time.Now().UnixNano()
	tw := startTimeWaitWatch()
	defer tw.end() // a run that stops early: no reader left behind
	// Every pod at once: the client's QPS (100, burst 200) lets 100 go
	// without waiting.
	var wg sync.WaitGroup
	for i := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			created, err := client.Create(ctx, pods[i], metav1.CreateOptions{})
			if err != nil {
				fail("create %s: %v", names[i], err)
				return
			}
			dr.Pods[i].Created = time.Now().UnixNano()
			dr.Pods[i].UID = string(created.UID)
		}()
	}
	// The counters once a second while the pods start.
	scrapeCtx, stopScrapes := context.WithCancel(ctx)
	scraped := make(chan periodicScrapes, 1)
	go func() { scraped <- scrapeEvery(scrapeCtx, time.Second, scrape) }()
	wg.Wait()
	created := 0
	for _, p := range dr.Pods {
		if p.UID != "" {
			created++
		}
	}
	timeout := densityTimeout(d.timeout, n)
	allReady := false
	if created == n {
		allReady = pw.waitFor(timeout, func(pw *podsWatch) bool {
			return len(pw.ready) == n || len(pw.failed) > 0
		})
	}
	stopScrapes()
	during := <-scraped
	dr.Scrapes = append(dr.Scrapes, during.scrapes...)
	dr.MissedScrapes = during.missed
	if last, err := scrapeTries(3, scrape); err == nil {
		dr.Scrapes = append(dr.Scrapes, last)
	} else {
		fail("scrape: %v", err)
	}
	dr.CPU.Ready = d.mark()
	timeWaitReady := tw.sample()
	api[1], ops[1] = d.apiCounts(ctx), d.runtimeOps(ctx)
	pw.mu.Lock()
	for i := range dr.Pods {
		dr.Pods[i].Ready = pw.ready[names[i]]
		dr.AllReady = max(dr.AllReady, dr.Pods[i].Ready)
		if pw.failed[names[i]] {
			dr.Pods[i].Error = "the pod ended by itself"
		}
	}
	nReady, nFailed := len(pw.ready), len(pw.failed)
	pw.mu.Unlock()
	switch {
	case created < n:
		dr.AllReady = 0
	case !allReady:
		fail("%d of %d pods Ready after %s", nReady, n, timeout)
		dr.AllReady = 0
	case nFailed > 0:
		fail("%d pods ended by themselves", nFailed)
		dr.AllReady = 0
	default:
		// What the runtime and the test server saw, read while every pod
		// still runs (outside both CPU windows).
		d.gather(&dr, pods, w.Style != "none")
	}

	api[2], ops[2] = d.apiCounts(ctx), d.runtimeOps(ctx)
	dr.CPU.Delete = d.mark()
	dr.Delete = time.Now().UnixNano()
	sel := metav1.ListOptions{LabelSelector: densityLabel + "=true"}
	if err := client.DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil && !apierrors.IsNotFound(err) {
		fail("delete: %v", err)
		return dr, fmt.Errorf("%w: delete: %v", errNodeNotClear, err)
	}
	// Every pod that was created goes.
	goneAll := pw.waitFor(timeout, func(pw *podsWatch) bool {
		for i := range dr.Pods {
			if dr.Pods[i].UID != "" && pw.gone[names[i]] == 0 {
				return false
			}
		}
		return true
	})
	// The end's window goes on until the node has settled: what the
	// kubelet still does for the pods (the events it has not sent, the
	// last stops and their clean-up) is the run's, not the next one's.
	var clearErr error
	if goneAll {
		goneAt := time.Now()
		clearErr = d.waitNodeClear(ctx, time.Minute)
		if clearErr == nil {
			clearErr = d.removeLeft(ctx, time.Minute)
			dr.Removed = time.Since(goneAt).Seconds()
		}
		if clearErr == nil && idle.Seconds > 0 {
			dr.Unsettled = !d.settle(ctx, idle, 30*time.Second)
		}
		dr.Settle = time.Since(goneAt).Seconds()
	}
	dr.CPU.Gone = d.mark()
	api[3], ops[3] = d.apiCounts(ctx), d.runtimeOps(ctx)
	timeWaitPeak, err := tw.end()
	if timeWaitErr == nil && err == nil {
		dr.TimeWait = &results.DensitySockets{Start: timeWaitStart, Ready: timeWaitReady, Peak: timeWaitPeak}
	}
	if api[0] != nil && api[1] != nil && api[2] != nil && api[3] != nil {
		dr.API = newDensityAPI(*api[0], *api[1], *api[2], *api[3])
	}
	if start, end := spanOps(ops[0], ops[1]), spanOps(ops[2], ops[3]); start != nil && end != nil {
		dr.RuntimeOps = start
		for k, v := range end {
			dr.RuntimeOps[k] += v
		}
	}
	pw.mu.Lock()
	for i := range dr.Pods {
		dr.Pods[i].Gone = pw.gone[names[i]]
		dr.AllGone = max(dr.AllGone, dr.Pods[i].Gone)
	}
	dr.WatchRestarts, dr.LateTimes = pw.restarts, pw.late
	why := strings.Join(pw.why, "; ")
	pw.mu.Unlock()
	if dr.LateTimes > 0 {
		fail("the watch was reopened %d times (%s), and %d Ready or gone times came from its list: they may be late", dr.WatchRestarts, why, dr.LateTimes)
	}
	if why := dr.CPU.Restarted(); why != "" {
		fail("%s", why)
	}
	if !goneAll {
		fail("pods still there %s after the delete", timeout)
		dr.AllGone = 0
		return dr, fmt.Errorf("%w: pods still in the API %s after their delete", errNodeNotClear, timeout)
	}
	if clearErr != nil {
		fail("%v", clearErr)
		return dr, fmt.Errorf("%w: %v", errNodeNotClear, clearErr)
	}
	return dr, nil
}

// settle waits until the node is back to idle, at most timeout: a second
// in which the API server's requests and the serve groups' CPU (or,
// without their cgroups, the kubelet's and containerd's) are near their
// idle rates (settled). It reports whether one came.
func (d *densityRunner) settle(ctx context.Context, idle results.DensityIdle, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	apiA, a := d.apiCounts(ctx), d.mark()
	for {
		time.Sleep(time.Second)
		b := d.mark()
		apiB := d.apiCounts(ctx)
		if settled(idle, a, b, apiA, apiB) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		apiA, a = apiB, b
	}
}

// settled decides whether a second between marks a and b (and the API
// server's counts around them, nil when not read) was idle: at most twice
// the idle rate plus 5 requests a second, and at most twice the idle CPU
// plus a twentieth of a core. The slack keeps the benchmark's own reads
// and a controller's periodic work from holding it.
func settled(idle results.DensityIdle, a, b results.CPUMark, apiA, apiB *results.APICounts) bool {
	if idle.Seconds <= 0 || b.At <= a.At {
		return true
	}
	wall := float64(b.At-a.At) / 1e9
	if apiA != nil && apiB != nil && idle.API != nil {
		if rate := (apiB.All - apiA.All) / wall; rate > 2*idle.API.All/idle.Seconds+5 {
			return false
		}
	}
	used, idleCPU := 0.0, 0.0
	if len(idle.Groups) > 0 {
		for g, v := range idle.Groups {
			used += b.Groups[g] - a.Groups[g]
			idleCPU += v
		}
	} else {
		used = b.Kubelet - a.Kubelet + b.Containerd - a.Containerd
		idleCPU = idle.Kubelet + idle.Containerd
	}
	return used/wall <= 2*idleCPU/idle.Seconds+0.05
}

// gather reads every pod's containers from the runtime and the test
// server's log lines, as bench run's recorder does at a pod's end.
func (d *densityRunner) gather(dr *results.DensityRun, pods []*v1.Pod, sidecarStyle bool) {
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := range dr.Pods {
		p := &dr.Pods[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			rec := d.rec.record(p.Name, p.UID)
			var problems []string
			p.Containers, problems = rec.finish(pods[i], sidecarStyle)
			if len(problems) > 0 {
				p.Error = strings.Join(problems, "; ")
			}
		}()
	}
	wg.Wait()
}

// waitNodeClear waits until the runtime runs no sandbox and no container
// of a density pod: what the kubelet stops after the API object is gone.
func (d *densityRunner) waitNodeClear(ctx context.Context, timeout time.Duration) error {
	return d.waitRuntime(ctx, timeout, "runs", func(left runtimeLeft) int { return left.Running })
}

// removeLeft removes, through the CRI, the density pods' exited containers
// and their sandboxes once the kubelet has stopped them, and waits until
// the runtime holds none. The kubelet would remove them in its garbage
// collection, once a minute (ContainerGCPeriod, not a setting): at 110
// pods some 440 removals, each a runc delete and a snapshot's unmount,
// seconds of the node's CPU. A run that began before them had them land
// at a random point of its own window, in its CPU and in the time its
// pods took to be Ready; waiting for the kubelet's collection instead
// costs about 40 s a run. The removals are the same CRI calls the
// collection makes, for both kubelets alike, inside the deleted run's end
// window: what they cost the runtime is that run's. A container the
// kubelet removed meanwhile is not found, which is no error.
func (d *densityRunner) removeLeft(ctx context.Context, timeout time.Duration) error {
	ns := map[string]string{"io.kubernetes.pod.namespace": namespace}
	var errs []error
	if cs, err := d.rec.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{LabelSelector: ns}}); err != nil {
		errs = append(errs, err)
	} else {
		for _, c := range cs.GetContainers() {
			if ofDensityPod(c) && c.GetState() != runtimeapi.ContainerState_CONTAINER_RUNNING {
				if _, err := d.rec.rt.RemoveContainer(ctx, &runtimeapi.RemoveContainerRequest{ContainerId: c.GetId()}); err != nil && status.Code(err) != codes.NotFound {
					errs = append(errs, err)
				}
			}
		}
	}
	if sb, err := d.rec.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: &runtimeapi.PodSandboxFilter{LabelSelector: ns}}); err != nil {
		errs = append(errs, err)
	} else {
		for _, s := range sb.GetItems() {
			if densitySandbox(s) && s.GetState() != runtimeapi.PodSandboxState_SANDBOX_READY {
				if _, err := d.rec.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: s.GetId()}); err != nil && status.Code(err) != codes.NotFound {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := d.waitRuntime(ctx, timeout, "holds", func(left runtimeLeft) int { return left.All }); err != nil {
		return errors.Join(append(errs, err)...)
	}
	return nil
}

// runtimeLeft counts what the runtime still has of the density pods.
type runtimeLeft struct {
	Running int // ready sandboxes and running containers
	All     int // sandboxes and containers in any state
}

// densitySandbox and ofDensityPod tell a density pod's sandbox and
// containers by the pod's name.
func densitySandbox(s *runtimeapi.PodSandbox) bool {
	return strings.HasPrefix(s.GetMetadata().GetName(), densityPodPrefix)
}

func ofDensityPod(c *runtimeapi.Container) bool {
	return strings.HasPrefix(c.GetLabels()["io.kubernetes.pod.name"], densityPodPrefix)
}

// countLeft counts the sandboxes and containers of density pods among the
// runtime's.
func countLeft(sandboxes []*runtimeapi.PodSandbox, containers []*runtimeapi.Container) runtimeLeft {
	var left runtimeLeft
	for _, s := range sandboxes {
		if densitySandbox(s) {
			left.All++
			if s.GetState() == runtimeapi.PodSandboxState_SANDBOX_READY {
				left.Running++
			}
		}
	}
	for _, c := range containers {
		if ofDensityPod(c) {
			left.All++
			if c.GetState() == runtimeapi.ContainerState_CONTAINER_RUNNING {
				left.Running++
			}
		}
	}
	return left
}

// waitRuntime polls the runtime's sandboxes and containers of the
// benchmark's namespace until count finds none of the density pods'.
func (d *densityRunner) waitRuntime(ctx context.Context, timeout time.Duration, verb string, count func(runtimeLeft) int) error {
	deadline := time.Now().Add(timeout)
	ns := map[string]string{"io.kubernetes.pod.namespace": namespace}
	for {
		sb, err := d.rec.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{Filter: &runtimeapi.PodSandboxFilter{LabelSelector: ns}})
		cs, err2 := d.rec.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{LabelSelector: ns}})
		left := 0
		if err == nil && err2 == nil {
			if left = count(countLeft(sb.GetItems(), cs.GetContainers())); left == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the runtime still %s %d sandboxes and containers of the run's pods %s after they left the API (%v)",
				verb, left, timeout, errors.Join(err, err2))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkNodeRoom makes sure the node takes n more pods: its allocatable
// pods (the kubelet's maxPods, 110 by default) less the pods already bound
// to it and not finished. A run past it would leave pods Pending and time
// out, long after the cause could be seen.
func checkNodeRoom(ctx context.Context, cs kubernetes.Interface, n int) error {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(nodes.Items) != 1 {
		return fmt.Errorf("the cluster has %d nodes: the density runs want one", len(nodes.Items))
	}
	node := nodes.Items[0]
	room := node.Status.Allocatable.Pods().Value()
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name})
	if err != nil {
		return err
	}
	return nodeRoomError(node.Name, room, pods.Items, n)
}

// nodeRoomError says why a node of room allocatable pods, running pods,
// cannot take n more (nil when it can).
func nodeRoomError(node string, room int64, pods []v1.Pod, n int) error {
	var busy []string
	for _, p := range pods {
		if p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			busy = append(busy, p.Namespace+"/"+p.Name)
		}
	}
	if int64(n+len(busy)) <= room {
		return nil
	}
	sort.Strings(busy)
	if len(busy) > 5 {
		busy = append(busy[:5], "...")
	}
	return fmt.Errorf("node %s takes %d pods (its maxPods) and runs %d (%s): no room for %d at once", node, room, len(busy), strings.Join(busy, ", "), n)
}

// DensityCommand runs bench density: for each run, each N of -n and each
// way of -ways, N pods at once (measure); every DensityRun is appended to
// -out.
func DensityCommand(args []string) error {
	fs := flag.NewFlagSet("density", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...): the containers' start times")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir: the sidecars' logged ready times")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT)")
	kubeletPID := fs.Int("kubelet-pid", 0, "the kubelet's pid: its CPU time from /proc")
	containerdPID := fs.Int("containerd-pid", 0, "containerd's pid: its CPU time from /proc (0: not measured)")
	serveCgroup := fs.String("serve-cgroup", "", "the cluster's serve cgroup in the cpuacct hierarchy (hack/lib/node.sh, serve_cgroup_dir): the CPU of the kubelet, containerd with its shims and runc, the API server and etcd, each from its own cgroup (empty: only the kubelet's and containerd's own CPU, from /proc)")
	waysFlag := fs.String("ways", "", "comma-separated ways (see bench/measure/pods.go), all of the running kubelet (its goals compare fork/annotated, fork/native-wait-ready and their -p10 ways with fork/poststart, fork/no-sidecars and upstream/native-startup)")
	counts := fs.String("n", "10,30", "pods created at once, a comma-separated list (\"0\": none)")
	runs := fs.Int("runs", 3, "runs of every way at every N")
	firstRun := fs.Int("first-run", 0, "the number of the first run (its pods' names and ready delays): a benchmark that takes turns between kubelets runs each one's share")
	seed := fs.Uint64("seed", 28, "seed of the sidecars' ready delays: the same seed gives the same delays")
	idleSpan := fs.Duration("idle", 8*time.Second, "how long to measure the kubelet and containerd with no pod, before the runs")
	settle := fs.Duration("settle", 2*time.Second, "pause after a run's pods are gone, for the kubelet's clean-up")
	reclaim := fs.Bool("reclaim", false, "before each run, drop the host's page cache (drop_caches 3, needs root), which frees the dying memory cgroups that every run of pods leaves: each run then starts on the same host (make bench's BENCH_RECLAIM=1)")
	timeout := fs.Duration("timeout", 0, "how long a run's pods may take to be Ready, and again to be gone after their delete (0: 4 minutes or 4 s a pod, whichever is longer)")
	out := fs.String("out", "", "file to append each run to (JSON lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *cri == "" || *podLogs == "" || *kubeletURL == "" || *waysFlag == "" || *out == "" {
		return errors.New("density: -kubeconfig, -cri, -pod-logs, -kubelet-url, -ways and -out are required")
	}
	ns, err := parseDensityList(*counts)
	if err != nil {
		return fmt.Errorf("density: -n: %v", err)
	}
	if len(ns) == 0 {
		return nil
	}
	if *runs < 1 || *firstRun < 0 {
		return errors.New("density: -runs must be at least 1, -first-run at least 0")
	}
	ways, err := parseWays(*waysFlag)
	if err != nil {
		return fmt.Errorf("density: %v", err)
	}
	if *serveCgroup != "" {
		if err := checkServeCgroup(*serveCgroup, map[string]int{"kubelet": *kubeletPID, "containerd": *containerdPID}); err != nil {
			return fmt.Errorf("density: %v", err)
		}
	}
	cfg, cs, err := newAPIClient(*kubeconfig)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := checkNodeRoom(ctx, cs, slices.Max(ns)); err != nil {
		return fmt.Errorf("density: %v", err)
	}
	km, err := newKubeletMetrics(cfg, *kubeletURL)
	if err != nil {
		return err
	}
	rt, conn, err := dialCRI(*cri)
	if err != nil {
		return err
	}
	defer conn.Close()
	f, err := openRecords(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	// bench run's recorder, without its poller: the pods are read once,
	// while they all run, not followed every 50 ms (that would load the
	// runtime whose CPU time is measured).
	rec := &runner{cs: cs, rt: rt, podLogs: *podLogs}
	rec.poller = &criPoller{rt: rt, recs: map[*criRecorder]bool{}}
	if err := rec.setup(ctx); err != nil {
		return err
	}
	d := &densityRunner{cs: cs, rec: rec, km: km, kubeletPID: *kubeletPID, containerdPID: *containerdPID,
		serveCgroup: *serveCgroup, seed: *seed, timeout: *timeout, reclaim: *reclaim}
	if *reclaim {
		// Before any pod: a host that refuses it fails the command, not
		// its first run. Only asked: each kept run drops the cache itself.
		if err := checkReclaim(); err != nil {
			return fmt.Errorf("density: -reclaim: %v", err)
		}
	}
	// The first pods after a kubelet restart see slow probes and
	// networking: a run of a few pods that is not kept.
	if _, err := d.measure(ctx, ways[0], min(5, ns[0]), -1, results.DensityIdle{}); err != nil {
		return fmt.Errorf("density: the warm-up run: %v", err)
	}
	time.Sleep(*settle + time.Second)
	idle := d.idle(ctx, *idleSpan)
	fmt.Fprintf(os.Stderr, "  idle for %.1f s: kubelet %.2f s of CPU, containerd %.2f s\n", idle.Seconds, idle.Kubelet, idle.Containerd)
	// The ways take turns within each N and run, so that a drift of the
	// machine's load over the runs touches every way alike.
	for run := *firstRun; run < *firstRun+*runs; run++ {
		for _, n := range ns {
			for _, w := range waysOfRun(ways, run) {
				dr, err := d.measure(ctx, w, n, run, idle)
				if werr := f.write(dr); werr != nil {
					return werr
				}
				fmt.Fprintf(os.Stderr, "  %s\n", densityRunLine(dr))
				if err != nil {
					return fmt.Errorf("density: %s, %d pods, run %d: %v", w.Name, n, run, err)
				}
				time.Sleep(*settle)
			}
		}
	}
	return nil
}

// densityRunLine is a run's progress line.
func densityRunLine(dr results.DensityRun) string {
	head := fmt.Sprintf("%-24s %3d pods, run %d:", dr.Way, dr.N, dr.Run)
	if dr.Error != "" {
		return head + " ERROR " + dr.Error
	}
	all, _ := dr.AllReadyMs()
	ap := append([]float64(nil), dr.APrimes()...)
	sort.Float64s(ap)
	line := fmt.Sprintf("%s all Ready after %.1f s, a′ p50 %s ms, kubelet %s ms/pod above idle, containerd %s",
		head, all/1000, results.FormatMS(results.Percentile(ap, 50)), results.FormatMS(dr.KubeletFigureMs()), results.FormatMS(dr.ContainerdPerPodMs()))
	if node := dr.NodePerPodMs(); !math.IsNaN(node) {
		line += fmt.Sprintf(" (with its shims and runc %s), the node %s", results.FormatMS(dr.GroupPerPodMs("containerd")), results.FormatMS(node))
	}
	if tw := dr.TimeWait; tw != nil {
		line += fmt.Sprintf(", TIME_WAIT %d at Ready, peak %d", tw.Ready, tw.Peak)
	}
	if api, ok := dr.APIPerPod(); ok {
		line += fmt.Sprintf(", %.1f API requests/pod", api.All)
	}
	if ops, ok := dr.RuntimeOpsPerPod(); ok {
		line += fmt.Sprintf(", %.1f runtime calls/pod", ops.Total())
	}
	if r, err := dr.ProbeRates(); err == nil {
		line += fmt.Sprintf(", probe runs %.0f/s (%.0f extra, peak %.0f/s)", r.Runs, r.Extra, r.PeakExtra)
	}
	return line
}
