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

// bench never-ready: what sidecars that stay not ready cost over the whole
// minute in which the fork checks them between their probe's periods (a
// mesh waiting for its control plane, a node reboot), and whether the
// sidecars of pods created meanwhile still release their apps promptly.
// Each way creates, at once, -pods pods of bench probe-rate (probeRatePod:
// one sidecar whose /ready never answers 200) and one such pod for each
// delay of -late whose sidecar turns ready after it; then, at each time of
// -fresh, one new pod whose sidecar turns ready freshReadyAfter after its
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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const (
	neverReadyLabel     = "bench.sidecar-kubelet.io/never-ready"
	neverReadyPodPrefix = "nr-"
	// freshReadyAfter is when a fresh pod's sidecar turns ready, after its
	// start: within bench density's delays (0.5 to 3 s).
	freshReadyAfter = time.Second
)

// probePeriod is the periodSeconds of the pod's sidecar's probe of type t
// (the API's default, 10, when unset).
func probePeriod(pod *v1.Pod, t string) int32 {
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.Name != results.SidecarName(1) {
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

// parseLateReady reads the late sidecars' delays, "15s,30s,45s": each
// within the kubelet's minute of extra checks; "" or "0": none.
func parseLateReady(s string) ([]time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return nil, nil
	}
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 || d >= results.ExtraRunsWindow {
			return nil, fmt.Errorf("late sidecars %q: %q is not a duration within a minute", s, f)
		}
		out = append(out, d)
	}
	return out, nil
}

// neverReadyPods are the pods of a way's run: never ready, late, then fresh
// (created at their time of fresh, after the others).
func neverReadyPods(w results.Way, never int, late, fresh []time.Duration) ([]*v1.Pod, []results.NeverReadyPod) {
	short := strings.ReplaceAll(w.Name, "/", "-")
	var pods []*v1.Pod
	var recs []results.NeverReadyPod
	for i := 0; i < never; i++ {
		pods = append(pods, probeRatePod(w, fmt.Sprintf("%s%s-%d", neverReadyPodPrefix, short, i), false))
		recs = append(recs, results.NeverReadyPod{Name: pods[i].Name})
	}
	readyAfter := func(name string, d time.Duration) *v1.Pod {
		pod := probeRatePod(w, name, false)
		for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for j := range list {
				for k := range list[j].Env {
					if list[j].Name == results.SidecarName(1) && list[j].Env[k].Name == "READY_AFTER" {
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
		recs = append(recs, results.NeverReadyPod{Name: pod.Name, ReadyAfter: float64(d.Milliseconds())})
	}
	for i, at := range fresh {
		pod := readyAfter(fmt.Sprintf("%s%s-fresh-%d", neverReadyPodPrefix, short, i), freshReadyAfter)
		pods = append(pods, pod)
		recs = append(recs, results.NeverReadyPod{Name: pod.Name, ReadyAfter: float64(freshReadyAfter.Milliseconds()), Fresh: true, CreatedAfter: float64(at.Milliseconds())})
	}
	for _, p := range pods {
		p.Labels[neverReadyLabel] = "true"
	}
	return pods, recs
}

// scrapeNeverReady reads the node-wide counters and every pod's of the
// run (name prefix) once.
func scrapeNeverReady(ctx context.Context, km *kubeletMetrics, prefix, probeType string) (results.NeverReadyScrape, error) {
	s := results.NeverReadyScrape{PerPod: map[string]float64{}}
	counts, err := km.probes(ctx, namespace)
	if err != nil {
		return s, err
	}
	for k, c := range counts {
		if k.container == results.SidecarName(1) && k.probeType == probeType && strings.HasPrefix(k.pod, prefix) {
			runs := float64(c.Successful + c.Failed + c.Unknown)
			s.PerPod[k.pod] += runs
			s.Runs += runs
		}
	}
	s.Sent = time.Now().UnixNano()
	if err := km.get(ctx, "/metrics", func(r io.Reader) (err error) {
		s.Extra, s.Limited, err = parseExtraProbeRuns(r)
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
func measureNeverReady(ctx context.Context, r *runner, km *kubeletMetrics, w results.Way, never int, late, fresh []time.Duration) results.NeverReadyRun {
	run := results.NeverReadyRun{Way: w.Name, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe()}
	pods, recs := neverReadyPods(w, never, late, fresh)
	run.Pods = recs
	run.Period = probePeriod(pods[0], run.Probe)
	prefix := neverReadyPodPrefix + strings.ReplaceAll(w.Name, "/", "-") + "-"
	scrape := func() (results.NeverReadyScrape, error) { return scrapeNeverReady(ctx, km, prefix, run.Probe) }
	// The first scrape is the run's baseline: tried again if it times out.
	s, err := scrapeTries(3, scrape)
	if err != nil {
		run.Error = "scrape: " + err.Error()
		return run
	}
	run.Scrapes = append(run.Scrapes, s)
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
		// A scrape the saturated kubelet does not answer in time is
		// counted and left out: the windows around it are longer. The run
		// ends at its first answered scrape after end.
		s, err := scrape()
		if err != nil {
			run.MissedScrapes++
		} else {
			run.Scrapes = append(run.Scrapes, s)
		}
		now := time.Now()
		if !end.IsZero() {
			if err == nil && now.After(end) {
				break
			}
			if now.After(end.Add(30 * time.Second)) {
				run.Error = "no scrape answered in the 30 s after the sidecars' minute"
				return run
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
			end = now.Add(results.ExtraRunsWindow + 2*time.Second)
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

// NeverReadyCommand runs bench never-ready: for each way of -ways, the
// never-ready, late and fresh pods of measureNeverReady; each way's
// NeverReadyRun is appended to -out.
func NeverReadyCommand(args []string) error {
	fs := flag.NewFlagSet("never-ready", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT)")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...): the sidecars' and apps' start times")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir: the late sidecars' logged ready times")
	waysFlag := fs.String("ways", "", "comma-separated ways (see bench/measure/pods.go) whose apps wait for a probe, all on the running kubelet")
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
	late, err := parseLateReady(*lateFlag)
	if err != nil {
		return fmt.Errorf("never-ready: -late: %v", err)
	}
	fresh, err := parseLateReady(*freshFlag)
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
	ctx := context.Background()
	r := &runner{cs: cs, rt: rt, podLogs: *podLogs}
	r.poller = &criPoller{rt: rt, recs: map[*criRecorder]bool{}}
	if err := r.setup(ctx); err != nil {
		return err
	}
	for _, w := range ways {
		run := measureNeverReady(ctx, r, km, w, *never, late, fresh)
		fmt.Fprintf(os.Stderr, "  %s\n", neverReadyLine(run))
		if err := f.write(run); err != nil {
			return err
		}
		if err := deleteProbeRatePods(ctx, cs); err != nil {
			return err
		}
	}
	return nil
}

// neverReadyLine is a run's progress line.
func neverReadyLine(r results.NeverReadyRun) string {
	head := fmt.Sprintf("%-28s", r.Way)
	s, err := r.Settled()
	if err != nil {
		return head + " ERROR " + err.Error()
	}
	ap, missing := r.LateAPrimes()
	fap, fmissing := r.FreshAPrimes()
	return fmt.Sprintf("%s 10–60 s: %.2f extra runs/s per waiting sidecar, the busiest %.2f runs/s; fresh pods' a′ %s ms (%d without); late sidecars' a′ %s ms (%d without)",
		head, s.PerSidecar, s.Busiest, results.JoinMS(fap), fmissing, results.JoinMS(ap), missing)
}
