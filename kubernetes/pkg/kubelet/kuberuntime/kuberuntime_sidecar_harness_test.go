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

// The seam between sidecar-kubelet's fake-runtime tests
// (kuberuntime_sidecar_test.go, the same for every supported minor) and
// upstream's test helpers of this minor, whose signatures change between
// releases. This is the v1.37 version.

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/test/utils/ktesting"
)

// newSidecarTestContext returns the test's context, also inside a
// testing/synctest bubble.
func newSidecarTestContext(t *testing.T) ktesting.TContext {
	return ktesting.Init(t)
}

// newSidecarRuntimeManager returns upstream's fake CRI runtime and a runtime
// manager on it.
func newSidecarRuntimeManager(tCtx ktesting.TContext) (*apitest.FakeRuntimeService, *kubeGenericRuntimeManager, error) {
	fakeRuntime, _, m, err := createTestRuntimeManager(tCtx)
	return fakeRuntime, m, err
}

// setSidecarFakePod puts the pod, its sandbox and running containers into
// the fake runtime.
func setSidecarFakePod(s *sidecarTest, pod *v1.Pod) {
	makeAndSetFakePod(s.tCtx, s.m, s.runtime, pod)
	keepSandboxAnnotations(s, pod)
}

// newBenchmarkRuntimeManager returns a runtime manager and a context that
// discards logs, which would dominate the figures.
func newBenchmarkRuntimeManager(b *testing.B) (context.Context, *kubeGenericRuntimeManager) {
	ctx := klog.NewContext(context.Background(), logr.Discard())
	_, _, m, err := createTestRuntimeManager(ctx)
	require.NoError(b, err)
	return ctx, m
}

// initializeActuatedPod records the pod's resources as actuated, so that
// computePodActions sees no resize to do.
func initializeActuatedPod(tb testing.TB, m *kubeGenericRuntimeManager, pod *v1.Pod) {
	tb.Helper()
	m.InitializeActuatedPod(logr.Discard(), pod)
}

// runtimePodStatus returns the pod's status as the runtime manager sees it.
func (s *sidecarTest) runtimePodStatus() (*kubecontainer.PodStatus, error) {
	runtimePod, err := s.m.GetPod(s.tCtx, s.pod.UID)
	if err != nil {
		runtimePod = &kubecontainer.Pod{ID: s.pod.UID, Name: s.pod.Name, Namespace: s.pod.Namespace}
	}
	return s.m.GetPodStatus(s.tCtx, runtimePod)
}

// runningPod returns the pod as the runtime runs it, for KillPod.
func (s *sidecarTest) runningPod() (*kubecontainer.Pod, error) {
	return s.m.GetPod(s.tCtx, s.pod.UID)
}

// sandboxIDs returns the IDs of the pod's sandboxes, the newest first.
func (s *sidecarTest) sandboxIDs() ([]string, error) {
	return s.m.getSandboxIDByPodUID(s.tCtx, s.pod.UID)
}
