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

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/utils/ptr"
)

const namespace = "sk-bench"

// A pod plan: the pods each repeat of a way runs, one after the other.
var plan = []struct {
	kind string
	n    int
}{{KindJob, 1}, {KindService, 1}, {KindService, 3}, {KindService, 5}}

type runner struct {
	cs      kubernetes.Interface
	rt      runtimeapi.RuntimeServiceClient
	podLogs string
	runID   string
	out     *os.File
}

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "admin kubeconfig of the cluster")
	cri := fs.String("cri", "", "CRI endpoint of the node's runtime (unix://...)")
	podLogs := fs.String("pod-logs", "", "the kubelet's podLogsDir")
	waysFlag := fs.String("ways", "", "comma-separated ways (see pods.go)")
	repeat := fs.Int("repeat", 2, "repeats of every pod of every way")
	out := fs.String("out", "", "file to append the samples to (JSON lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" || *cri == "" || *podLogs == "" || *out == "" || *waysFlag == "" {
		return errors.New("run: -kubeconfig, -cri, -pod-logs, -ways and -out are required")
	}
	var ways []Way
	for _, n := range strings.Split(*waysFlag, ",") {
		w, ok := WayByName(n)
		if !ok {
			return fmt.Errorf("unknown way %q", n)
		}
		ways = append(ways, w)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
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
	r := &runner{cs: cs, rt: runtimeapi.NewRuntimeServiceClient(conn), podLogs: *podLogs,
		runID: fmt.Sprintf("%x", time.Now().Unix()%0xfffff), out: f}
	ctx := context.Background()
	if err := r.setup(ctx); err != nil {
		return err
	}
	// A first pod after a kubelet restart (or on a new bridge) sees slow
	// probes and networking: run one that is not measured.
	warm := r.runPod(ctx, Way{Name: "warm-up", Style: "none"}, 9, KindService, 1, 0)
	fmt.Fprintf(os.Stderr, "  warm-up pod: %s %s\n", fmtMetrics(ComputeMetrics(&warm)), warm.Error)
	for rep := 0; rep < *repeat; rep++ {
		for wi, w := range ways {
			for _, p := range plan {
				s := r.runPod(ctx, w, wi, p.kind, p.n, rep)
				s.Metrics = ComputeMetrics(&s)
				line, err := json.Marshal(s)
				if err != nil {
					return err
				}
				if _, err := f.Write(append(line, '\n')); err != nil {
					return err
				}
				status := "ok"
				if s.Error != "" {
					status = "ERROR " + s.Error
				}
				fmt.Fprintf(os.Stderr, "  %-24s %s %d sidecars, repeat %d: %s %s\n", w.Name, p.kind, p.n, rep, fmtMetrics(s.Metrics), status)
			}
		}
	}
	return nil
}

func fmtMetrics(m Metrics) string {
	var parts []string
	for _, sc := range Scenarios {
		if v, ok := m[sc.Key]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", sc.Key, fmtMS(v)))
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
	byName    map[string]*Container
	ids       map[string]string   // container id -> name (attempt 0 only)
	logs      map[string]*os.File // name -> open log file
	logText   map[string]*strings.Builder
	restarted map[string]bool
	stop      chan struct{}
	done      chan struct{}
}

func (r *runner) record(pod, uid string) *criRecorder {
	c := &criRecorder{r: r, pod: pod, uid: uid, byName: map[string]*Container{}, ids: map[string]string{},
		logs: map[string]*os.File{}, logText: map[string]*strings.Builder{}, restarted: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			c.poll()
			select {
			case <-c.stop:
				c.poll()
				return
			case <-tick.C:
			}
		}
	}()
	return c
}

func (c *criRecorder) poll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.r.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": c.uid}}})
	if err == nil {
		for _, ct := range resp.Containers {
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
				rec = &Container{Name: name}
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
	c.readLogs()
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
func (c *criRecorder) finish(pod *v1.Pod, sidecarStyle bool) ([]Container, []string) {
	close(c.stop)
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Container
	var problems []string
	for _, spec := range append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		rec := c.byName[spec.Name]
		if rec == nil {
			problems = append(problems, spec.Name+" never seen in the runtime")
			rec = &Container{Name: spec.Name}
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
func applyLog(c *Container, log string) {
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
func (r *runner) runPod(ctx context.Context, w Way, wi int, kind string, n, rep int) Sample {
	name := fmt.Sprintf("w%d-%s%d-r%d-%s", wi, kind, n, rep, r.runID)
	pod := PodFor(w, kind, n, name)
	s := Sample{Way: w.Name, Kind: kind, Sidecars: n, Repeat: rep, Pod: name}
	if kind == KindJob && w.Style == "none" {
		s.Sidecars = 0
	}
	fail := func(format string, a ...any) Sample {
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

	if kind == KindService {
		if !pw.waitFor(120*time.Second, func(p podState) bool { return p.containersReady != 0 }) {
			s = fail("containers not ready after 120s")
		} else {
			// Let the probes and the status settle before deleting.
			time.Sleep(200 * time.Millisecond)
		}
	} else {
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
	if kind == KindJob {
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
	return s
}
