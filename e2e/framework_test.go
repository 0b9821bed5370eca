//go:build e2e

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

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// holdFinalizer keeps a deleted pod's object, and so its final container
// statuses, until the spec has read them; the namespace's cleanup removes it.
const holdFinalizer = "e2e.sidecar-kubelet.io/hold"

// ---------------------------------------------------------------------------
// Failures that name the rule.

// failRule fails the spec with a message that starts with the SPEC rule.
func failRule(rule, format string, args ...any) {
	GinkgoHelper()
	Fail(fmt.Sprintf("SPEC rule %s: ", rule) + fmt.Sprintf(format, args...))
}

// ruleMsg is an optional description for gomega assertions about a rule.
func ruleMsg(rule, format string, args ...any) func() string {
	return func() string { return fmt.Sprintf("SPEC rule %s: ", rule) + fmt.Sprintf(format, args...) }
}

// ---------------------------------------------------------------------------
// Namespaces.

// newNamespace creates a namespace for the spec, waits for its default
// ServiceAccount (the ServiceAccount admission rejects pods until then), and
// deletes it after the spec, first releasing the pods held by holdFinalizer.
// On failure it prints the pods and events of the namespace.
func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "sck-e2e-", Labels: map[string]string{
			"e2e.sidecar-kubelet.io": "true",
			// The suite's pods need nothing beyond the baseline Pod Security
			// Standard; the labels keep them admitted on clusters whose
			// default is stricter.
			"pod-security.kubernetes.io/enforce": "baseline",
			"pod-security.kubernetes.io/warn":    "baseline",
		}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	name := ns.Name
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpNamespace(ctx, name)
		}
		pods, err := cs.CoreV1().Pods(name).List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				release(ctx, &pods.Items[i])
			}
		}
		err = cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			Expect(err).NotTo(HaveOccurred())
		}
	}, NodeTimeout(time.Minute))
	Eventually(ctx, func() error {
		_, err := cs.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).WithTimeout(time.Minute).Should(Succeed(), "namespace %s has no default ServiceAccount (is kube-controller-manager running?)", name)
	return name
}

func dumpNamespace(ctx context.Context, ns string) {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		GinkgoWriter.Printf("listing pods of %s: %v\n", ns, err)
		return
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		GinkgoWriter.Printf("pod %s/%s phase=%s deleted=%v\n", ns, p.Name, p.Status.Phase, p.DeletionTimestamp != nil)
		for _, st := range allStatuses(p) {
			GinkgoWriter.Printf("  %s\n", describeStatus(st))
		}
		GinkgoWriter.Printf("  logs:\n%s", indent(podTimeline(ctx, p).String(), "    "))
	}
	events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		sort.Slice(events.Items, func(i, j int) bool {
			return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp)
		})
		for _, e := range events.Items {
			GinkgoWriter.Printf("event %s %s %s x%d: %s\n", e.InvolvedObject.Name, e.Type, e.Reason, e.Count, e.Message)
		}
	}
}

func describeStatus(st v1.ContainerStatus) string {
	s := fmt.Sprintf("%s ready=%v restarts=%d", st.Name, st.Ready, st.RestartCount)
	describe := func(state v1.ContainerState) string {
		switch {
		case state.Running != nil:
			return "running since " + state.Running.StartedAt.UTC().Format(time.RFC3339)
		case state.Terminated != nil:
			t := state.Terminated
			s := fmt.Sprintf("terminated exit=%d %s (%s to %s)", t.ExitCode, t.Reason,
				t.StartedAt.UTC().Format(time.RFC3339), t.FinishedAt.UTC().Format(time.RFC3339))
			if t.Message != "" {
				s += fmt.Sprintf(" message %q", t.Message)
			}
			return s
		case state.Waiting != nil:
			return "waiting " + state.Waiting.Reason + ": " + state.Waiting.Message
		}
		return "no state"
	}
	s += " state: " + describe(st.State)
	if st.LastTerminationState != (v1.ContainerState{}) {
		s += "; last: " + describe(st.LastTerminationState)
	}
	return s
}

// describeStatuses describes every container of the pod, a line each.
func describeStatuses(p *v1.Pod) string {
	if p == nil {
		return "  (no pod seen)"
	}
	var s []string
	for _, st := range allStatuses(p) {
		s = append(s, "  "+describeStatus(st))
	}
	return strings.Join(s, "\n")
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}

// ---------------------------------------------------------------------------
// Pods: every container runs the testserver image.

type containerOpt func(*v1.Container)

// server is a testserver container; opts configure it.
func server(name string, opts ...containerOpt) v1.Container {
	c := v1.Container{Name: name}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// env sets environment variables of the testserver, as "KEY=value".
func env(kvs ...string) containerOpt {
	return func(c *v1.Container) {
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			c.Env = append(c.Env, v1.EnvVar{Name: k, Value: v})
		}
	}
}

// port fixes the container's port (by default each container of a pod gets
// 8080 plus its index).
func port(p int) containerOpt { return env("PORT=" + strconv.Itoa(p)) }

// readiness adds a readiness probe of /ready every second: a sidecar with it
// is ready once the testserver's READY_AFTER has passed.
func readiness() containerOpt {
	return func(c *v1.Container) { c.ReadinessProbe = httpProbe("/ready", 1) }
}

// liveness adds a liveness probe of /healthz every second, failing at once.
func liveness() containerOpt {
	return func(c *v1.Container) { c.LivenessProbe = httpProbe("/healthz", 1) }
}

// httpProbe probes path on the container's port (filled in by createPod).
func httpProbe(path string, failureThreshold int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:     v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: path}},
		PeriodSeconds:    1,
		TimeoutSeconds:   1,
		SuccessThreshold: 1,
		FailureThreshold: failureThreshold,
	}
}

// preStopHook adds an exec preStop hook that logs prestop:hook-start, sleeps
// and logs prestop:hook-end on the container's stdout.
func preStopHook(sleep string, extra ...string) containerOpt {
	return preStop(append([]string{"/testserver", "hook", "--name", "prestop", "--sleep", sleep}, extra...)...)
}

func preStop(cmd ...string) containerOpt {
	return func(c *v1.Container) {
		if c.Lifecycle == nil {
			c.Lifecycle = &v1.Lifecycle{}
		}
		c.Lifecycle.PreStop = &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: cmd}}
	}
}

func postStart(cmd ...string) containerOpt {
	return func(c *v1.Container) {
		if c.Lifecycle == nil {
			c.Lifecycle = &v1.Lifecycle{}
		}
		c.Lifecycle.PostStart = &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: cmd}}
	}
}

// native makes an init container a native sidecar (restartPolicy Always).
func native() containerOpt {
	return func(c *v1.Container) { c.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways) }
}

// mountShared mounts the pod's emptyDir "shared" at /shared.
func mountShared() containerOpt {
	return func(c *v1.Container) {
		c.VolumeMounts = append(c.VolumeMounts, v1.VolumeMount{Name: "shared", MountPath: "/shared"})
	}
}

type podOpt func(*v1.Pod)

func newPod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
		Spec: v1.PodSpec{
			RestartPolicy:                 v1.RestartPolicyNever,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			AutomountServiceAccountToken:  ptr.To(false),
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func containers(cs ...v1.Container) podOpt {
	return func(p *v1.Pod) { p.Spec.Containers = append(p.Spec.Containers, cs...) }
}

func initContainers(cs ...v1.Container) podOpt {
	return func(p *v1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, cs...) }
}

// sidecarsAnnotation names the annotated sidecars, in start order.
func sidecarsAnnotation(value string) podOpt {
	return annotation(sidecars.SidecarsAnnotation, value)
}

func annotation(k, v string) podOpt {
	return func(p *v1.Pod) { p.Annotations[k] = v }
}

func restartPolicy(rp v1.RestartPolicy) podOpt {
	return func(p *v1.Pod) { p.Spec.RestartPolicy = rp }
}

func gracePeriod(seconds int64) podOpt {
	return func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To(seconds) }
}

// held keeps the pod's object after its deletion until the namespace's
// cleanup, so that its final container statuses can be read.
func held() podOpt {
	return func(p *v1.Pod) { p.Finalizers = append(p.Finalizers, holdFinalizer) }
}

func sharedVolume() podOpt {
	return func(p *v1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: "shared", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
	}
}

// completePodSpec pins the pod to the node and fills in what every
// testserver container needs: image, NAME, PORT and the probes' port.
func completePodSpec(spec *v1.PodSpec) {
	spec.NodeName = nodeName
	fill := func(i int, c *v1.Container) {
		c.Image = image
		c.ImagePullPolicy = v1.PullIfNotPresent
		p := 8080 + i
		if v := envValue(c, "PORT"); v != "" {
			p, _ = strconv.Atoi(v)
		} else {
			c.Env = append(c.Env, v1.EnvVar{Name: "PORT", Value: strconv.Itoa(p)})
		}
		if envValue(c, "NAME") == "" {
			c.Env = append(c.Env, v1.EnvVar{Name: "NAME", Value: c.Name})
		}
		for _, probe := range []*v1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
			if probe != nil && probe.HTTPGet != nil && probe.HTTPGet.Port.IntVal == 0 && probe.HTTPGet.Port.StrVal == "" {
				probe.HTTPGet.Port = intstr.FromInt32(int32(p))
			}
		}
	}
	for i := range spec.InitContainers {
		fill(i, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		fill(len(spec.InitContainers)+i, &spec.Containers[i])
	}
}

func envValue(c *v1.Container, key string) string {
	for _, e := range c.Env {
		if e.Name == key {
			return e.Value
		}
	}
	return ""
}

func createPod(ctx context.Context, ns string, pod *v1.Pod) *v1.Pod {
	GinkgoHelper()
	completePodSpec(&pod.Spec)
	created, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating pod %s", pod.Name)
	return created
}

func getPod(ctx context.Context, pod *v1.Pod) *v1.Pod {
	GinkgoHelper()
	p, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return p
}

// release removes holdFinalizer from the pod.
func release(ctx context.Context, pod *v1.Pod) {
	if len(pod.Finalizers) == 0 {
		return
	}
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, err := cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		GinkgoWriter.Printf("releasing pod %s: %v\n", pod.Name, err)
	}
}

// waitPod waits until cond holds for the pod, and returns the pod.
func waitPod(ctx context.Context, pod *v1.Pod, timeout time.Duration, cond func(g Gomega, p *v1.Pod)) *v1.Pod {
	GinkgoHelper()
	var last *v1.Pod
	Eventually(ctx, func(g Gomega) {
		p, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		last = p
		cond(g, p)
	}).WithTimeout(timeout).Should(Succeed(), func() string {
		if last == nil {
			return "no pod"
		}
		return fmt.Sprintf("pod %s phase %s:\n%s\n", last.Name, last.Status.Phase, describeStatuses(last))
	})
	return last
}

// allStatuses lists the init containers' statuses, then the containers'.
func allStatuses(p *v1.Pod) []v1.ContainerStatus {
	return append(append([]v1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
}

// status is the status of the named container (init or not), or nil.
func status(p *v1.Pod, name string) *v1.ContainerStatus {
	for _, st := range allStatuses(p) {
		if st.Name == name {
			return &st
		}
	}
	return nil
}

// longRunning lists the containers that run for the pod's life: the
// containers and the native sidecars.
func longRunning(p *v1.Pod) []string {
	var names []string
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			names = append(names, c.Name)
		}
	}
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// expectRunning checks that the named containers run.
func expectRunning(g Gomega, p *v1.Pod, names ...string) {
	for _, n := range names {
		st := status(p, n)
		g.Expect(st).NotTo(BeNil(), "no status for container %s", n)
		g.Expect(st.State.Running).NotTo(BeNil(), "container %s is not running", n)
	}
}

// allRunning waits for every long-running container to run.
func allRunning(g Gomega, p *v1.Pod) { expectRunning(g, p, longRunning(p)...) }

// allTerminated: every long-running container has terminated.
func allTerminated(p *v1.Pod) bool {
	for _, n := range longRunning(p) {
		st := status(p, n)
		if st == nil || st.State.Terminated == nil {
			return false
		}
	}
	return true
}

// deletePod deletes the pod with its own grace period, and returns when.
func deletePod(ctx context.Context, pod *v1.Pod) time.Time {
	GinkgoHelper()
	at := time.Now()
	Expect(cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(Succeed())
	return at
}

// waitTerminated waits until every long-running container of a deleted pod
// has terminated, and returns the pod (held pods keep their statuses).
func waitTerminated(ctx context.Context, pod *v1.Pod, timeout time.Duration) *v1.Pod {
	GinkgoHelper()
	return waitPod(ctx, pod, timeout, func(g Gomega, p *v1.Pod) {
		g.Expect(allTerminated(p)).To(BeTrue(), "not every container has terminated")
	})
}

// ---------------------------------------------------------------------------
// Timelines: the testserver's log lines.

// logEvent is one line the testserver logged.
type logEvent struct {
	At        time.Time
	Container string
	// Label is the line's event, or "<hook name>:<event>" for hook lines
	// (for example "prestop:hook-start").
	Label string
	Line  string
}

// timeline is a pod's log events, in time order.
type timeline []logEvent

// parseLines adds the testserver lines of one container's log to tl.
func parseLines(tl timeline, container, logs string) timeline {
	for _, line := range strings.Split(logs, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[1], "name=") || !strings.HasPrefix(f[2], "event=") {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil {
			continue
		}
		label := strings.TrimPrefix(f[2], "event=")
		if strings.HasPrefix(label, "hook-") {
			label = strings.TrimPrefix(f[1], "name=") + ":" + label
		}
		tl = append(tl, logEvent{At: at, Container: container, Label: label, Line: line})
	}
	return tl
}

func (tl timeline) sorted() timeline {
	sort.SliceStable(tl, func(i, j int) bool { return tl[i].At.Before(tl[j].At) })
	return tl
}

func (tl timeline) String() string {
	var b strings.Builder
	for _, e := range tl {
		fmt.Fprintf(&b, "%s  %-10s %s\n", e.At.UTC().Format("15:04:05.000000"), e.Container, e.Label)
	}
	return b.String()
}

// all returns the events of the container with the label, in time order.
func (tl timeline) all(container, label string) []logEvent {
	var out []logEvent
	for _, e := range tl {
		if e.Container == container && e.Label == label {
			out = append(out, e)
		}
	}
	return out
}

// point names an event of a timeline: the first (or last) line of a
// container with a label.
type point struct {
	container, label string
	last             bool
}

func first(container, label string) point { return point{container, label, false} }
func last(container, label string) point  { return point{container, label, true} }

func (p point) String() string {
	which := "first"
	if p.last {
		which = "last"
	}
	return fmt.Sprintf("%s %s %q", p.container, which, p.label)
}

func (tl timeline) at(p point) (time.Time, bool) {
	evs := tl.all(p.container, p.label)
	if len(evs) == 0 {
		return time.Time{}, false
	}
	if p.last {
		return evs[len(evs)-1].At, true
	}
	return evs[0].At, true
}

func (tl timeline) mustAt(rule string, p point) time.Time {
	GinkgoHelper()
	t, ok := tl.at(p)
	if !ok {
		failRule(rule, "no %q line in container %s's log\ntimeline seen:\n%s", p.label, p.container, tl)
	}
	return t
}

// expectOrder checks that each point happened at or before the next one.
func (tl timeline) expectOrder(rule string, points ...point) {
	GinkgoHelper()
	for i := 0; i+1 < len(points); i++ {
		a, b := tl.mustAt(rule, points[i]), tl.mustAt(rule, points[i+1])
		if a.After(b) {
			failRule(rule, "want %s at or before %s, but it came %v later\ntimeline seen:\n%s",
				points[i], points[i+1], a.Sub(b), tl)
		}
	}
}

// expectBefore checks that a happened strictly before b.
func (tl timeline) expectBefore(rule string, a, b point) {
	GinkgoHelper()
	ta, tb := tl.mustAt(rule, a), tl.mustAt(rule, b)
	if !ta.Before(tb) {
		failRule(rule, "want %s before %s, but it came %v later\ntimeline seen:\n%s", a, b, ta.Sub(tb), tl)
	}
}

// podTimeline reads the logs of every container of the pod that has
// started, including the previous instance of restarted ones.
func podTimeline(ctx context.Context, p *v1.Pod) timeline {
	var tl timeline
	for _, st := range allStatuses(p) {
		if st.RestartCount > 0 {
			if logs, err := containerLogs(ctx, p, st.Name, true); err == nil {
				tl = parseLines(tl, st.Name, logs)
			}
		}
		if st.State.Running != nil || st.State.Terminated != nil {
			if logs, err := containerLogs(ctx, p, st.Name, false); err == nil {
				tl = parseLines(tl, st.Name, logs)
			}
		}
	}
	return tl.sorted()
}

func containerLogs(ctx context.Context, p *v1.Pod, container string, previous bool) (string, error) {
	b, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &v1.PodLogOptions{Container: container, Previous: previous}).DoRaw(ctx)
	return string(b), err
}

// currentTimeline waits until the pod's logs have the given points, and
// returns its timeline.
func currentTimeline(ctx context.Context, pod *v1.Pod, want ...point) timeline {
	GinkgoHelper()
	var tl timeline
	Eventually(ctx, func(g Gomega) {
		tl = podTimeline(ctx, getPod(ctx, pod))
		for _, p := range want {
			_, ok := tl.at(p)
			g.Expect(ok).To(BeTrue(), "no %s yet", p)
		}
	}).WithTimeout(time.Minute).Should(Succeed(), func() string { return "timeline seen:\n" + tl.String() })
	GinkgoWriter.Printf("timeline of pod %s:\n%s", pod.Name, tl)
	return tl
}

// logFollower follows the logs of a pod's long-running containers while the
// pod terminates: once every container has exited, the kubelet may remove
// them. A stream broken by a kubelet restart is opened again; lines are
// deduplicated.
type logFollower struct {
	mu    sync.Mutex
	lines map[string]map[string]bool // container -> lines
	wg    sync.WaitGroup
}

func followLogs(ctx context.Context, pod *v1.Pod) *logFollower {
	f := &logFollower{lines: map[string]map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	for _, c := range longRunning(pod) {
		f.lines[c] = map[string]bool{}
		f.wg.Add(1)
		go func() {
			defer GinkgoRecover()
			defer f.wg.Done()
			f.follow(ctx, pod, c)
		}()
	}
	return f
}

func (f *logFollower) follow(ctx context.Context, pod *v1.Pod, container string) {
	pods := cs.CoreV1().Pods(pod.Namespace)
	for ctx.Err() == nil {
		if stream, err := pods.GetLogs(pod.Name, &v1.PodLogOptions{Container: container, Follow: true}).Stream(ctx); err == nil {
			f.read(container, stream)
			stream.Close()
		}
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if err == nil {
			if st := status(p, container); st != nil && st.State.Terminated != nil {
				// One last read in case the stream broke before the end.
				if logs, err := containerLogs(ctx, p, container, false); err == nil {
					f.read(container, io.NopCloser(strings.NewReader(logs)))
				}
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (f *logFollower) read(container string, r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		f.mu.Lock()
		f.lines[container][s.Text()] = true
		f.mu.Unlock()
	}
}

// timeline is what the follower has seen so far.
func (f *logFollower) timeline() timeline {
	f.mu.Lock()
	defer f.mu.Unlock()
	var tl timeline
	for c, lines := range f.lines {
		for l := range lines {
			tl = parseLines(tl, c, l)
		}
	}
	return tl.sorted()
}

// wait waits for every container's stream to end (the container has
// terminated or the pod is gone) and returns the timeline.
func (f *logFollower) wait(ctx context.Context, timeout time.Duration) timeline {
	GinkgoHelper()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		Fail(fmt.Sprintf("the containers' log streams did not end within %v; timeline so far:\n%s", timeout, f.timeline()))
	case <-ctx.Done():
	}
	tl := f.timeline()
	GinkgoWriter.Printf("timeline of the termination:\n%s", tl)
	return tl
}

// waitFor waits until the follower has seen a point.
func (f *logFollower) waitFor(ctx context.Context, p point, timeout time.Duration) time.Time {
	GinkgoHelper()
	var at time.Time
	Eventually(ctx, func() bool {
		var ok bool
		at, ok = f.timeline().at(p)
		return ok
	}).WithTimeout(timeout).Should(BeTrue(), func() string { return fmt.Sprintf("no %s; timeline:\n%s", p, f.timeline()) })
	return at
}

// ---------------------------------------------------------------------------
// Container timestamps from the pod status (1 s resolution).

// expectFinishedInOrder checks, from the containers' finishedAt, that each
// group of containers finished strictly after every container of the group
// before it. The API's timestamps have 1 s resolution, so the specs leave at
// least a second between groups.
func expectFinishedInOrder(rule string, p *v1.Pod, groups ...[]string) {
	GinkgoHelper()
	finished := func(name string) time.Time {
		st := status(p, name)
		if st == nil || st.State.Terminated == nil {
			failRule(rule, "container %s has not terminated: %v", name, st)
		}
		return st.State.Terminated.FinishedAt.Time
	}
	var seen []string
	for _, g := range groups {
		for _, n := range g {
			seen = append(seen, fmt.Sprintf("%s %s", n, finished(n).UTC().Format(time.RFC3339)))
		}
	}
	for i := 0; i+1 < len(groups); i++ {
		for _, a := range groups[i] {
			for _, b := range groups[i+1] {
				if !finished(a).Before(finished(b)) {
					failRule(rule, "want container %s to finish before %s; finishedAt seen: %s", a, b, strings.Join(seen, ", "))
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Events.

// podEvents lists the events of the pod with the reason.
func podEvents(ctx context.Context, p *v1.Pod, reason string) []v1.Event {
	GinkgoHelper()
	sel := fields.Set{"involvedObject.uid": string(p.UID), "reason": reason}.AsSelector().String()
	evs, err := cs.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	Expect(err).NotTo(HaveOccurred())
	return evs.Items
}

// eventCount counts occurrences: an aggregated event counts Count times.
func eventCount(evs []v1.Event) int {
	n := 0
	for _, e := range evs {
		n += int(max(e.Count, 1))
		if e.Series != nil {
			n += int(e.Series.Count)
		}
	}
	return n
}

func describeEvents(evs []v1.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, fmt.Sprintf("%s %s x%d: %q", e.Type, e.Reason, max(e.Count, 1), e.Message))
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// expectOneEvent waits for an event of the pod with the reason, then checks
// for a while that there is exactly one, of the type, and that its message
// contains every string of contains.
func expectOneEvent(ctx context.Context, rule string, p *v1.Pod, eventType, reason string, contains ...string) v1.Event {
	GinkgoHelper()
	Eventually(ctx, func() []v1.Event { return podEvents(ctx, p, reason) }).
		WithTimeout(time.Minute).ShouldNot(BeEmpty(), ruleMsg(rule, "no %s event for pod %s", reason, p.Name))
	Consistently(ctx, func() int { return eventCount(podEvents(ctx, p, reason)) }).
		WithTimeout(10*time.Second).Should(Equal(1), func() string {
		msg := fmt.Sprintf("SPEC rule %s: want exactly one %s event for pod %s, saw %s", rule, reason, p.Name, describeEvents(podEvents(ctx, p, reason)))
		if at := kubeletStartedSince(ctx, CurrentSpecReport().StartTime); !at.IsZero() {
			msg += fmt.Sprintf(" (note: a kubelet started at %s, during this spec, not restarted by it; a restarted kubelet may record an event again)",
				at.UTC().Format(time.RFC3339))
		}
		return msg
	})
	e := podEvents(ctx, p, reason)[0]
	if e.Type != eventType {
		failRule(rule, "want a %s event %s, saw %s", eventType, reason, describeEvents([]v1.Event{e}))
	}
	for _, s := range contains {
		if !strings.Contains(e.Message, s) {
			failRule(rule, "want the %s event's message to mention %q, saw %q", reason, s, e.Message)
		}
	}
	return e
}

// ---------------------------------------------------------------------------
// The node's kubelet.

// kubeletStartedSince returns when the node's kubelet last started, if that
// was after t (its "Starting" event), or the zero time.
func kubeletStartedSince(ctx context.Context, t time.Time) time.Time {
	sel := fields.Set{"involvedObject.kind": "Node", "involvedObject.name": nodeName, "reason": "Starting"}.AsSelector().String()
	evs, err := cs.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return time.Time{}
	}
	var last time.Time
	for _, e := range evs.Items {
		at := e.LastTimestamp.Time
		if at.IsZero() {
			at = e.EventTime.Time
		}
		if at.After(t) && at.After(last) {
			last = at
		}
	}
	return last
}

// requireKubeletRestart skips the spec when the suite cannot restart the
// kubelet.
func requireKubeletRestart() {
	if restartCommand == "" {
		Skip("SIDECAR_E2E_KUBELET_RESTART is not set: it names the command that restarts the node's kubelet " +
			"(make e2e sets it to hack/cluster/kubelet-restart.sh for the local cluster)")
	}
}

// restartKubelet runs the restart command with extra environment
// ("KEY=value") and waits until the kubelet is back: it answers /healthz and
// has renewed its node lease since, and the node is Ready.
func restartKubelet(ctx context.Context, extraEnv ...string) {
	GinkgoHelper()
	requireKubeletRestart()
	started := time.Now()
	By(fmt.Sprintf("restarting the kubelet: %s %s", strings.Join(extraEnv, " "), restartCommand))
	out, err := runRestartCommand(ctx, extraEnv)
	Expect(err).NotTo(HaveOccurred(), "restarting the kubelet with %q:\n%s", restartCommand, out)
	GinkgoWriter.Printf("kubelet restart took %v:\n%s\n", time.Since(started).Round(time.Millisecond), out)
	Eventually(ctx, func(g Gomega) {
		body, err := kubeletGet(ctx, "/healthz")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(body)).To(Equal("ok"))
		lease, err := cs.CoordinationV1().Leases("kube-node-lease").Get(ctx, nodeName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
		g.Expect(lease.Spec.RenewTime.After(started)).To(BeTrue(), "node lease not renewed since the restart")
		node, err := cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nodeReady(node)).To(BeTrue(), "node not Ready")
	}).WithTimeout(2*time.Minute).Should(Succeed(), "the kubelet did not come back after %q", restartCommand)
}

// kubeletGet reads a path of the node's kubelet server: through the API
// server's node proxy, or, where the API server refuses to proxy to the
// node's address (a loopback one, as on the local cluster), directly at the
// node's Hostname address with the kubeconfig's credentials.
func kubeletGet(ctx context.Context, path string) ([]byte, error) {
	body, proxyErr := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", nodeName, "proxy", path).DoRaw(ctx)
	if proxyErr == nil {
		return body, nil
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	host := ""
	for _, a := range node.Status.Addresses {
		if a.Type == v1.NodeHostName {
			host = a.Address
		}
	}
	if host == "" {
		return nil, fmt.Errorf("node proxy: %w; and the node has no Hostname address", proxyErr)
	}
	tlsConfig, err := rest.TLSConfigFor(restConfig)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	url := fmt.Sprintf("https://%s%s", net.JoinHostPort(host, strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))), path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node proxy: %w; directly: %w", proxyErr, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, err
}

// runRestartCommand runs the restart command through bash, with the
// suite's environment plus extraEnv, and returns its output.
func runRestartCommand(ctx context.Context, extraEnv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", restartCommand)
	// NODE_NAME: the node the suite runs on, for a command that restarts
	// the kubelet of one node among several (a kind cluster: docker exec
	// "$NODE_NAME" systemctl restart kubelet).
	cmd.Env = append(append(os.Environ(), "NODE_NAME="+nodeName), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// featureEnabled reads the kubelet's kubernetes_feature_enabled metric for
// the gate: 1 or 0, or -1 when the metric does not name it.
func featureEnabled(ctx context.Context, gate string) (int, error) {
	body, err := kubeletGet(ctx, "/metrics")
	if err != nil {
		return -1, fmt.Errorf("reading the kubelet's metrics: %w", err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "kubernetes_feature_enabled{") && strings.Contains(line, `name="`+gate+`"`) {
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				return int(v), nil
			}
		}
	}
	return -1, nil
}

// watchPod watches the pod from before its deletion and returns when
// every long-running container has terminated or the pod is gone.
func watchPod(ctx context.Context, pod *v1.Pod) watch.Interface {
	GinkgoHelper()
	p := getPod(ctx, pod)
	w, err := cs.CoreV1().Pods(pod.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", pod.Name).String(),
		ResourceVersion: p.ResourceVersion,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	return w
}

// untilStopped reads the watch until every long-running container of the
// pod has terminated or the pod is gone, and returns when it saw that.
func untilStopped(ctx context.Context, w watch.Interface, timeout time.Duration) (time.Time, *v1.Pod) {
	GinkgoHelper()
	at, p, ok := stoppedWithin(ctx, w, timeout)
	if !ok {
		Fail(fmt.Sprintf("the pod's containers did not all stop within %v", timeout))
	}
	return at, p
}

// stoppedWithin reads the watch until every long-running container of the
// pod has terminated or the pod is gone, and returns when it saw that, the
// last pod seen, and whether that happened within the timeout.
func stoppedWithin(ctx context.Context, w watch.Interface, timeout time.Duration) (time.Time, *v1.Pod, bool) {
	GinkgoHelper()
	deadline := time.After(timeout)
	var last *v1.Pod
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				Fail("the pod watch closed early")
			}
			p, _ := ev.Object.(*v1.Pod)
			switch {
			case p == nil:
			case ev.Type == watch.Deleted:
				return time.Now(), last, true
			default:
				last = p
				if allTerminated(p) {
					return time.Now(), p, true
				}
			}
		case <-deadline:
			return time.Time{}, last, false
		case <-ctx.Done():
			Fail("interrupted")
		}
	}
}
