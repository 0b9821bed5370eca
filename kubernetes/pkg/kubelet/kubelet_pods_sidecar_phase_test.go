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

package kubelet

// sidecar-kubelet's tests of the phase of pods with sidecars.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// TestGetPhaseWithAnnotatedSidecars checks that the phase of a pod with
// annotated sidecars comes from its app containers alone (sidecar-kubelet).
func TestGetPhaseWithAnnotatedSidecars(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	running := func(name string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Running: &v1.ContainerStateRunning{}}}
	}
	exited := func(name string, code int32) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code}}}
	}
	waiting := func(name, reason string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: reason}}}
	}
	tests := []struct {
		name          string
		annotation    string
		gate          bool
		restartPolicy v1.RestartPolicy
		statuses      []v1.ContainerStatus
		podIsTerminal bool
		want          v1.PodPhase
	}{{
		name:          "job done, sidecars killed with SIGTERM and SIGKILL: Succeeded",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 0), exited("proxy", 143), exited("logs", 137)},
		podIsTerminal: true,
		want:          v1.PodSucceeded,
	}, {
		name:          "job done, before the pod is terminal: Succeeded",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 0), exited("proxy", 143), exited("logs", 137)},
		want:          v1.PodSucceeded,
	}, {
		name:          "job done under OnFailure: Succeeded",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyOnFailure,
		statuses:      []v1.ContainerStatus{exited("app", 0), exited("proxy", 143), exited("logs", 143)},
		podIsTerminal: true,
		want:          v1.PodSucceeded,
	}, {
		name:          "app exited 1: Failed",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 1), exited("proxy", 0), exited("logs", 0)},
		podIsTerminal: true,
		want:          v1.PodFailed,
	}, {
		name:          "app done, sidecars still stopping: Running",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 0), running("proxy"), exited("logs", 143)},
		want:          v1.PodRunning,
	}, {
		name:          "app waits for its sidecars: Pending",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{waiting("app", "SidecarsNotReady"), running("proxy"), waiting("logs", "ContainerCreating")},
		want:          v1.PodPending,
	}, {
		name:          "sidecar exited while the app runs: Running",
		annotation:    "proxy,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{running("app"), exited("proxy", 1), running("logs")},
		want:          v1.PodRunning,
	}, {
		name:          "gate off: the sidecar's 143 fails the pod, as upstream",
		annotation:    "proxy,logs",
		gate:          false,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 0), exited("proxy", 143), exited("logs", 137)},
		podIsTerminal: true,
		want:          v1.PodFailed,
	}, {
		name:          "malformed annotation: upstream",
		annotation:    "proxy,,logs",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		statuses:      []v1.ContainerStatus{exited("app", 0), exited("proxy", 143), exited("logs", 137)},
		podIsTerminal: true,
		want:          v1.PodFailed,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"sidecar-kubelet.io/sidecars": tc.annotation}},
				Spec: v1.PodSpec{
					RestartPolicy: tc.restartPolicy,
					Containers:    []v1.Container{{Name: "app"}, {Name: "proxy"}, {Name: "logs"}},
				},
			}
			if got := sidecarTestPhase(logger, pod, tc.statuses, tc.podIsTerminal); got != tc.want {
				t.Errorf("getPhase() = %s, want %s", got, tc.want)
			}
		})
	}
}

// exitedContainer is the runtime's status of a container that exited with
// code.
func exitedContainer(name string, code int) *kubecontainer.Status {
	return &kubecontainer.Status{ID: kubecontainer.ContainerID{Type: "test", ID: name}, Name: name, State: kubecontainer.ContainerStateExited, ExitCode: code}
}

// TestPhaseFollowsTheStartedAnnotations checks contract rule 19 for the pod's
// phase: with the sidecars annotation removed from a running Job pod, its
// sidecar, stopped with 143 once the app completed, still does not fail
// the pod, since the kubelet keeps the annotations the pod's sandbox was
// created with.
func TestPhaseFollowsTheStartedAnnotations(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	_, ctx := ktesting.NewTestContext(t)
	testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
	defer testKubelet.Cleanup()
	kl := testKubelet.kubelet
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: "job-uid"},
		Spec: v1.PodSpec{
			RestartPolicy: v1.RestartPolicyNever,
			Containers:    []v1.Container{{Name: "proxy"}, {Name: "app"}},
		},
	}
	runtime := []*kubecontainer.Status{exitedContainer("proxy", 143), exitedContainer("app", 0)}
	podStatus := &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		ContainerStatuses: runtime, ActiveContainerStatuses: runtime,
		SandboxStatuses: []*runtimeapi.PodSandboxStatus{{
			Id:          "sandbox",
			Metadata:    &runtimeapi.PodSandboxMetadata{Name: pod.Name, Namespace: pod.Namespace, Uid: string(pod.UID)},
			State:       runtimeapi.PodSandboxState_SANDBOX_NOTREADY,
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		}}}

	if got := sidecarTestAPIPodStatus(ctx, kl, pod, podStatus, true).Phase; got != v1.PodSucceeded {
		t.Errorf("phase = %s, want %s: the sidecar's 143 does not count", got, v1.PodSucceeded)
	}
}

// TestPhaseReadsTheSyncsLayout checks that the pod's API status takes the
// sidecar layout its sync decided and carries in the status
// (kubecontainer.WithSidecarLayout) rather than decide again: the status
// here carries a decision that the pod's annotations no longer show, which
// no real sync hands on, so that the phase tells which one it followed.
func TestPhaseReadsTheSyncsLayout(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	_, ctx := ktesting.NewTestContext(t)
	testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
	defer testKubelet.Cleanup()
	kl := testKubelet.kubelet
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: "job-uid",
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}},
		Spec: v1.PodSpec{
			RestartPolicy: v1.RestartPolicyNever,
			Containers:    []v1.Container{{Name: "proxy"}, {Name: "app"}},
		},
	}
	runtime := []*kubecontainer.Status{exitedContainer("proxy", 143), exitedContainer("app", 0)}
	podStatus, _ := kubecontainer.WithSidecarLayout(pod, &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
		ContainerStatuses: runtime, ActiveContainerStatuses: runtime})
	delete(pod.Annotations, "sidecar-kubelet.io/sidecars")

	if got := sidecarTestAPIPodStatus(ctx, kl, pod, podStatus, true).Phase; got != v1.PodSucceeded {
		t.Errorf("phase = %s, want %s: the layout the sync decided makes proxy a sidecar, whose 143 does not count", got, v1.PodSucceeded)
	}
}
