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

// sidecar-kubelet's test harness: one pod driven through real
// computePodActions, SyncPod and KillPod against upstream's fake CRI. This
// file is the same for every minor the fork supports; what the harness of
// each minor needs differently is in kuberuntime_sidecar_harness_test.go.

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/test/utils/ktesting"
	"k8s.io/utils/ptr"
)

// sidecarPod has annotated sidecars "proxy" (with a readiness probe) and
// "logs" (no probe), in that start order, and the app container "app".
func sidecarPod(restartPolicy v1.RestartPolicy) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID: "12345678", Name: "sidecars", Namespace: "new",
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy,logs"},
		},
		Spec: v1.PodSpec{
			RestartPolicy:                 restartPolicy,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers: []v1.Container{
				{Name: "app", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent},
				{Name: "proxy", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent,
					ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ready"}}}}},
				{Name: "logs", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent},
			},
		},
	}
}

// twoAppSidecarPod is sidecarPod with a second app container, "app2".
func twoAppSidecarPod(restartPolicy v1.RestartPolicy) *v1.Pod {
	pod := sidecarPod(restartPolicy)
	pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "app2", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent})
	return pod
}

// sidecarTest drives one pod through syncs against the fake runtime.
type sidecarTest struct {
	t        *testing.T
	tCtx     ktesting.TContext
	runtime  *apitest.FakeRuntimeService
	m        *kubeGenericRuntimeManager
	recorder *record.FakeRecorder
	backOff  *flowcontrol.Backoff
	pod      *v1.Pod
}

func newSidecarTest(t *testing.T, pod *v1.Pod, gate bool) *sidecarTest {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, gate)
	// The pod's first sync decides its sidecar layout for its life; the
	// next test decides anew.
	tCtx := newSidecarTestContext(t)
	recorder := record.NewFakeRecorder(100)
	fakeRuntime, m, err := newSidecarRuntimeManager(tCtx)
	require.NoError(t, err)
	m.readinessManager = proberesults.NewManager()
	// The pod's directory, where the kubelet records the preStop hooks run.
	m.runtimeHelper = &podDirRuntimeHelper{RuntimeHelper: m.runtimeHelper, dir: t.TempDir()}
	// As in the kubelet, which records only events about object references.
	m.recorder = kubecontainer.FilterEventRecorder(recorder)
	return &sidecarTest{t: t, tCtx: tCtx, runtime: fakeRuntime, m: m, recorder: recorder,
		backOff: flowcontrol.NewBackOff(time.Second, time.Minute), pod: pod}
}

func (s *sidecarTest) status() *kubecontainer.PodStatus {
	status, err := s.runtimePodStatus()
	require.NoError(s.t, err)
	return status
}

// sync runs SyncPod once. Holding app containers back is no failure; a
// crash-loop back-off is.
func (s *sidecarTest) sync() kubecontainer.PodSyncResult {
	result := s.m.SyncPod(s.tCtx, s.pod, s.status(), nil, s.backOff, false)
	backingOff := slices.ContainsFunc(result.SyncResults, func(r *kubecontainer.SyncResult) bool {
		var backOff *kubecontainer.BackoffError
		return errors.As(r.Error, &backOff)
	})
	if !backingOff {
		require.NoError(s.t, result.Error(), "a sync that holds app containers back does not fail")
	}
	return result
}

// containers lists the pod's containers in the runtime as name/attempt/state.
func (s *sidecarTest) containers() []string {
	var got []string
	for _, c := range s.runtime.Containers {
		got = append(got, fmt.Sprintf("%s/%d/%s", c.Metadata.Name, c.Metadata.Attempt, strings.TrimPrefix(c.State.String(), "CONTAINER_")))
	}
	slices.Sort(got)
	return got
}

func (s *sidecarTest) containerID(name string, attempt uint32) string {
	sandboxIDs, err := s.sandboxIDs()
	require.NoError(s.t, err)
	id, err := s.runtime.GetContainerID(sandboxIDs[0], name, attempt)
	require.NoError(s.t, err)
	return id
}

func (s *sidecarTest) setReady(name string, attempt uint32) {
	s.m.readinessManager.Set(kubecontainer.ContainerID{Type: apitest.FakeRuntimeName, ID: s.containerID(name, attempt)}, proberesults.Success, s.pod)
}

func (s *sidecarTest) exit(name string, attempt uint32, code int32) {
	id := s.containerID(name, attempt)
	s.runtime.Lock()
	defer s.runtime.Unlock()
	exitFakeContainer(s.runtime.Containers[id], code)
}

// exitFakeContainer marks c exited with code now, as the runtime reports a
// container whose process ended. The caller holds the fake runtime's lock.
func exitFakeContainer(c *apitest.FakeContainer, code int32) {
	c.State = runtimeapi.ContainerState_CONTAINER_EXITED
	c.ExitCode = code
	c.FinishedAt = time.Now().UnixNano()
}

// setProbeFailed records a failed liveness or startup probe for the
// container, as the prober does before the sync that kills it.
func (s *sidecarTest) setProbeFailed(manager proberesults.Manager, name string, attempt uint32) {
	manager.Set(kubecontainer.ContainerID{Type: apitest.FakeRuntimeName, ID: s.containerID(name, attempt)}, proberesults.Failure, s.pod)
}

// sandboxDied marks the pod's newest sandbox not ready, as a node reboot or
// a dead pause process leaves it, with the containers still running in it
// exited with exitCode.
func (s *sidecarTest) sandboxDied(exitCode int32) {
	sandboxes, err := s.sandboxIDs()
	require.NoError(s.t, err)
	s.runtime.Lock()
	defer s.runtime.Unlock()
	s.runtime.Sandboxes[sandboxes[0]].State = runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	for _, c := range s.runtime.Containers {
		if c.SandboxID == sandboxes[0] && c.State == runtimeapi.ContainerState_CONTAINER_RUNNING {
			exitFakeContainer(c, exitCode)
		}
	}
}

// podDirRuntimeHelper gives each test pod a directory of its own, as the
// kubelet does, where upstream's fake helper names a path that is not there.
type podDirRuntimeHelper struct {
	kubecontainer.RuntimeHelper
	dir string
}

func (h *podDirRuntimeHelper) GetPodDir(podUID types.UID) string {
	return filepath.Join(h.dir, string(podUID))
}

func requireDiff(t *testing.T, want, got any, what string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (-want +got):\n%s", what, diff)
	}
}

// TestNewSandboxIsCreatedWithTheDecidedAnnotations checks contract rule 19 at
// its root: a pod's sidecar layout is decided once, and a new sandbox of the
// pod is created with the annotations it was decided from, not with the
// pod's annotations as they are now, so that a restarted kubelet, which
// reads the layout back from the sandbox, decides the same.
func TestNewSandboxIsCreatedWithTheDecidedAnnotations(t *testing.T) {
	s := newSidecarTest(t, twoAppSidecarPod(v1.RestartPolicyOnFailure), true)
	s.sync()
	s.pod = s.pod.DeepCopy()
	delete(s.pod.Annotations, "sidecar-kubelet.io/sidecars")
	s.sandboxDied(137)
	s.sync()
	sandboxes, err := s.sandboxIDs()
	require.NoError(t, err)
	require.Len(t, sandboxes, 2, "a new sandbox")
	s.runtime.Lock()
	annotations := s.runtime.Sandboxes[sandboxes[0]].Annotations
	s.runtime.Unlock()
	require.Equal(t, "proxy,logs", annotations["sidecar-kubelet.io/sidecars"], "the new sandbox has the decided annotations")
	require.Equal(t, []string{"proxy", "logs"}, kubecontainer.DecideSidecarLayout(s.pod, s.status()).Layout.Sidecars, "the decision stands")
}

// keepSandboxAnnotations gives the pod's sandboxes in the fake runtime the
// pod's annotations, which a real runtime keeps from the sandbox's config
// and upstream's fake sandboxes lack: the sidecar layout is decided from
// them.
func keepSandboxAnnotations(s *sidecarTest, pod *v1.Pod) {
	s.runtime.Lock()
	defer s.runtime.Unlock()
	for _, sandbox := range s.runtime.Sandboxes {
		if sandbox.GetMetadata().GetUid() == string(pod.UID) {
			sandbox.Annotations = maps.Clone(pod.Annotations)
		}
	}
}
