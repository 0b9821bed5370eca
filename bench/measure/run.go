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

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const namespace = "sk-bench"

// A pod plan: the pods each lane of a way runs, one after the other.
var plan = []struct {
	kind string
	n    int
}{{results.KindJob, 1}, {results.KindService, 1}, {results.KindService, 3}, {results.KindService, 5}, {results.KindStop, 0}}

type runner struct {
	cs      kubernetes.Interface
	rt      runtimeapi.RuntimeServiceClient
	podLogs string
	runID   string
	poller  *criPoller
	metrics *kubeletMetrics // nil: no probe counts
	// kubeletChanged fails once the kubelet process is not the one the
	// run began with.
	kubeletChanged func() error
	probeLog       *probeLog   // nil: the kubelet's log is not read
	criCallLog     *criCallLog // nil: containerd's log is not read

	mu  sync.Mutex // stderr: the lanes log at once
	out *records
}

// RunCommand runs bench run: every way of -ways, one after the other,
// -repeat times, each repeat in -parallel lanes of the pod plan; every
// pod's Sample is appended to -out and every way's Segment to -segments.
func RunCommand(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...)")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir")
	waysFlag := fs.String("ways", "", "comma-separated ways (see bench/measure/pods.go)")
	repeat := fs.Int("repeat", 2, "repeats of every pod of every way")
	parallel := fs.Int("parallel", 1, "lanes of a way that run at once, each the whole pod plan (the ways themselves run one at a time)")
	out := fs.String("out", "", "file to append the samples to (JSON lines)")
	kubeletURL := fs.String("kubelet-url", "", "the kubelet's HTTPS endpoint (https://127.0.0.1:PORT): probe counts from its /metrics/probes")
	kubeletPID := fs.Int("kubelet-pid", 0, "the kubelet's pid: its CPU time from /proc over each way's run")
	kubeletLog := fs.String("kubelet-log", "", "the kubelet's log file (--v >= 1): every failed probe run, also those its metrics leave out")
	containerdLog := fs.String("containerd-log", "", "containerd's log file (its text format, level info): when each CreateContainer and StopContainer call came and returned, which splits c into the runtime's parts and the kubelet's, and gives a′ its create")
	segmentsOut := fs.String("segments", "", "file to append each way's run (kubelet CPU, pods) to (JSON lines)")
	idle := fs.Duration("idle", 6*time.Second, "how long to measure the kubelet's CPU with no pod before the ways (0: not)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *cri == "" || *podLogs == "" || *out == "" || *waysFlag == "" {
		return errors.New("run: -kubeconfig, -cri, -pod-logs, -ways and -out are required")
	}
	if *parallel < 1 || *repeat < 1 {
		return errors.New("run: -parallel and -repeat must be at least 1")
	}
	ways, err := parseWays(*waysFlag)
	if err != nil {
		return err
	}
	cfg, cs, err := newAPIClient(*kubeconfig)
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
	var segs *records
	if *segmentsOut != "" {
		if segs, err = openRecords(*segmentsOut); err != nil {
			return err
		}
		defer segs.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &runner{cs: cs, rt: rt, podLogs: *podLogs,
		runID: fmt.Sprintf("%x", time.Now().Unix()%0xfffff), out: f, kubeletChanged: func() error { return nil }}
	r.poller = &criPoller{rt: r.rt, recs: map[*criRecorder]bool{}}
	go r.poller.run(ctx)
	if *kubeletURL != "" {
		if r.metrics, err = newKubeletMetrics(cfg, *kubeletURL); err != nil {
			return err
		}
		if _, err := r.metrics.probes(ctx, namespace); err != nil {
			return fmt.Errorf("the kubelet's probe metrics: %v", err)
		}
	}
	if *kubeletLog != "" {
		if r.probeLog, err = newProbeLog(*kubeletLog, namespace); err != nil {
			return fmt.Errorf("the kubelet's log: %v", err)
		}
	}
	if *containerdLog != "" {
		if r.criCallLog, err = newCRICallLog(*containerdLog); err != nil {
			return fmt.Errorf("containerd's log: %v", err)
		}
	}
	cpu := func() (procCPU, error) {
		if *kubeletPID == 0 {
			return procCPU{}, errors.New("no -kubelet-pid")
		}
		return readProcCPU(*kubeletPID)
	}
	if *kubeletPID != 0 {
		first, err := cpu()
		if err != nil {
			return fmt.Errorf("the kubelet (pid %d): %v", *kubeletPID, err)
		}
		// A kubelet restarted during the run (someone else's make
		// kubelet-restart, say) may be another binary, with other
		// settings: the figures would mix two kubelets. Stop instead.
		r.kubeletChanged = func() error {
			now, err := cpu()
			if err != nil || now.StartTime != first.StartTime {
				return fmt.Errorf("the kubelet (pid %d) was restarted during the run: run again", *kubeletPID)
			}
			return nil
		}
	}
	// segment measures the kubelet's CPU over fn, and records it.
	segment := func(way string, rep, pods int, fn func()) error {
		seg := results.Segment{Way: way, Repeat: rep, Parallel: *parallel, Pods: pods, KubeletPID: *kubeletPID, Start: time.Now().UnixNano()}
		before, errBefore := cpu()
		fn()
		after, errAfter := cpu()
		seg.End = time.Now().UnixNano()
		switch {
		case errBefore != nil:
			seg.Error = errBefore.Error()
		case errAfter != nil:
			seg.Error = fmt.Sprintf("the kubelet (pid %d) is gone: %v", *kubeletPID, errAfter)
		case after.StartTime != before.StartTime:
			seg.Error = fmt.Sprintf("the kubelet's pid %d was reused", *kubeletPID)
		default:
			seg.KubeletCPU = after.Seconds - before.Seconds
		}
		if seg.Error != "" && *kubeletPID != 0 {
			r.logf("  kubelet CPU of %s: %s\n", way, seg.Error)
		}
		if segs == nil {
			return nil
		}
		return segs.write(seg)
	}
	if err := r.setup(ctx); err != nil {
		return err
	}
	// A first pod after a kubelet restart (or on a new bridge) sees slow
	// probes and networking: run one that is not measured.
	warm := r.runPod(ctx, results.Way{Name: "warm-up", Style: "none"}, 9, results.KindService, 1, 0, 0)
	r.logf("  warm-up pod: %s %s\n", fmtMetrics(results.ComputeMetrics(&warm)), warm.Error)
	if *idle > 0 && *kubeletPID != 0 {
		// The kubelet with no pod of ours, after the warm-up pod's
		// clean-up has settled: its housekeeping, which every way's run
		// includes too.
		time.Sleep(3 * time.Second)
		if err := segment("idle", 0, 0, func() { time.Sleep(*idle) }); err != nil {
			return err
		}
	}
	for rep := 0; rep < *repeat; rep++ {
		for wi, w := range ways {
			var werr error
			err := segment(w.Name, rep, *parallel*len(plan), func() {
				werr = r.runLanes(ctx, w, wi, rep, *parallel)
			})
			if werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			if err := r.kubeletChanged(); err != nil {
				return err
			}
		}
	}
	return nil
}

// runLanes runs the plan of a way in parallel lanes: lane l starts l/P of a
// second after the first (the kubelet relists once a second: the lanes'
// pods start at different phases of it) and runs the plan rotated by l, so
// that the lanes run pods of different sizes at any one time.
func (r *runner) runLanes(ctx context.Context, w results.Way, wi, rep, parallel int) error {
	var wg sync.WaitGroup
	errs := make([]error, parallel)
	for lane := 0; lane < parallel; lane++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(lane) * time.Second / time.Duration(parallel))
			for k := range plan {
				if err := r.kubeletChanged(); err != nil {
					errs[lane] = err
					return
				}
				p := plan[(k+lane)%len(plan)]
				s := r.runPod(ctx, w, wi, p.kind, p.n, rep, lane)
				s.Parallel = parallel
				s.Metrics = results.ComputeMetrics(&s)
				if err := r.write(s); err != nil {
					errs[lane] = err
					return
				}
				status := "ok"
				if s.Error != "" {
					status = "ERROR " + s.Error
				}
				r.logf("  %-27s %s %d sidecars, repeat %d lane %d: %s %s\n", w.Name, p.kind, p.n, rep, lane, fmtMetrics(s.Metrics), status)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the lanes' errors are alike
		}
	}
	return nil
}

func (r *runner) write(s results.Sample) error {
	return r.out.write(s)
}

func (r *runner) logf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(os.Stderr, format, a...)
}

func fmtMetrics(m results.Metrics) string {
	var parts []string
	for _, sc := range results.Scenarios {
		if v, ok := m[sc.Key]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", sc.Key, results.FormatMS(v)))
		}
	}
	return strings.Join(parts, " ")
}

// setup makes the namespace (and waits for its ServiceAccount) and removes
// pods a previous, interrupted run left.
func (r *runner) setup(ctx context.Context) error {
	// A namespace still terminating (the previous run deletes it at its
	// end) refuses new pods: wait until it is gone.
	deadline := time.Now().Add(120 * time.Second)
	for {
		ns, err := r.cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && ns.DeletionTimestamp == nil) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("namespace %s: still terminating (%v)", namespace, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_, err := r.cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	deadline = time.Now().Add(60 * time.Second)
	for {
		if _, err := r.cs.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("no default ServiceAccount in " + namespace)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return r.cs.CoreV1().Pods(namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)},
		metav1.ListOptions{LabelSelector: "bench.sidecar-kubelet.io=true"})
}

// podState is what the watch saw of a pod: receive times in Unix ns.
type podState struct {
	uid             string
	containersReady int64
	succeeded       int64
	failed          bool
	gone            int64
}

// podWatch records the receive times of a pod's watch events.
type podWatch struct {
	mu       sync.Mutex
	st       podState
	restarts int           // watches opened again (see run)
	changed  chan struct{} // closed and replaced on every event
}

func (pw *podWatch) get() (podState, chan struct{}) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return pw.st, pw.changed
}

// run follows the pod until ctx ends. A watch that ends or reports an
// error (the API server's watch cache may refuse a watch right after it
// starts) is opened again, and counted: events in the gap would be seen late.
func (pw *podWatch) run(ctx context.Context, open func() (watch.Interface, error)) {
	for ctx.Err() == nil {
		w, err := open()
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		pw.follow(w)
		w.Stop()
		if ctx.Err() == nil {
			pw.mu.Lock()
			pw.restarts++
			pw.mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func (pw *podWatch) follow(w watch.Interface) {
	for ev := range w.ResultChan() {
		now := time.Now().UnixNano()
		if ev.Type == watch.Error {
			return
		}
		pod, ok := ev.Object.(*v1.Pod)
		if !ok {
			continue
		}
		pw.mu.Lock()
		st := &pw.st
		if st.uid == "" {
			st.uid = string(pod.UID)
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == v1.ContainersReady && c.Status == v1.ConditionTrue && st.containersReady == 0 {
				st.containersReady = now
			}
		}
		if pod.Status.Phase == v1.PodSucceeded && st.succeeded == 0 {
			st.succeeded = now
		}
		if pod.Status.Phase == v1.PodFailed {
			st.failed = true
		}
		if ev.Type == watch.Deleted && st.gone == 0 {
			st.gone = now
		}
		close(pw.changed)
		pw.changed = make(chan struct{})
		pw.mu.Unlock()
	}
}

// waitFor waits until cond holds for the watch's state.
func (pw *podWatch) waitFor(timeout time.Duration, cond func(podState) bool) bool {
	deadline := time.After(timeout)
	for {
		st, ch := pw.get()
		if cond(st) {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// criRecorder follows a pod's containers in the runtime: their CRI times,
// and their log files, which it opens as soon as they exist so that it can
// read them to the end after the kubelet has removed the pod.
type criRecorder struct {
	r         *runner
	pod       string
	uid       string
	mu        sync.Mutex
	byName    map[string]*results.Container
	ids       map[string]string   // container id -> name (attempt 0 only)
	logs      map[string]*os.File // name -> open log file
	logText   map[string]*strings.Builder
	restarted map[string]bool
}

// criPoller lists the benchmark's containers every 50 ms, one CRI call for
// every pod being recorded, however many run at once.
type criPoller struct {
	rt   runtimeapi.RuntimeServiceClient
	mu   sync.Mutex // held over a round, so that finish waits for it
	recs map[*criRecorder]bool
}

func (p *criPoller) run(ctx context.Context) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p.mu.Lock()
		if len(p.recs) > 0 {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			resp, err := p.rt.ListContainers(cctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
				LabelSelector: map[string]string{"io.kubernetes.pod.namespace": namespace}}})
			byUID := map[string][]*runtimeapi.Container{}
			if err == nil {
				for _, ct := range resp.Containers {
					uid := ct.Labels["io.kubernetes.pod.uid"]
					byUID[uid] = append(byUID[uid], ct)
				}
			}
			for rec := range p.recs {
				if err == nil {
					rec.update(cctx, byUID[rec.uid])
				}
				rec.readLogs()
			}
			cancel()
		}
		p.mu.Unlock()
	}
}

func (r *runner) record(pod, uid string) *criRecorder {
	c := &criRecorder{r: r, pod: pod, uid: uid, byName: map[string]*results.Container{}, ids: map[string]string{},
		logs: map[string]*os.File{}, logText: map[string]*strings.Builder{}, restarted: map[string]bool{}}
	r.poller.mu.Lock()
	r.poller.recs[c] = true
	r.poller.mu.Unlock()
	return c
}

// poll lists the pod's containers itself (the last look, in finish).
func (c *criRecorder) poll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.r.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": c.uid}}})
	if err == nil {
		c.update(ctx, resp.Containers)
	}
	c.readLogs()
}

// update records what the runtime lists of the pod's containers.
func (c *criRecorder) update(ctx context.Context, containers []*runtimeapi.Container) {
	for _, ct := range containers {
		name := ct.Labels["io.kubernetes.container.name"]
		if ct.Metadata.GetAttempt() != 0 {
			c.mu.Lock()
			c.restarted[name] = true
			c.mu.Unlock()
			continue
		}
		c.mu.Lock()
		rec := c.byName[name]
		if rec == nil {
			rec = &results.Container{Name: name}
			c.byName[name] = rec
			c.ids[ct.Id] = name
		}
		rec.Created = ct.CreatedAt
		needStatus := (rec.Started == 0 && ct.State != runtimeapi.ContainerState_CONTAINER_CREATED) ||
			(rec.Exited == 0 && ct.State == runtimeapi.ContainerState_CONTAINER_EXITED)
		c.mu.Unlock()
		if needStatus {
			st, err := c.r.rt.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: ct.Id})
			if err == nil && st.Status != nil {
				c.mu.Lock()
				rec.Started = st.Status.StartedAt
				if st.Status.FinishedAt != 0 {
					rec.Exited = st.Status.FinishedAt
					rec.Code = st.Status.ExitCode
				}
				c.mu.Unlock()
			}
		}
	}
}

// containerIDs returns the runtime's ids of the pod's containers (their
// first attempts), by name.
func (c *criRecorder) containerIDs() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for id, name := range c.ids {
		out[name] = id
	}
	return out
}

// applyCRICalls sets each container's CreateContainer and StopContainer
// times from what containerd logged of its id.
func applyCRICalls(containers []results.Container, ids map[string]string, log *criCallLog) {
	var want []string
	for _, c := range containers {
		if id, ok := ids[c.Name]; ok {
			want = append(want, id)
		}
	}
	calls := log.take(want)
	for i := range containers {
		c := &containers[i]
		if sc, ok := calls[ids[c.Name]]; ok {
			c.CreateCalled, c.CreateReturned = sc.createCalled, sc.createReturned
			c.StopCalled, c.StopReturned = sc.stopCalled, sc.stopReturned
		}
	}
}

// containerID is the runtime's id of the pod's first container of that name.
func (c *criRecorder) containerID(name string) (string, bool) {
	c.poll()
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, n := range c.ids {
		if n == name {
			return id, true
		}
	}
	return "", false
}

// readLogs opens the log files that exist now and reads what is new.
func (c *criRecorder) readLogs() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.byName {
		f := c.logs[name]
		if f == nil {
			path := filepath.Join(c.r.podLogs, fmt.Sprintf("%s_%s_%s", namespace, c.pod, c.uid), name, "0.log")
			var err error
			if f, err = os.Open(path); err != nil {
				continue
			}
			c.logs[name] = f
			c.logText[name] = &strings.Builder{}
		}
		_, _ = io.Copy(c.logText[name], f)
	}
}

// finish stops the polling and returns the containers in the pod's order,
// with the times the test server logged.
func (c *criRecorder) finish(pod *v1.Pod, sidecarStyle bool) ([]results.Container, []string) {
	c.r.poller.mu.Lock()
	delete(c.r.poller.recs, c)
	c.r.poller.mu.Unlock()
	c.poll()
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []results.Container
	var problems []string
	for _, spec := range append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		rec := c.byName[spec.Name]
		if rec == nil {
			problems = append(problems, spec.Name+" never seen in the runtime")
			rec = &results.Container{Name: spec.Name}
		}
		rec.Sidecar = sidecarStyle && strings.HasPrefix(spec.Name, "sc")
		if b := c.logText[spec.Name]; b != nil {
			applyLog(rec, b.String())
		}
		if c.restarted[spec.Name] {
			problems = append(problems, spec.Name+" restarted")
		}
		out = append(out, *rec)
	}
	for _, f := range c.logs {
		f.Close()
	}
	return out, problems
}

// applyLog sets the times the test server logged: the first line of each
// event counts. A CRI log line is "<time> stdout F <text>"; the text is the
// test server's "<time> name=N event=E ...".
func applyLog(c *results.Container, log string) {
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) < 4 {
			continue
		}
		text := strings.Fields(f[3])
		if len(text) < 3 {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, text[0])
		if err != nil {
			continue
		}
		name, event := strings.TrimPrefix(text[1], "name="), strings.TrimPrefix(text[2], "event=")
		set := func(p *int64) {
			if *p == 0 {
				*p = t.UnixNano()
			}
		}
		switch {
		case event == "ready-served" && name == c.Name:
			set(&c.Ready)
		case event == "ready" && name == c.Name:
			set(&c.Up)
		case event == "sigterm" && name == c.Name:
			set(&c.Signal)
		case event == "hook-end" && name == "wait-ready":
			set(&c.Hook)
		}
	}
}

// runPod runs one pod through its life and returns what it saw.
func (r *runner) runPod(ctx context.Context, w results.Way, wi int, kind string, n, rep, lane int) results.Sample {
	name := fmt.Sprintf("w%d-%s%d-r%d-l%d-%s", wi, kind, n, rep, lane, r.runID)
	pod := podFor(w, kind, n, name)
	s := results.Sample{Way: w.Name, Kind: kind, Sidecars: n, Repeat: rep, Lane: lane, Pod: name}
	if kind == results.KindJob && w.Style == "none" {
		s.Sidecars = 0
	}
	fail := func(format string, a ...any) results.Sample {
		msg := fmt.Sprintf(format, a...)
		if s.Error != "" {
			s.Error += "; "
		}
		s.Error += msg
		return s
	}
	pods := r.cs.CoreV1().Pods(namespace)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pw := &podWatch{changed: make(chan struct{})}
	go pw.run(wctx, func() (watch.Interface, error) {
		return pods.Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	})
	// The watch must be open before the pod is created: a first event
	// (none yet, so wait for the API server to accept the watch) is not
	// needed, but an open watch is; give it a moment and count restarts.
	time.Sleep(100 * time.Millisecond)
	pw.mu.Lock()
	restartsBefore := pw.restarts
	pw.mu.Unlock()

	s.Create = time.Now().UnixNano()
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return fail("create: %v", err)
	}
	rec := r.record(name, string(created.UID))
	finished := false
	defer func() {
		if !finished {
			rec.finish(pod, w.Style != "none")
		}
		// Whatever happened, the pod goes.
		_ = pods.Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}()

	// The probe counts, once nothing waits any more: the kubelet drops a
	// container's series when its probe worker stops, at the latest when
	// the pod terminates.
	var probes map[probeKey]*results.ProbeCount
	scrape := func() {
		if r.metrics == nil {
			return
		}
		var err error
		if probes, err = r.metrics.probes(ctx, namespace); err != nil {
			s = fail("probe metrics: %v", err)
			probes = nil
			return
		}
		s.ProbesAt = time.Now().UnixNano()
	}
	if kind == results.KindStop {
		if !pw.waitFor(120*time.Second, func(p podState) bool { return p.containersReady != 0 }) {
			return fail("containers not ready after 120s")
		}
		id, ok := rec.containerID("app")
		if !ok {
			return fail("the app container never seen in the runtime")
		}
		s.StopCall = time.Now().UnixNano()
		if _, err := r.rt.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: id, Timeout: 30}); err != nil {
			return fail("StopContainer: %v", err)
		}
		s.StopReturn = time.Now().UnixNano()
		if !pw.waitFor(120*time.Second, func(p podState) bool { return p.succeeded != 0 || p.failed }) {
			s = fail("not terminal 120s after the stop")
		}
	} else if kind == results.KindService {
		if !pw.waitFor(120*time.Second, func(p podState) bool { return p.containersReady != 0 }) {
			s = fail("containers not ready after 120s")
		} else {
			scrape()
			// Let the probes and the status settle before deleting.
			time.Sleep(200 * time.Millisecond)
		}
	} else {
		if pw.waitFor(120*time.Second, func(p podState) bool { return p.containersReady != 0 || p.succeeded != 0 || p.failed }) {
			if st, _ := pw.get(); st.containersReady != 0 && st.succeeded == 0 && !st.failed {
				scrape()
			}
		}
		if !pw.waitFor(120*time.Second, func(p podState) bool { return p.succeeded != 0 || p.failed }) {
			s = fail("not Succeeded after 120s")
		} else if st, _ := pw.get(); st.failed {
			s = fail("pod Failed")
		}
		st, _ := pw.get()
		s.ContainersReady = st.containersReady
	}
	s.Delete = time.Now().UnixNano()
	if err := pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](30)}); err != nil {
		return fail("delete: %v", err)
	}
	if !pw.waitFor(120*time.Second, func(p podState) bool { return p.gone != 0 }) {
		s = fail("not gone 120s after the delete")
	}
	st, _ := pw.get()
	s.ContainersReady, s.Succeeded, s.Gone = st.containersReady, st.succeeded, st.gone
	if kind == results.KindJob || kind == results.KindStop {
		s.Delete, s.Gone = 0, 0 // a Job pod's deletion is not measured
	}
	pw.mu.Lock()
	if pw.restarts != restartsBefore {
		s = fail("the watch was reopened %d times while the pod ran: its times may be late", pw.restarts-restartsBefore)
	}
	pw.mu.Unlock()
	finished = true
	var problems []string
	s.Containers, problems = rec.finish(pod, w.Style != "none")
	for _, p := range problems {
		s = fail("%s", p)
	}
	if r.criCallLog != nil {
		// The pod is gone: every StopContainer of its containers returned.
		if err := r.criCallLog.catchUp(); err != nil {
			s = fail("containerd's log: %v", err)
		} else {
			applyCRICalls(s.Containers, rec.containerIDs(), r.criCallLog)
		}
	}
	var logged []loggedProbe
	if r.probeLog != nil {
		// The pod is gone: the kubelet has written its last probe lines.
		if err := r.probeLog.catchUp(); err != nil {
			s = fail("the kubelet's log: %v", err)
		} else {
			s.KubeletLog = true
			logged = r.probeLog.take(name)
		}
	}
	for i := range s.Containers {
		c := &s.Containers[i]
		types := map[string]*results.ProbeCount{}
		for k, pc := range probes {
			if k.pod == name && k.container == c.Name {
				cp := *pc
				types[k.probeType] = &cp
			}
		}
		for _, lp := range logged {
			if lp.container != c.Name {
				continue
			}
			pc := types[lp.probeType]
			if pc == nil {
				pc = &results.ProbeCount{Type: lp.probeType}
				types[lp.probeType] = pc
			}
			pc.FailedLog = append(pc.FailedLog, lp.at)
		}
		for _, t := range []string{"Startup", "Readiness", "Liveness"} {
			if pc := types[t]; pc != nil {
				c.Probes = append(c.Probes, *pc)
			}
		}
	}
	return s
}
