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
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const (
	chainLabel     = "bench.sidecar-kubelet.io/chain"
	chainPodPrefix = "ch-"
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

// chainPod is the way's service pod with n sidecars sc1..scn (podFor), each
// ready ChainReadyAfter after its start, its probe (readiness, or startup
// for native-startup; the postStart way's readiness probe, which its hook
// does not wait for) the exec probe of execReadyProbe.
func chainPod(w results.Way, name string, n int) *v1.Pod {
	pod := podFor(w, results.KindService, n, name)
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
					c.Env[j].Value = results.ChainReadyAfter.String()
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

// ChainCommand runs bench chain: for each repeat, one pod of each way (the
// ways taking turns, so that a drift of the machine's load touches each
// alike), one pod at a time.
func ChainCommand(args []string) error {
	fs := flag.NewFlagSet("chain", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...): the containers' times")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir: the sidecars' logged ready times")
	waysFlag := fs.String("ways", "", "comma-separated ways (see bench/measure/pods.go), all of the running kubelet: those that order sidecars")
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
			if err := f.write(p); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "  %s\n", chainPodLine(p))
		}
	}
	return nil
}

// chainPodLine is a pod's progress line.
func chainPodLine(p results.ChainPod) string {
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
func measureChain(ctx context.Context, r *runner, w results.Way, n, rep int, timeout time.Duration) results.ChainPod {
	name := fmt.Sprintf("%s%s-r%d", chainPodPrefix, strings.ReplaceAll(w.Name, "/", "-"), rep)
	if rep < 0 {
		name = fmt.Sprintf("%s%s-warm-up", chainPodPrefix, strings.ReplaceAll(w.Name, "/", "-"))
	}
	pod := chainPod(w, name, n)
	p := results.ChainPod{Way: w.Name, Kubelet: w.Kubelet, Sidecars: n, Repeat: rep, Pod: name}
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
