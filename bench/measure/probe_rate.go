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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// parseExtraProbeRuns reads kubelet_sidecar_extra_probe_runs_total from
// the Prometheus text of the kubelet's /metrics: 0, 0 from a kubelet
// without it (upstream's).
func parseExtraProbeRuns(r io.Reader) (run, limited float64, err error) {
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
//
// With exec, the probe's handler is execReadyProbe's (every other setting
// as the way has it): what an extra check costs when each is a process the
// runtime starts in the container.
func probeRatePod(w results.Way, name string, exec bool) *v1.Pod {
	pod := podFor(w, results.KindService, 1, name)
	pod.Labels["bench.sidecar-kubelet.io/probe-rate"] = "true"
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](2)
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			if c.Name != results.SidecarName(1) {
				continue
			}
			for j := range c.Env {
				if c.Env[j].Name == "READY_AFTER" {
					c.Env[j].Value = "never"
				}
			}
			for _, p := range []*v1.Probe{c.ReadinessProbe, c.StartupProbe} {
				if p == nil {
					continue
				}
				p.FailureThreshold = 100000
				if exec && p.HTTPGet != nil {
					p.ProbeHandler = execReadyProbe(p.HTTPGet.Port.IntValue()).ProbeHandler
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
			if list[i].Name == results.SidecarName(1) {
				return &list[i]
			}
		}
	}
	return nil
}

// ProbeRateCommand runs bench probe-rate: for each way of -ways, -pods
// pods at once with a sidecar that never turns ready, their probe runs
// scraped once a second; each way's ProbeRate is appended to -out.
func ProbeRateCommand(args []string) error {
	fs := flag.NewFlagSet("probe-rate", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT)")
	kubeletPID := fs.Int("kubelet-pid", 0, "the kubelet's pid: its CPU time from /proc")
	waysFlag := fs.String("ways", "", "comma-separated ways (see bench/measure/pods.go), all on the running kubelet")
	pods := fs.Int("pods", 50, "pods created at once per way, one waiting sidecar each")
	span := fs.Duration("span", 15*time.Second, "how long to measure once every sidecar runs")
	out := fs.String("out", "", "file to append each way's ProbeRate to (JSON lines)")
	handler := fs.String("handler", "http", "the waiting sidecars' probe handler: http (the way's own), or exec (an exec probe asking the same /ready)")
	serveCgroup := fs.String("serve-cgroup", "", "the cluster's serve cgroup in the cpuacct hierarchy: each serving process's CPU over the span (empty: the kubelet's alone, from /proc)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *kubeletURL == "" || *waysFlag == "" || *out == "" {
		return errors.New("probe-rate: -kubeconfig, -kubelet-url, -ways and -out are required")
	}
	if *handler != "http" && *handler != "exec" {
		return fmt.Errorf("probe-rate: -handler must be http or exec, not %q", *handler)
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
	f, err := openRecords(*out)
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
		pr := measureProbeRate(ctx, cs, km, probeRateReading{pid: *kubeletPID, serveCgroup: *serveCgroup}, w, *pods, *span, *handler == "exec")
		if pr.Error != "" {
			fmt.Fprintf(os.Stderr, "  %s (%s): %s\n", w.Name, pr.HandlerName(), pr.Error)
		} else if rates, err := pr.RatesOf(); err == nil {
			fmt.Fprintf(os.Stderr, "  %s (%s), %d waiting sidecars (all running after %.1f s): %.0f runs/s (%.0f extra, %.0f held back), peak extra %.0f/s\n",
				w.Name, pr.HandlerName(), pr.Pods, pr.AllRunning/1000, rates.Runs, rates.Extra, rates.Limited, rates.PeakExtra)
		}
		if err := f.write(pr); err != nil {
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
func measureProbeRate(ctx context.Context, cs kubernetes.Interface, km *kubeletMetrics, reading probeRateReading, w results.Way, pods int, span time.Duration, exec bool) results.ProbeRate {
	pr := results.ProbeRate{Way: w.Name, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe(), Pods: pods}
	if exec {
		pr.Handler = "exec"
	}
	if pr.Probe == "" {
		pr.Probe = "Readiness" // the pod without ordering: the sidecar's plain readiness probe
	}
	scrape := func() (results.ProbeScrape, error) {
		s, err := scrapeProbes(ctx, km, "pr-", results.SidecarName(1), pr.Probe, reading.pid)
		s.Serve = readServeGroups(reading.serveCgroup)
		return s, err
	}
	short := strings.NewReplacer("/", "-").Replace(w.Name)
	start := time.Now()
	errs := make(chan error, pods)
	for i := 0; i < pods; i++ {
		pod := probeRatePod(w, fmt.Sprintf("pr-%s-%d", short, i), exec)
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
		// A scrape the saturated kubelet does not answer in time is
		// counted and left out: the window around it is longer. The run
		// ends at its first answered scrape after To.
		if s, err := scrape(); err != nil {
			pr.MissedScrapes++
		} else {
			pr.Scrapes = append(pr.Scrapes, s)
			if pr.From != 0 && s.At >= pr.To {
				break
			}
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
				if last := firstStart.Add(results.ExtraRunsWindow - 2*time.Second); last.Before(end) {
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
			if pr.From != 0 {
				// They all ran: what never came is an answered scrape after To.
				pr.Error = fmt.Sprintf("no scrape answered after the measured span, within %s of the first create (%d missed)", deadline.Sub(start), pr.MissedScrapes)
			}
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

// probeRateReading is where a probe-rate run reads the CPU of the
// processes that serve the pods: the kubelet's pid (0: not read) and the
// serve cgroup's folder (empty: not read).
type probeRateReading struct {
	pid         int
	serveCgroup string
}

// scrapeProbes reads the kubelet's probe counters once: prober_probe_total
// of the probe probeType of the container of every pod whose name starts
// with prefix (every result), the fork's extra runs node-wide (0 from
// upstream's kubelet), and the kubelet's CPU time (pid 0: not read).
func scrapeProbes(ctx context.Context, km *kubeletMetrics, prefix, container, probeType string, pid int) (results.ProbeScrape, error) {
	var s results.ProbeScrape
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
		s.Extra, s.Limited, err = parseExtraProbeRuns(r)
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

// scrapeTries calls scrape up to tries times, for a scrape a run cannot do
// without (its start and its end): the first answer, or the last error.
func scrapeTries[S any](tries int, scrape func() (S, error)) (S, error) {
	var err error
	for range tries {
		var s S
		if s, err = scrape(); err == nil {
			return s, nil
		}
	}
	var zero S
	return zero, err
}

// periodicScrapes is what scrapeEvery read: the answers in order, and how
// many scrapes failed before it was stopped.
type periodicScrapes struct {
	scrapes []results.ProbeScrape
	missed  int
}

// scrapeEvery scrapes once a period until ctx ends. A scrape that fails is
// counted and skipped, not tried again: the window from the scrape before
// it to the next one covers its time. A scrape that fails once ctx has
// ended is not counted (the run stopped it, the kubelet did not miss it).
func scrapeEvery(ctx context.Context, period time.Duration, scrape func() (results.ProbeScrape, error)) periodicScrapes {
	var out periodicScrapes
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out
		case <-tick.C:
		}
		s, err := scrape()
		if err != nil {
			if ctx.Err() != nil {
				return out
			}
			out.missed++
			continue
		}
		out.scrapes = append(out.scrapes, s)
	}
}
