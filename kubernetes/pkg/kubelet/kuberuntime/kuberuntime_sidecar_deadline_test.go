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

// sidecar-kubelet's tests of the one deadline of an ordered termination on
// the node's clock, and of preStop hooks delivered at least once (contract rule
// 13), in upstream's fake-runtime harness on the synctest clock.

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// deadlineTest is a pod of apps app1 and app2, annotated sidecars a and b
// (start order a, b) and the native sidecar n, each with a preStop hook,
// running against the fake runtime; stopDelay and hookDelay say how long
// each container takes to exit after SIGTERM and how long its hook runs.
type deadlineTest struct {
	s        *sidecarTest
	recorder cancellableStopRecorder
	running  *kubecontainer.Pod
}

func newDeadlineTest(t *testing.T, annotations map[string]string, grace int64, stopDelay, hookDelay map[string]time.Duration) *deadlineTest {
	preStop := &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"drain"}}}}
	container := func(name string) v1.Container {
		return v1.Container{Name: name, Image: "busybox", Lifecycle: preStop}
	}
	native := container("n")
	native.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "12345678", Name: "sidecars", Namespace: "new", Annotations: annotations},
		Spec: v1.PodSpec{
			RestartPolicy:                 v1.RestartPolicyNever,
			TerminationGracePeriodSeconds: ptr.To(grace),
			InitContainers:                []v1.Container{native},
			Containers:                    []v1.Container{container("app1"), container("a"), container("b"), container("app2")},
		},
	}
	s := newSidecarTest(t, pod, true)
	setSidecarFakePod(s, pod)
	running, err := s.runningPod()
	require.NoError(t, err)
	recorder := cancellableStopRecorder{&stopRecorder{RuntimeService: s.m.runtimeService, fake: s.runtime, start: time.Now(),
		stopDelay: stopDelay, hookDelay: hookDelay}}
	s.m.runtimeService = recorder
	return &deadlineTest{s: s, recorder: recorder, running: running}
}

// deleted returns the pod as the API server has it after a delete with the
// grace period, its deletionTimestamp skew earlier than the node's clock
// says it is now (the API server's clock behind the node's, or the time
// the delete took to reach the kubelet).
func (d *deadlineTest) deleted(grace int64, skew time.Duration) *v1.Pod {
	pod := d.s.pod.DeepCopy()
	pod.DeletionTimestamp = ptr.To(metav1.NewTime(time.Now().Add(time.Duration(grace)*time.Second - skew)))
	pod.DeletionGracePeriodSeconds = ptr.To(grace)
	return pod
}

func (d *deadlineTest) log() []string {
	d.recorder.mu.Lock()
	defer d.recorder.mu.Unlock()
	return append([]string(nil), d.recorder.log...)
}

var sidecarsAB = map[string]string{"sidecar-kubelet.io/sidecars": "a,b"}

// TestClockSkewCostsNoGrace: the API server's clock is a minute behind
// the node's, so the pod's deletionTimestamp is already past by the node's
// clock when the kubelet learns of the delete. The pod still gets its whole
// grace period on the node's clock: every hook runs and the sidecars stop in
// turn. Before the fix the deadline was the deletionTimestamp: no hook ran
// and every container was signalled at once, with 2 seconds.
func TestClockSkewCostsNoGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeadlineTest(t, sidecarsAB, 30, map[string]time.Duration{"app1": time.Second, "app2": time.Second}, nil)
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(30, time.Minute), *d.running, nil))
		requireDiff(t, sortedWithin([]string{
			"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s",
			"signal app1 timeout=30s at 0s", "signal app2 timeout=30s at 0s",
			"preStop b at 1s", "signal b timeout=29s at 1s",
			"preStop a at 1s", "signal a timeout=29s at 1s",
			"signal n timeout=29s at 1s",
		}), sortedWithin(d.log()), "the grace period on the node's clock, whatever the API server's says")
	})
}

// TestGraceOneRunsTheAppsPreStopHooks: with a grace period of 1 second
// (kubectl delete --grace-period=1, a hard eviction's minimum) the apps'
// and the native sidecar's preStop hooks still run, as upstream runs them,
// and the pod is gone within its grace period plus 2 seconds. The kubelet
// learns of the delete 100 ms after the API server wrote it. Before the fix
// the hooks' budget, what was left until the deletionTimestamp, was rounded
// down to 0 seconds and none ran.
func TestGraceOneRunsTheAppsPreStopHooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		d := newDeadlineTest(t, sidecarsAB, 1, nil, nil)
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(1, 100*time.Millisecond), *d.running, nil))
		log := d.log()
		require.Subset(t, log, []string{"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s"}, "the hooks run: %q", log)
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("the pod took %s, more than its grace period plus 2 seconds", took)
		}
	})
}

// TestShorterGraceBoundsARunningHook: app1's preStop hook takes 12 seconds;
// 4 seconds into a termination with grace period 60, a second delete asks
// for 40. The hook is neither aborted nor run again: app1 is signalled when
// it returns, and the deadline is the second delete's (4 + 40 = 44 s).
// Before the fix the pod worker's cancellation aborted the hook, and its
// record kept it from running again: app1 was signalled at 4 seconds.
func TestShorterGraceBoundsARunningHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeadlineTest(t, sidecarsAB, 60, nil, map[string]time.Duration{"app1": 12 * time.Second})
		ctx, cancel := context.WithCancel(d.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- d.s.m.KillPod(ctx, d.deleted(60, 0), *d.running, nil) }()
		time.Sleep(4 * time.Second)
		cancel()
		<-first

		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(40, 0), *d.running, nil))
		requireDiff(t, sortedWithin([]string{
			"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s",
			"signal app2 timeout=60s at 0s",
			"signal app2 timeout=40s at 4s",
			"preStop app1 done at 12s", "signal app1 timeout=32s at 12s",
			"preStop b at 12s", "signal b timeout=32s at 12s",
			"preStop a at 12s", "signal a timeout=32s at 12s",
			"signal n timeout=32s at 12s",
		}), sortedWithin(d.log()), "the hook runs once, to its end; the second delete's deadline")
	})
}

// TestKubeletRestartRunsAnInterruptedHookAgain: sidecar a's preStop hook
// takes 8 seconds; the kubelet restarts 3 seconds into it. The restarted
// kubelet, which knows no hook under way, runs it again (hooks are
// delivered at least once), within the deadline recorded before the
// restart. Before the fix the hook counted as run from its start, and a
// was signalled at once.
func TestKubeletRestartRunsAnInterruptedHookAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDeadlineTest(t, sidecarsAB, 30, map[string]time.Duration{"a": time.Hour, "n": time.Hour}, map[string]time.Duration{"a": 8 * time.Second})
		ctx, cancel := context.WithCancel(d.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- d.s.m.KillPod(ctx, d.deleted(30, 0), *d.running, nil) }()
		time.Sleep(3 * time.Second)
		// The kubelet stops: its termination ends, and what it knew of the
		// hooks under way goes with it.
		cancel()
		<-first
		d.s.m.sidecarHooks.mu.Lock()
		d.s.m.sidecarHooks.running = nil
		d.s.m.sidecarHooks.mu.Unlock()

		before := len(d.log())
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(30, 0), *d.running, nil))
		after := d.log()[before:]
		require.Contains(t, after, "preStop a at 3s", "the interrupted hook runs again: %q", after)
		require.Contains(t, after, "signal a timeout=19s at 11s", "a is signalled once the hook returns, with what is left of the recorded deadline: %q", after)
	})
}

// TestJobStopGivesWayToADelete: the app of a restartPolicy Never pod is
// done, and the sync that stops the sidecars waits on sidecar a's preStop
// hook, which takes 100 seconds. A delete with grace period 5 comes 2
// seconds later: the pod worker's context cancels the stop at once, and the
// termination it starts ends by the new deadline (2 + 5 s) plus 2 seconds.
// Before the fix the stop ran on a context nothing cancelled, with the pod's
// 30 seconds.
func TestJobStopGivesWayToADelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		d := newDeadlineTest(t, sidecarsAB, 30, map[string]time.Duration{"a": time.Hour, "n": time.Hour}, map[string]time.Duration{"a": 100 * time.Second})
		d.s.exit("app1", 0, 0)
		d.s.exit("app2", 0, 0)
		podWorker, cancel := context.WithCancel(d.s.tCtx)
		synced := make(chan struct{})
		go func() {
			defer close(synced)
			d.s.m.SyncPod(WithTerminationInterrupt(context.WithoutCancel(d.s.tCtx), podWorker), d.s.pod, d.s.status(), nil, d.s.backOff, false)
		}()
		time.Sleep(2 * time.Second)
		require.Contains(t, d.log(), "preStop a at 0s", "the sync stops the sidecars")
		cancel()
		select {
		case <-synced:
		case <-time.After(time.Second):
			t.Fatalf("the sync did not give way to the delete: %q", d.log())
		}
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(5, 0), *d.running, nil))
		if took := time.Since(start); took > 9*time.Second {
			t.Errorf("the pod took %s, more than the delete's grace period plus 2 seconds after it", took)
		}
		// A real hook ends with its container; the fake's runs its length.
		time.Sleep(100 * time.Second)
	})
}

// TestNativeWaitReadyFollowsAShorterGrace: a pod whose only ordering is
// wait-ready for its native sidecar, every container ignoring SIGTERM, is
// deleted with grace period 60 and, 2 seconds later, with 2. The first
// termination gives way at once and the pod is gone 2 + 2 + 2 seconds after
// the first delete. Before the fix such a pod took upstream's termination,
// which waits out the first grace period.
func TestNativeWaitReadyFollowsAShorterGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		forever := time.Hour
		d := newDeadlineTest(t, map[string]string{"sidecar-kubelet.io/wait-ready": "true"}, 60,
			map[string]time.Duration{"app1": forever, "app2": forever, "a": forever, "b": forever, "n": forever}, nil)
		ctx, cancel := context.WithCancel(d.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- d.s.m.KillPod(ctx, d.deleted(60, 0), *d.running, nil) }()
		time.Sleep(2 * time.Second)
		cancel()
		select {
		case <-first:
		case <-time.After(time.Second):
			t.Fatalf("the first termination did not give way: %q", d.log())
		}
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(2, 0), *d.running, nil))
		if took := time.Since(start); took > 6*time.Second {
			t.Errorf("the pod took %s, more than the second delete's grace period plus 2 seconds after it", took)
		}
	})
}

// The termination record counts on the node's boot clock, which a
// testing/synctest bubble does not fake: these tests read it from the
// bubble's clock, less bootClockLag, which a test sets to make the wall
// clock (time.Now) step while the boot clock does not.
var bootClockLag time.Duration

func init() {
	readBootClock = func() (sidecars.BootClock, error) {
		return sidecars.BootClock{BootID: "test-boot", SinceBoot: time.Duration(time.Now().UnixNano()) - bootClockLag}, nil
	}
}

// TestSidecarPreStopRunsAtTheDeadline checks contract rule 13's at-least-once
// hooks when the apps use the whole grace period: the apps ignore SIGTERM,
// so the sidecars' turn comes at the deadline (6 s). Each sidecar's preStop
// hook still runs, for upstream's minimum of 2 seconds, and the sidecars are
// stopped at once, in parallel, with that minimum. Before the fix the
// hooks were skipped: a proxy's drain hook was lost exactly when
// termination was hurried.
func TestSidecarPreStopRunsAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forever := time.Hour
		d := newDeadlineTest(t, sidecarsAB, 6, map[string]time.Duration{"app1": forever, "app2": forever}, map[string]time.Duration{"b": 10 * time.Second})
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(6, 0), *d.running, nil))
		// A real hook ends with its container; the fake's runs its length.
		time.Sleep(10 * time.Second)
		requireDiff(t, sortedWithin([]string{
			"preStop app1 at 0s", "preStop app2 at 0s", "preStop n at 0s",
			"signal app1 timeout=6s at 0s", "signal app2 timeout=6s at 0s",
			"preStop a at 6s", "preStop b at 6s",
			"signal a timeout=2s at 6s", "signal n timeout=2s at 6s",
			"signal b timeout=2s at 8s", "preStop b done at 16s",
		}), sortedWithin(d.log()), "every sidecar's hook runs at the deadline, b's bounded by 2 seconds")
	})
}

// TestDeadlineSurvivesAWallClockStepAndARestart checks contract rule 13's one
// deadline on a clock that does not step: a termination with grace period
// 30 is interrupted 4 seconds in by a kubelet restart, during which the
// node's wall clock steps an hour forward. The restarted kubelet keeps the
// 26 seconds left. Before the fix the record held the wall clock's time:
// the deadline had passed an hour ago and every container was signalled at
// once, with 2 seconds (a step back would have given the pod an hour).
func TestDeadlineSurvivesAWallClockStepAndARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forever := time.Hour
		t.Cleanup(func() { bootClockLag = 0 })
		d := newDeadlineTest(t, sidecarsAB, 30, map[string]time.Duration{"app1": forever, "app2": forever}, nil)
		ctx, cancel := context.WithCancel(d.s.tCtx)
		first := make(chan error, 1)
		go func() { first <- d.s.m.KillPod(ctx, d.deleted(30, 0), *d.running, nil) }()
		time.Sleep(4 * time.Second)
		cancel()
		<-first
		// The kubelet is down while the wall clock steps an hour forward;
		// the boot clock does not step.
		time.Sleep(time.Hour)
		bootClockLag = time.Hour

		before := len(d.log())
		require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(30, 0), *d.running, nil))
		after := d.log()[before:]
		require.Contains(t, after, "signal app1 timeout=26s at 1h0m4s", "the apps get what is left of the deadline: %q", after)
	})
}

// TestTerminationFixSwitchesAlone checks the feature gate
// SidecarTerminationFix, which turns the termination fix off alone. A
// termination with grace period 30, whose apps ignore SIGTERM, is cut short
// 4 seconds in (a kubelet restart), after the apps' and the native
// sidecar's hooks completed; the next kill follows. With the fix, the next
// kill keeps the deadline (26 s left) and runs no completed hook again, and
// a shorter grace period interrupts a kill. Without it the order stays but
// the rest is upstream's: the next kill counts 30 s from its own start and
// runs the hooks again, and nothing interrupts a kill.
func TestTerminationFixSwitchesAlone(t *testing.T) {
	for _, tc := range []struct {
		fix       bool
		wantAfter []string
		notAfter  []string
	}{
		{fix: true, wantAfter: []string{"signal app1 timeout=26s at 4s"}, notAfter: []string{"preStop app1 at 4s", "preStop n at 4s"}},
		{fix: false, wantAfter: []string{"preStop app1 at 4s", "preStop n at 4s", "signal app1 timeout=30s at 4s"}},
	} {
		t.Run(fmt.Sprintf("fix %v", tc.fix), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				forever := time.Hour
				d := newDeadlineTest(t, sidecarsAB, 30, map[string]time.Duration{"app1": forever, "app2": forever}, nil)
				featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarTerminationFix, tc.fix)
				ctx, cancel := context.WithCancel(d.s.tCtx)
				first := make(chan error, 1)
				go func() { first <- d.s.m.KillPod(ctx, d.deleted(30, 0), *d.running, nil) }()
				time.Sleep(4 * time.Second)
				cancel()
				<-first

				before := len(d.log())
				require.NoError(t, d.s.m.KillPod(d.s.tCtx, d.deleted(30, 0), *d.running, nil))
				after := d.log()[before:]
				require.Subset(t, after, tc.wantAfter, "the next kill: %q", after)
				for _, entry := range tc.notAfter {
					require.NotContains(t, after, entry, "the next kill: %q", after)
				}

				interrupt, cancelInterrupt := context.WithCancel(d.s.tCtx)
				cancelInterrupt()
				killCtx, stop := InterruptibleTermination(d.s.tCtx, interrupt)
				defer stop()
				synctest.Wait() // context.AfterFunc cancels in a goroutine
				require.Equal(t, tc.fix, killCtx.Err() != nil, "a shorter grace period interrupts the kill")
			})
		})
	}
}

// TestInPlaceRestartStartsANewTermination: a termination of the pod was
// cut short (a kubelet restart), which left its deadline recorded; the pod
// is then restarted in place (KEP-5532's RestartAllContainers, beta and on
// by default from v1.36), which keeps the sandbox and the pod's directory.
// Its next termination must be a new one, so the record goes with the
// containers. Before the fix it stayed, and the next termination took its
// deadline, long past: every container was signalled at once.
func TestInPlaceRestartStartsANewTermination(t *testing.T) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.ContainerRestartRules: true, features.NodeDeclaredFeatures: true, features.RestartAllContainersOnContainerExits: true})
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyAlways), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started in order")
	s.m.terminationDeadline(s.tCtx, s.pod, time.Now(), 30*time.Second)
	record := filepath.Join(s.m.runtimeHelper.GetPodDir(s.pod.UID), terminationRecord)
	require.FileExists(t, record, "the cut-short termination's deadline")

	result := s.m.SyncPod(s.tCtx, s.pod, s.status(), nil, s.backOff, true)
	require.NoError(t, result.Error())
	requireDiff(t, []string(nil), s.containers(), "every container removed, the sandbox kept")
	require.NoFileExists(t, record, "the pod restarted in place: its next kill is a new termination")
}
