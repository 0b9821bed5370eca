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

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/utils/ptr"
)

// TestAnnotatedSidecarMayLeaveTerminatedState checks that the status of an
// annotated sidecar the kubelet restarted under restartPolicy Never is
// accepted, while an app container still may not leave the terminated
// state (sidecar-kubelet).
func TestAnnotatedSidecarMayLeaveTerminatedState(t *testing.T) {
	running := func(name string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
	}
	exited := func(name string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}}
	}
	tests := []struct {
		name       string
		annotation string
		// changedTo, if set, is the annotation once the layout is decided
		// (contract rule 19: the decision stands).
		changedTo *string
		gate      bool
		before    []v1.ContainerStatus
		after     []v1.ContainerStatus
		accepted  bool
	}{{
		name:       "restarted annotated sidecar",
		annotation: "proxy",
		gate:       true,
		before:     []v1.ContainerStatus{running("app"), exited("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
		accepted:   true,
	}, {
		name:       "restarted annotated sidecar, annotation removed since",
		annotation: "proxy",
		changedTo:  ptr.To(""),
		gate:       true,
		before:     []v1.ContainerStatus{running("app"), exited("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
		accepted:   true,
	}, {
		name:       "app container, made a sidecar since",
		annotation: "proxy",
		changedTo:  ptr.To("app"),
		gate:       true,
		before:     []v1.ContainerStatus{exited("app"), running("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
	}, {
		name:       "app container",
		annotation: "proxy",
		gate:       true,
		before:     []v1.ContainerStatus{exited("app"), running("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
	}, {
		name:       "gate off: as upstream",
		annotation: "proxy",
		gate:       false,
		before:     []v1.ContainerStatus{running("app"), exited("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
	}, {
		name:       "malformed annotation: as upstream",
		annotation: "proxy,",
		gate:       true,
		before:     []v1.ContainerStatus{running("app"), exited("proxy")},
		after:      []v1.ContainerStatus{running("app"), running("proxy")},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			logger, _ := ktesting.NewTestContext(t)
			m := newTestManager(&fake.Clientset{})
			pod := getTestPod()
			pod.Annotations = map[string]string{"sidecar-kubelet.io/sidecars": tc.annotation}
			pod.Spec.RestartPolicy = v1.RestartPolicyNever
			pod.Spec.Containers = []v1.Container{{Name: "app"}, {Name: "proxy"}}
			if tc.changedTo != nil {
				// The kubelet's syncs hand on the pod as its layout was
				// decided, from the annotations of its sandbox.
				sandbox := &kubecontainer.PodStatus{SandboxStatuses: []*runtimeapi.PodSandboxStatus{{Id: "sandbox", Annotations: pod.Annotations}}}
				changed := pod.DeepCopy()
				changed.Annotations["sidecar-kubelet.io/sidecars"] = *tc.changedTo
				pod = kubecontainer.PodAsDecided(changed, sandbox)
			}

			m.SetPodStatus(logger, pod, v1.PodStatus{ContainerStatuses: tc.before})
			m.SetPodStatus(logger, pod, v1.PodStatus{ContainerStatuses: tc.after})
			status, _ := m.GetPodStatus(pod.UID)
			got := status.ContainerStatuses
			accepted := len(got) == 2 && got[0].State.Running != nil && got[1].State.Running != nil
			if accepted != tc.accepted {
				t.Errorf("update accepted = %v, want %v; statuses now %+v", accepted, tc.accepted, got)
			}
		})
	}
}
