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

// sidecar-kubelet's tests of the start of annotated sidecars, in the harness
// of kuberuntime_sidecar_test.go.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

func heldFor(result kubecontainer.PodSyncResult) map[string]string {
	held := map[string]string{}
	for _, r := range result.SyncResults {
		if r.Action == kubecontainer.StartContainer && r.Error == kubecontainer.ErrSidecarsNotReady {
			held[r.Target.(string)] = r.Message
		}
	}
	return held
}

func TestSidecarsStartInOrderAndAppsWaitUntilReady(t *testing.T) {
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyAlways), true)

	result := s.sync()
	requireDiff(t, []string{"proxy/0/RUNNING"}, s.containers(), "first sync starts the first sidecar only")
	requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "held app containers")

	result = s.sync()
	requireDiff(t, []string{"proxy/0/RUNNING"}, s.containers(), "proxy running but not ready: nothing else starts")
	requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "held app containers")

	s.setReady("proxy", 0)
	result = s.sync()
	requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "proxy ready: the next sidecar starts")
	requireDiff(t, map[string]string{"app": `waiting for sidecar "logs" to be ready`}, heldFor(result), "held app containers")

	// logs has no probe: running is ready, so the app starts in this sync.
	result = s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "every sidecar ready: the app starts")
	requireDiff(t, map[string]string{}, heldFor(result), "held app containers")

	// A sidecar that turns not ready after the apps started holds nobody.
	s.m.readinessManager.Set(kubecontainer.ContainerID{Type: apitest.FakeRuntimeName, ID: s.containerID("proxy", 0)}, proberesults.Failure, s.pod)
	s.exit("app", 0, 1)
	s.sync()
	requireDiff(t, []string{"app/0/EXITED", "app/1/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "the app restarts without waiting")
}

func TestSidecarCrashingBeforeReadyIsRestartedUnderNever(t *testing.T) {
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyNever), true)
	s.sync()
	s.exit("proxy", 0, 1)

	result := s.sync()
	requireDiff(t, []string{"proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(), "the sidecar is restarted although restartPolicy is Never")
	requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "the app still waits")

	s.exit("proxy", 1, 1)
	result = s.sync()
	requireDiff(t, []string{"proxy/0/EXITED", "proxy/1/EXITED"}, s.containers(), "crash-loop back-off applies")
	require.ErrorContains(t, result.Error(), "CrashLoopBackOff")
	requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "the app still waits")
}

func TestSidecarExitingWhileAppsRunIsRestartedUnderNever(t *testing.T) {
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyNever), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started")

	s.exit("logs", 0, 2)
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/EXITED", "logs/1/RUNNING", "proxy/0/RUNNING"}, s.containers(), "the sidecar is restarted")
}

func TestJobCompletionStopsSidecars(t *testing.T) {
	for _, tc := range []struct {
		restartPolicy v1.RestartPolicy
		appExitCode   int32
		wantRestart   bool
	}{
		{v1.RestartPolicyNever, 0, false},
		{v1.RestartPolicyNever, 1, false},
		{v1.RestartPolicyOnFailure, 0, false},
		{v1.RestartPolicyOnFailure, 1, true},
	} {
		t.Run(fmt.Sprintf("%s/exit %d", tc.restartPolicy, tc.appExitCode), func(t *testing.T) {
			s := newSidecarTest(t, sidecarPod(tc.restartPolicy), true)
			s.sync()
			s.setReady("proxy", 0)
			s.sync()
			s.sync()
			s.exit("app", 0, tc.appExitCode)

			actions := s.m.computePodActions(s.tCtx, s.pod, s.status(), false)
			if tc.wantRestart {
				require.False(t, actions.KillPod, "the app will restart: the pod is not done")
				requireDiff(t, []int{0}, actions.ContainersToStart, "the app restarts without waiting")
				return
			}
			require.True(t, actions.KillPod, "the app is done: the pod is killed")
			require.Empty(t, actions.ContainersToStart)

			s.sync()
			requireDiff(t, []string{"app/0/EXITED", "logs/0/EXITED", "proxy/0/EXITED"}, s.containers(), "the sidecars are stopped")
		})
	}
}

func TestInvalidSidecarAnnotationRunsThePodAsUpstream(t *testing.T) {
	pod := sidecarPod(v1.RestartPolicyAlways)
	pod.Annotations["sidecar-kubelet.io/sidecars"] = "proxy,,nope"
	s := newSidecarTest(t, pod, true)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "every container starts at once")
}

// TestSidecarOrderingGateOffIsUpstream checks contract rule 19's gate off: no
// layout decided, none of the fork's events, and the sandbox created with the
// pod's annotations as they are, so that an app reading them through the
// downward API sees what upstream shows. Before the fix the gate off
// recorded SidecarAnnotationChanged ("...added") on the first sync and
// created the sandbox from a copy of the pod without the annotation.
func TestSidecarOrderingGateOffIsUpstream(t *testing.T) {
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyAlways), false)
	result := s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "every container starts at once")
	requireDiff(t, map[string]string{}, heldFor(result), "nothing is held")
	sandboxes, err := s.sandboxIDs()
	require.NoError(t, err)
	require.Len(t, sandboxes, 1, "one sandbox")
	s.runtime.Lock()
	annotations := s.runtime.Sandboxes[sandboxes[0]].Annotations
	s.runtime.Unlock()
	require.Equal(t, s.pod.Annotations["sidecar-kubelet.io/sidecars"], annotations["sidecar-kubelet.io/sidecars"], "the sandbox has the pod's annotations")
	require.Empty(t, kubecontainer.DecideSidecarLayout(s.pod, s.status()).Layout.Sidecars, "no layout decided")
}

// TestSidecarKilledByItsProbeIsRestartedUnderNever checks contract rules 5 and
// 7 for probe kills: a sidecar killed by its startup probe before it is
// ready, or by its liveness probe while the app runs, is restarted in the
// same sandbox although restartPolicy is Never, with crash-loop back-off,
// and the app keeps waiting. Before the fix the held app left nothing to
// start or keep, so the Never pod's sandbox was killed for good.
func TestSidecarKilledByItsProbeIsRestartedUnderNever(t *testing.T) {
	t.Run("startup probe, before ready", func(t *testing.T) {
		s := newSidecarTest(t, sidecarPod(v1.RestartPolicyNever), true)
		s.sync()
		s.setProbeFailed(s.m.startupManager, "proxy", 0)

		actions := s.m.computePodActions(s.tCtx, s.pod, s.status(), false)
		require.False(t, actions.KillPod, "the pod's sandbox stays")
		result := s.sync()
		requireDiff(t, []string{"proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(), "the sidecar is killed and started again")
		requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "the app still waits")
		sandboxes, err := s.sandboxIDs()
		require.NoError(t, err)
		require.Len(t, sandboxes, 1, "one sandbox")

		// As upstream, a probe kill and its restart share a sync, and the
		// back-off counts from the exits seen before it: the second kill
		// restarts at once, the third backs off.
		s.setProbeFailed(s.m.startupManager, "proxy", 1)
		s.sync()
		requireDiff(t, []string{"proxy/0/EXITED", "proxy/1/EXITED", "proxy/2/RUNNING"}, s.containers(), "killed and started again")
		s.setProbeFailed(s.m.startupManager, "proxy", 2)
		result = s.sync()
		requireDiff(t, []string{"proxy/0/EXITED", "proxy/1/EXITED", "proxy/2/EXITED"}, s.containers(), "crash-loop back-off applies")
		require.ErrorContains(t, result.Error(), "CrashLoopBackOff")
		requireDiff(t, map[string]string{"app": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "the app still waits")
		require.False(t, s.m.computePodActions(s.tCtx, s.pod, s.status(), false).KillPod, "the sandbox stays during back-off")
	})

	t.Run("liveness probe, while the app runs", func(t *testing.T) {
		s := newSidecarTest(t, sidecarPod(v1.RestartPolicyNever), true)
		s.sync()
		s.setReady("proxy", 0)
		s.sync()
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started")

		s.setProbeFailed(s.m.livenessManager, "logs", 0)
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/EXITED", "logs/1/RUNNING", "proxy/0/RUNNING"}, s.containers(), "the sidecar alone is restarted")
	})

	t.Run("liveness probe, app done", func(t *testing.T) {
		s := newSidecarTest(t, sidecarPod(v1.RestartPolicyNever), true)
		s.sync()
		s.setReady("proxy", 0)
		s.sync()
		s.sync()
		s.exit("app", 0, 0)
		s.setProbeFailed(s.m.livenessManager, "logs", 0)

		actions := s.m.computePodActions(s.tCtx, s.pod, s.status(), false)
		require.True(t, actions.KillPod, "the app is done: the pod is killed")
		require.Empty(t, actions.ContainersToStart, "nothing restarts")
	})
}

// TestNewSandboxKeepsCompletedApps checks contract rule 18: in a pod whose
// sandbox is recreated, an app container that completed in the old sandbox
// counts as completed, the sidecars start first in the new one, the app
// that must run again waits for them, and the pod completes when that app
// does. Before the fix the completed app, having no container in the new
// sandbox, kept the pod from ever completing.
func TestNewSandboxKeepsCompletedApps(t *testing.T) {
	s := newSidecarTest(t, twoAppSidecarPod(v1.RestartPolicyOnFailure), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "app2/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started")
	s.exit("app", 0, 0)
	s.sandboxDied(137)

	result := s.sync()
	sandboxes, err := s.sandboxIDs()
	require.NoError(t, err)
	require.Len(t, sandboxes, 2, "a new sandbox")
	requireDiff(t, []string{"app/0/EXITED", "app2/0/EXITED", "logs/0/EXITED", "proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(),
		"in the new sandbox the first sidecar starts alone")
	requireDiff(t, map[string]string{"app2": `waiting for sidecar "proxy" to be ready`}, heldFor(result), "the app to rerun waits; the completed one is not rerun")

	s.setReady("proxy", 1)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/EXITED", "app2/0/EXITED", "app2/1/RUNNING", "logs/0/EXITED", "logs/1/RUNNING", "proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(),
		"the sidecars ready: app2 runs again, app does not")

	s.exit("app2", 1, 0)
	actions := s.m.computePodActions(s.tCtx, s.pod, s.status(), false)
	require.True(t, actions.KillPod, "every app completed: the pod is killed")
	require.Empty(t, actions.ContainersToStart, "nothing starts")
}

// TestNoNewSandboxForSidecarsAlone checks that a pod whose app containers
// had all completed when its sandbox died gets no new sandbox for its
// sidecars (contract rule 18), as upstream creates none for a pod with nothing
// left to run.
func TestNoNewSandboxForSidecarsAlone(t *testing.T) {
	s := newSidecarTest(t, twoAppSidecarPod(v1.RestartPolicyOnFailure), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	s.exit("app", 0, 0)
	s.exit("app2", 0, 0)
	s.sandboxDied(137)

	actions := s.m.computePodActions(s.tCtx, s.pod, s.status(), false)
	require.True(t, actions.KillPod, "the pod is killed")
	require.False(t, actions.CreateSandbox, "no sandbox for the sidecars alone")
	require.Empty(t, actions.ContainersToStart, "nothing starts")
}

// TestAnnotationAddedToARunningPodChangesNothing checks contract rule 19: a
// sidecars annotation added to a running restartPolicy Never pod does not
// make the kubelet start again a container that completed: the runtime
// decides from the pod's sandbox (the kubelet's syncs say the change is
// ignored: TestPodAsDecidedSaysTheChangeOnce). Before the fix the container
// became a sidecar, which the kubelet restarts whatever the restartPolicy.
func TestAnnotationAddedToARunningPodChangesNothing(t *testing.T) {
	pod := sidecarPod(v1.RestartPolicyNever)
	delete(pod.Annotations, "sidecar-kubelet.io/sidecars")
	s := newSidecarTest(t, pod, true)
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "no sidecars: all start at once")
	s.exit("logs", 0, 0)

	s.pod = pod.DeepCopy()
	s.pod.Annotations["sidecar-kubelet.io/sidecars"] = "logs"
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/EXITED", "proxy/0/RUNNING"}, s.containers(), "the completed container is not started again")
}

// TestAnnotationRemovedFromARunningPodChangesNothing checks contract rule 19
// the other way round: with the annotation removed, the sidecars still do
// not keep a Job pod alive once its app is done, and a new sandbox is
// created with the annotations the pod started with, so that a restarted
// kubelet reads them too.
func TestAnnotationRemovedFromARunningPodChangesNothing(t *testing.T) {
	s := newSidecarTest(t, twoAppSidecarPod(v1.RestartPolicyOnFailure), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "app2/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started")

	s.pod = s.pod.DeepCopy()
	delete(s.pod.Annotations, "sidecar-kubelet.io/sidecars")
	s.exit("app", 0, 0)
	s.sandboxDied(137)
	s.sync()
	sandboxes, err := s.sandboxIDs()
	require.NoError(t, err)
	require.Len(t, sandboxes, 2, "a new sandbox")
	s.runtime.Lock()
	annotations := s.runtime.Sandboxes[sandboxes[0]].Annotations
	s.runtime.Unlock()
	require.Equal(t, "proxy,logs", annotations["sidecar-kubelet.io/sidecars"], "the new sandbox keeps the started annotations")
	requireDiff(t, []string{"app/0/EXITED", "app2/0/EXITED", "logs/0/EXITED", "proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(),
		"still ordered: the first sidecar starts alone in the new sandbox")

	s.setReady("proxy", 1)
	s.sync()
	s.sync()
	s.exit("app2", 1, 0)
	s.sync()
	requireDiff(t, []string{"app/0/EXITED", "app2/0/EXITED", "app2/1/EXITED", "logs/0/EXITED", "logs/1/EXITED", "proxy/0/EXITED", "proxy/1/EXITED"}, s.containers(),
		"the apps are done: the sync stops the sidecars")
}

// BenchmarkComputePodActions measures computePodActions for a running pod
// of three containers, without annotations and with two of them annotated
// as sidecars. The feature gate has its default: run it once more with
// -ldflags=-X=k8s.io/kubernetes/pkg/features.sidecarContainerOrderingDefault=false
// for the gate off.
func BenchmarkComputePodActions(b *testing.B) {
	for _, bc := range []struct {
		name     string
		sidecars string
	}{
		{name: "no-sidecars"},
		{name: "two-annotated-sidecars", sidecars: "foo2,foo3"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx, m := newBenchmarkRuntimeManager(b)
			m.readinessManager = proberesults.NewManager()
			pod, status := makeBasePodAndStatus()
			initializeActuatedPod(b, m, pod)
			status.ActiveContainerStatuses = status.ContainerStatuses
			if bc.sidecars != "" {
				pod.Annotations = map[string]string{"sidecar-kubelet.io/sidecars": bc.sidecars}
			}
			b.ReportAllocs()
			for b.Loop() {
				if actions := m.computePodActions(ctx, pod, status, false); actions.KillPod {
					b.Fatalf("unexpected actions: %v", actions)
				}
			}
		})
	}
}
