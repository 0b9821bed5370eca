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

package kuberuntime

// sidecar-kubelet's tests of the termination order of annotated sidecars, in
// the harness of kuberuntime_sidecar_test.go, on the
// testing/synctest clock.
import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/utils/ptr"
)

// stopRecorder wraps the fake runtime to record, in order and on the
// synctest clock, when each container's preStop hook ran and when each
// container was signalled, with which timeout. A container takes its
// stopDelay to exit after the signal, at most its timeout (then it is
// killed); forever means it ignores SIGTERM.
type stopRecorder struct {
	internalapi.RuntimeService
	fake      *apitest.FakeRuntimeService
	start     time.Time
	stopDelay map[string]time.Duration
	// hookDelay is how long a container's preStop hook runs; a cancelled
	// context aborts it, as it aborts an exec.
	hookDelay map[string]time.Duration
	// exitAfterFirstStatus names the containers (name/attempt) that exit
	// right after the first read of their status: one started again is seen
	// running after its start and exits before the kill watches it, so the
	// stop event of its exit reaches no kill.
	exitAfterFirstStatus map[string]bool

	mu  sync.Mutex
	log []string
}

func (r *stopRecorder) name(id string) string {
	r.fake.Lock()
	defer r.fake.Unlock()
	return r.fake.Containers[id].Metadata.Name
}

func (r *stopRecorder) record(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf(format, args...)+fmt.Sprintf(" at %s", time.Since(r.start)))
}

func (r *stopRecorder) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) ([]byte, []byte, error) {
	name := r.name(id)
	r.record("preStop %s", name)
	if delay := r.hookDelay[name]; delay > 0 {
		select {
		case <-time.After(delay):
			r.record("preStop %s done", name)
		case <-ctx.Done():
			r.record("preStop %s aborted", name)
			return nil, nil, ctx.Err()
		}
	}
	return r.RuntimeService.ExecSync(ctx, id, cmd, timeout)
}

func (r *stopRecorder) ContainerStatus(ctx context.Context, id string, verbose bool) (*runtimeapi.ContainerStatusResponse, error) {
	resp, err := r.RuntimeService.ContainerStatus(ctx, id, verbose)
	if err != nil {
		return resp, err
	}
	r.fake.Lock()
	defer r.fake.Unlock()
	c := r.fake.Containers[id]
	if key := fmt.Sprintf("%s/%d", c.Metadata.Name, c.Metadata.Attempt); r.exitAfterFirstStatus[key] {
		delete(r.exitAfterFirstStatus, key)
		exitFakeContainer(c, 1)
	}
	return resp, nil
}

func (r *stopRecorder) StopContainer(ctx context.Context, id string, timeout int64) error {
	name := r.name(id)
	r.record("signal %s timeout=%ds", name, timeout)
	time.Sleep(min(r.stopDelay[name], time.Duration(timeout)*time.Second))
	return r.RuntimeService.StopContainer(ctx, id, timeout)
}

// killSidecarPod runs a pod with apps app1 and app2, annotated sidecars a
// and b (in that start order) and the native sidecar n, every container
// with an exec preStop hook, and kills it.
func killSidecarPod(t *testing.T, grace int64, stopDelay map[string]time.Duration) []string {
	preStop := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}
	container := func(name string) v1.Container {
		return v1.Container{Name: name, Image: "busybox", Lifecycle: preStop}
	}
	native := container("n")
	native.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "12345678", Name: "sidecars", Namespace: "new",
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "a,b"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(grace),
			InitContainers:                []v1.Container{native},
			Containers:                    []v1.Container{container("app1"), container("a"), container("b"), container("app2")},
		},
	}
	s := newSidecarTest(t, pod, true)
	setSidecarFakePod(s, pod)
	// As the pod's first sync does (the kill below comes without one).
	runningPod, err := s.runningPod()
	require.NoError(t, err)

	recorder := &stopRecorder{RuntimeService: s.m.runtimeService, fake: s.runtime, start: time.Now(), stopDelay: stopDelay}
	s.m.runtimeService = recorder
	require.NoError(t, s.m.KillPod(s.tCtx, pod, *runningPod, nil))
	return recorder.log
}

// sortedWithin sorts the entries of the log that happen at the same time,
// whose order the goroutines of KillPod leave open.
func sortedWithin(log []string) []string {
	at := func(entry string) string { return entry[strings.LastIndex(entry, " at "):] }
	out := slices.Clone(log)
	slices.SortStableFunc(out, func(a, b string) int {
		if at(a) != at(b) {
			return 0
		}
		return strings.Compare(a, b)
	})
	return out
}

func TestSidecarTerminationOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The apps take a second to exit after SIGTERM.
		log := killSidecarPod(t, 30, map[string]time.Duration{"app1": time.Second, "app2": time.Second})
		// App containers and the native sidecar run their preStop hooks at
		// once and the apps are signalled; once they have exited, b, then a,
		// each with its preStop hook at its turn; then n.
		requireDiff(t, sortedWithin([]string{
			"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s",
			"signal app1 timeout=30s at 0s", "signal app2 timeout=30s at 0s",
		}), sortedWithin(log[:5]), "parallel start of termination")
		requireDiff(t, []string{
			"preStop b at 1s", "signal b timeout=29s at 1s",
			"preStop a at 1s", "signal a timeout=29s at 1s",
			"signal n timeout=29s at 1s",
		}, log[5:], "sidecars in reverse order, preStop at their turn")
	})
}

func TestSidecarTerminationWaitsForSlowApps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// app2 takes 5 seconds to drain: the sidecars wait for it, then get
		// their turn with what remains of the grace period.
		log := killSidecarPod(t, 30, map[string]time.Duration{"app2": 5 * time.Second})
		requireDiff(t, []string{
			"preStop b at 5s", "signal b timeout=25s at 5s",
			"preStop a at 5s", "signal a timeout=25s at 5s",
			"signal n timeout=25s at 5s",
		}, log[len(log)-5:], "the sidecars stop in turn once app2 is gone")
	})
}

func TestSidecarTerminationKeepsOneDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Every container ignores SIGTERM. The apps use the whole grace
		// period; then the deadline has passed, so every sidecar still
		// running gets its preStop hook, which no termination skips, and
		// is signalled at once with the 2-second minimum.
		start := time.Now()
		forever := time.Hour
		log := killSidecarPod(t, 10, map[string]time.Duration{"app1": forever, "app2": forever, "a": forever, "b": forever, "n": forever})
		requireDiff(t, sortedWithin([]string{
			"preStop a at 10s", "preStop b at 10s",
			"signal a timeout=2s at 10s",
			"signal b timeout=2s at 10s",
			"signal n timeout=2s at 10s",
		}), sortedWithin(log[len(log)-5:]), "after the deadline, in parallel, with 2 seconds")
		if took := time.Since(start); took > 12*time.Second {
			t.Errorf("the pod took %s to stop, more than its grace period plus 2 seconds", took)
		}
	})
}

// cancellableStopRecorder is stopRecorder whose StopContainer returns when
// its context is cancelled, as a CRI call does.
type cancellableStopRecorder struct {
	*stopRecorder
}

func (r cancellableStopRecorder) StopContainer(ctx context.Context, id string, timeout int64) error {
	if err := ctx.Err(); err != nil {
		// A CRI call on a cancelled context is not sent.
		return err
	}
	name := r.name(id)
	r.record("signal %s timeout=%ds", name, timeout)
	select {
	case <-time.After(min(r.stopDelay[name], time.Duration(timeout)*time.Second)):
	case <-ctx.Done():
		r.record("cancelled %s", name)
		return ctx.Err()
	}
	return r.stopRecorder.RuntimeService.StopContainer(ctx, id, timeout)
}

// orderedKillTest runs the pod of killSidecarPod, every container ignoring
// SIGTERM, and kills it as the kubelet does, with a context that the test
// may cancel.
type orderedKillTest struct {
	s        *sidecarTest
	recorder cancellableStopRecorder
	running  *kubecontainer.Pod
}

func newOrderedKillTest(t *testing.T, grace int64) *orderedKillTest {
	preStop := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}
	container := func(name string) v1.Container {
		return v1.Container{Name: name, Image: "busybox", Lifecycle: preStop}
	}
	native := container("n")
	native.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "12345678", Name: "sidecars", Namespace: "new",
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "a,b"}},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(grace),
			InitContainers:                []v1.Container{native},
			Containers:                    []v1.Container{container("app1"), container("a"), container("b"), container("app2")},
		},
	}
	s := newSidecarTest(t, pod, true)
	setSidecarFakePod(s, pod)
	// As the pod's first sync does (the kills below come without one).
	running, err := s.runningPod()
	require.NoError(t, err)
	forever := time.Hour
	recorder := cancellableStopRecorder{&stopRecorder{RuntimeService: s.m.runtimeService, fake: s.runtime, start: time.Now(),
		stopDelay: map[string]time.Duration{"app1": forever, "app2": forever, "a": forever, "b": forever, "n": forever}}}
	s.m.runtimeService = recorder
	return &orderedKillTest{s: s, recorder: recorder, running: running}
}

// deleted returns the pod as the API server has it after a delete with the
// grace period, now.
func (k *orderedKillTest) deleted(grace int64) *v1.Pod {
	pod := k.s.pod.DeepCopy()
	pod.DeletionTimestamp = ptr.To(metav1.NewTime(time.Now().Add(time.Duration(grace) * time.Second)))
	pod.DeletionGracePeriodSeconds = ptr.To(grace)
	return pod
}

func (k *orderedKillTest) log() []string {
	k.recorder.mu.Lock()
	defer k.recorder.mu.Unlock()
	return append([]string(nil), k.recorder.log...)
}

// TestShorterGracePeriodInterruptsOrderedTermination checks contract rule 13
// for a second delete with a shorter grace period: the pod worker cancels
// the ordered termination, which returns at once without signalling the
// sidecars out of turn, and the termination it starts again ends by the
// new deadline plus 2 seconds, without running any preStop hook twice.
// Before the fix the first termination went on waiting for its 60 seconds.
func TestShorterGracePeriodInterruptsOrderedTermination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		k := newOrderedKillTest(t, 60)
		ctx, cancel := context.WithCancel(k.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- k.s.m.KillPod(ctx, k.deleted(60), *k.running, nil) }()

		time.Sleep(2 * time.Second)
		cancel()
		select {
		case err := <-first:
			require.ErrorContains(t, err, "context canceled")
		case <-time.After(time.Second):
			t.Fatalf("the first termination did not return when cancelled: %q", k.log())
		}
		require.Equal(t, 2*time.Second, time.Since(start), "returned at once")
		requireDiff(t, sortedWithin([]string{
			"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s",
			"signal app1 timeout=60s at 0s", "signal app2 timeout=60s at 0s",
			"cancelled app1 at 2s", "cancelled app2 at 2s",
		}), sortedWithin(k.log()), "the sidecars are neither hooked nor signalled out of turn")

		before := len(k.log())
		require.NoError(t, k.s.m.KillPod(k.s.tCtx, k.deleted(2), *k.running, nil))
		requireDiff(t, sortedWithin([]string{
			"signal app1 timeout=2s at 2s", "signal app2 timeout=2s at 2s",
			"preStop b at 4s", "preStop a at 4s",
			"signal b timeout=2s at 4s", "signal a timeout=2s at 4s", "signal n timeout=2s at 4s",
		}), sortedWithin(k.log()[before:]), "no completed preStop hook again, the sidecars' at their turn; the new deadline, then 2 seconds")
		if took := time.Since(start); took > 6*time.Second {
			t.Errorf("the pod took %s, more than the second delete's grace period plus 2 seconds after it", took)
		}
	})
}

// TestRestartedTerminationKeepsTheDeadlineAndRunsNoHookTwice checks contract
// rule 13 across a kubelet restart in the middle of a termination: the
// restarted kubelet's termination keeps the deadline recorded in the pod's
// directory rather than starting the grace period over, and runs no preStop
// hook that completed a second time (that record is in the pod's directory
// too, not in the kubelet's memory). Before the fix the hooks ran again and
// the grace period started over.
func TestRestartedTerminationKeepsTheDeadlineAndRunsNoHookTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		k := newOrderedKillTest(t, 10)
		deleted := k.deleted(10)
		ctx, cancel := context.WithCancel(k.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- k.s.m.KillPod(ctx, deleted, *k.running, nil) }()
		// The kubelet stops 3 seconds into the termination.
		time.Sleep(3 * time.Second)
		cancel()
		<-first
		entries, err := os.ReadDir(filepath.Join(k.s.m.runtimeHelper.GetPodDir(deleted.UID), "sidecar-kubelet-prestop"))
		require.NoError(t, err)
		require.Len(t, entries, 3, "the hooks run so far are recorded on disk")

		// The restarted kubelet terminates the pod again.
		before := len(k.log())
		require.NoError(t, k.s.m.KillPod(k.s.tCtx, deleted, *k.running, nil))
		requireDiff(t, sortedWithin([]string{
			"signal app1 timeout=7s at 3s", "signal app2 timeout=7s at 3s",
			"preStop b at 10s", "preStop a at 10s",
			"signal b timeout=2s at 10s", "signal a timeout=2s at 10s", "signal n timeout=2s at 10s",
		}), sortedWithin(k.log()[before:]), "the recorded deadline, no completed hook again, the sidecars' at their turn")
		if took := time.Since(start); took > 12*time.Second {
			t.Errorf("the pod took %s, more than its grace period plus 2 seconds", took)
		}
	})
}
