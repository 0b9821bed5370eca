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

// sidecar-kubelet's tests of the container statuses of pods with sidecars.

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// TestConvertToAPIContainerStatusesWithAnnotatedSidecars checks that an
// annotated sidecar the kubelet restarts whatever the pod's restartPolicy is
// shown waiting, never terminated, in between: the API server refuses a
// container of a restartPolicy Never pod that leaves the terminated state
// (sidecar-kubelet, contract rules 5 and 7, and 14 while the pod
// terminates and an app drains).
func TestConvertToAPIContainerStatusesWithAnnotatedSidecars(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	started := time.Unix(10, 0).UTC()
	finished := time.Unix(20, 0).UTC()
	runtimeRunning := func(name string) *kubecontainer.Status {
		return &kubecontainer.Status{ID: kubecontainer.ContainerID{Type: "test", ID: name}, Name: name, State: kubecontainer.ContainerStateRunning, StartedAt: started}
	}
	runtimeExited := func(name string, code int) *kubecontainer.Status {
		return &kubecontainer.Status{ID: kubecontainer.ContainerID{Type: "test", ID: name}, Name: name, State: kubecontainer.ContainerStateExited, StartedAt: started, FinishedAt: finished, ExitCode: code, Reason: "Error"}
	}
	terminated := func(code int32) *v1.ContainerStateTerminated {
		return &v1.ContainerStateTerminated{ExitCode: code, Reason: "Error", StartedAt: metav1.NewTime(started), FinishedAt: metav1.NewTime(finished), ContainerID: "test://proxy"}
	}
	waitingToRestart := v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "SidecarRestarting", Message: "The sidecar exited; the kubelet restarts it"}}

	tests := []struct {
		name          string
		gate          bool
		restartPolicy v1.RestartPolicy
		deleted       bool
		runtime       []*kubecontainer.Status
		sandboxDown   bool // the pod's sandbox has stopped: no container is active
		cachedReason  error
		wantState     v1.ContainerState
		wantLastState v1.ContainerState
	}{{
		name:          "Never, crashed before the app was created: waiting to restart",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 1)},
		wantState:     waitingToRestart,
		wantLastState: v1.ContainerState{Terminated: terminated(1)},
	}, {
		name:          "Never, exited 0 while the app runs: waiting to restart",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 0), runtimeRunning("app")},
		wantState:     waitingToRestart,
		wantLastState: v1.ContainerState{Terminated: terminated(0)},
	}, {
		name:          "OnFailure, exited 0 while the app runs: waiting to restart",
		gate:          true,
		restartPolicy: v1.RestartPolicyOnFailure,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 0), runtimeRunning("app")},
		wantState:     waitingToRestart,
		wantLastState: v1.ContainerState{Terminated: terminated(0)},
	}, {
		name:          "Never, in crash-loop back-off: the cached reason, as upstream shows it",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 1)},
		cachedReason:  kubecontainer.ErrCrashLoopBackOff,
		wantState:     v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}},
		wantLastState: v1.ContainerState{Terminated: terminated(1)},
	}, {
		name:          "Never, the app is done: the sidecar stays terminated",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 143), runtimeExited("app", 0)},
		wantState:     v1.ContainerState{Terminated: terminated(143)},
	}, {
		name:          "Never, the app is done and the sandbox stopped: the sidecar stays terminated",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 143), runtimeExited("app", 0)},
		sandboxDown:   true,
		wantState:     v1.ContainerState{Terminated: terminated(143)},
	}, {
		name:          "Never, pod deleted while the app drains: waiting, the kill starts it again (rule 14)",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		deleted:       true,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 1), runtimeRunning("app")},
		wantState:     waitingToRestart,
		wantLastState: v1.ContainerState{Terminated: terminated(1)},
	}, {
		name:          "Never, pod deleted, started again by the kill, a crash-loop reason cached from before: running",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		deleted:       true,
		runtime:       []*kubecontainer.Status{runtimeRunning("proxy"), runtimeRunning("app")},
		cachedReason:  kubecontainer.ErrCrashLoopBackOff,
		wantState:     v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}},
	}, {
		name:          "Never, pod deleted, the app stopped: the sidecar stays terminated",
		gate:          true,
		restartPolicy: v1.RestartPolicyNever,
		deleted:       true,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 143), runtimeExited("app", 0)},
		wantState:     v1.ContainerState{Terminated: terminated(143)},
	}, {
		name:          "Always, no cached reason: terminated until the restart, as upstream",
		gate:          true,
		restartPolicy: v1.RestartPolicyAlways,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 1), runtimeRunning("app")},
		wantState:     v1.ContainerState{Terminated: terminated(1)},
	}, {
		name:          "gate off: terminated, as upstream",
		gate:          false,
		restartPolicy: v1.RestartPolicyNever,
		runtime:       []*kubecontainer.Status{runtimeExited("proxy", 1), runtimeRunning("app")},
		wantState:     v1.ContainerState{Terminated: terminated(1)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: "job", Namespace: "default", UID: "job-uid",
					Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
				},
				Spec: v1.PodSpec{
					RestartPolicy: tc.restartPolicy,
					Containers:    []v1.Container{{Name: "proxy"}, {Name: "app"}},
				},
			}
			if tc.deleted {
				now := metav1.Now()
				pod.DeletionTimestamp = &now
			}
			if tc.cachedReason != nil {
				kl.reasonCache.add(pod.UID, "proxy", tc.cachedReason, "back-off")
			}
			podStatus := &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace, ContainerStatuses: tc.runtime}
			if !tc.sandboxDown {
				podStatus.ActiveContainerStatuses = tc.runtime
			}

			statuses := sidecarTestContainerStatuses(ctx, kl, pod, podStatus)
			var proxy *v1.ContainerStatus
			for i := range statuses {
				if statuses[i].Name == "proxy" {
					proxy = &statuses[i]
				}
			}
			if proxy == nil {
				t.Fatalf("no status for the sidecar proxy in %+v", statuses)
			}
			if diff := cmp.Diff(tc.wantState, proxy.State); diff != "" {
				t.Errorf("sidecar state mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLastState, proxy.LastTerminationState); diff != "" {
				t.Errorf("sidecar last termination state mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSidecarStatusOnceThePodTerminates checks contract rule 20: an annotated
// sidecar that exited shows a pending restart only while the kubelet will
// restart it. Once the pod is terminating or terminal for any reason, not
// only a delete (an active deadline, an eviction, a node shutdown: the pod
// worker was asked to terminate it), it shows its real exit. Before the
// fix it showed waiting, and the status manager's end-of-life defaulting
// then turned that into a false "137, ContainerStatusUnknown".
func TestSidecarStatusOnceThePodTerminates(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	started := time.Unix(10, 0).UTC()
	finished := time.Unix(20, 0).UTC()
	exited := func(name string, code int, reason string) *kubecontainer.Status {
		return &kubecontainer.Status{ID: kubecontainer.ContainerID{Type: "test", ID: name}, Name: name, State: kubecontainer.ContainerStateExited,
			StartedAt: started, FinishedAt: finished, ExitCode: code, Reason: reason}
	}
	proxyExit := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
		StartedAt: metav1.NewTime(started), FinishedAt: metav1.NewTime(finished), ContainerID: "test://proxy"}}

	tests := []struct {
		name                 string
		terminationRequested bool
		phase                v1.PodPhase
		wantState            v1.ContainerState
	}{{
		name:      "running pod, the app will restart: the sidecar waits for its restart",
		wantState: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "SidecarRestarting", Message: "The sidecar exited; the kubelet restarts it"}},
	}, {
		name:                 "active deadline or eviction (termination requested): the real exit",
		terminationRequested: true,
		wantState:            proxyExit,
	}, {
		name:      "terminal pod: the real exit",
		phase:     v1.PodFailed,
		wantState: proxyExit,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: "job", Namespace: "default", UID: "job-uid",
					Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
				},
				Spec: v1.PodSpec{
					RestartPolicy: v1.RestartPolicyOnFailure,
					Containers:    []v1.Container{{Name: "proxy"}, {Name: "app"}},
				},
				Status: v1.PodStatus{Phase: tc.phase},
			}
			kl.podWorkers.(*fakePodWorkers).terminationRequested = map[types.UID]bool{pod.UID: tc.terminationRequested}
			// The app was killed (137, so OnFailure would restart it) and
			// the sidecar exited 0 on its SIGTERM.
			runtime := []*kubecontainer.Status{exited("proxy", 0, "Completed"), exited("app", 137, "Error")}
			podStatus := &kubecontainer.PodStatus{ID: pod.UID, Name: pod.Name, Namespace: pod.Namespace,
				ContainerStatuses: runtime, ActiveContainerStatuses: runtime}

			statuses := sidecarTestContainerStatuses(ctx, kl, pod, podStatus)
			for _, s := range statuses {
				if s.Name == "proxy" {
					if diff := cmp.Diff(tc.wantState, s.State); diff != "" {
						t.Errorf("sidecar state mismatch (-want +got):\n%s", diff)
					}
					return
				}
			}
			t.Fatalf("no status for the sidecar proxy in %+v", statuses)
		})
	}
}
