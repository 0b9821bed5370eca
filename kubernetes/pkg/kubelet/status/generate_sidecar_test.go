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

package status

// sidecar-kubelet's tests of the pod's Initialized condition under
// wait-ready.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"
)

// TestInitializedFollowsTheReadinessGate checks that under wait-ready a
// native sidecar counts as initialized once it is ready, not once it has
// started, as the next container waits for it; that native sidecars it does
// not name keep upstream's rule; that the condition stays true once an app
// container has started; and that the gate off is upstream.
func TestInitializedFollowsTheReadinessGate(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	sidecar := func(name string, started, ready bool) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, Started: ptr.To(started), Ready: ready,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
	}
	waiting := v1.ContainerStatus{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "PodInitializing"}}}
	running := v1.ContainerStatus{Name: "app", Started: ptr.To(true), State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
	for _, tc := range []struct {
		name      string
		gate      bool
		waitReady string
		statuses  []v1.ContainerStatus
		want      v1.ConditionStatus
	}{
		{name: "wait-ready, started, not ready", gate: true, waitReady: "true",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, false), sidecar("logs", true, true), waiting}, want: v1.ConditionFalse},
		{name: "wait-ready, ready", gate: true, waitReady: "true",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, true), sidecar("logs", true, true), waiting}, want: v1.ConditionTrue},
		{name: "named: the other sidecar keeps upstream's rule", gate: true, waitReady: "proxy",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, true), sidecar("logs", true, false), waiting}, want: v1.ConditionTrue},
		{name: "named: the named sidecar not ready", gate: true, waitReady: "logs",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, true), sidecar("logs", true, false), waiting}, want: v1.ConditionFalse},
		{name: "an app started: stays initialized through a flap", gate: true, waitReady: "true",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, false), sidecar("logs", true, true), running}, want: v1.ConditionTrue},
		{name: "no wait-ready: upstream", gate: true,
			statuses: []v1.ContainerStatus{sidecar("proxy", true, false), sidecar("logs", true, false), waiting}, want: v1.ConditionTrue},
		{name: "gate off: upstream", gate: false, waitReady: "true",
			statuses: []v1.ContainerStatus{sidecar("proxy", true, false), sidecar("logs", true, false), waiting}, want: v1.ConditionTrue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "web-uid"},
				Spec: v1.PodSpec{
					InitContainers: []v1.Container{{Name: "proxy", RestartPolicy: &always}, {Name: "logs", RestartPolicy: &always}},
					Containers:     []v1.Container{{Name: "app"}},
				},
			}
			if tc.waitReady != "" {
				pod.Annotations = map[string]string{"sidecar-kubelet.io/wait-ready": tc.waitReady}
			}
			got := GeneratePodInitializedCondition(pod, &v1.PodStatus{}, tc.statuses, v1.PodPending)
			if diff := cmp.Diff(tc.want, got.Status); diff != "" {
				t.Errorf("Initialized (-want +got):\n%s\nthe condition: %+v", diff, got)
			}
		})
	}
}
