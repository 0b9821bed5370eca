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

// sidecar-kubelet's tests of the relist of a pod with sidecars on its
// containers' stop events.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

func containerEvent(uid string, eventType runtimeapi.ContainerEventType) *runtimeapi.ContainerEventResponse {
	return &runtimeapi.ContainerEventResponse{
		ContainerId:        "c1",
		ContainerEventType: eventType,
		PodSandboxStatus:   &runtimeapi.PodSandboxStatus{Metadata: &runtimeapi.PodSandboxMetadata{Uid: uid}},
	}
}

// TestContainerStopRelistsOrderedPods checks that the stop of a container
// of a pod with a sidecar layout asks for a relist of that pod at once, and
// that every other event and pod keeps upstream's periodic relist.
func TestContainerStopRelistsOrderedPods(t *testing.T) {
	const uid = "pod-uid"
	stopped := runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT
	tests := []struct {
		name        string
		gate        bool
		annotations map[string]string
		event       *runtimeapi.ContainerEventResponse
		// terminating: the pod's termination was asked for (a deletion).
		terminating bool
		want        []types.UID
		// wantHanded are the containers whose stop the runtime's kills
		// were told of.
		wantHanded []string
	}{{
		name:        "a container of a pod with annotated sidecars stopped",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, stopped),
		wantHanded:  []string{"c1"},
		want:        []types.UID{uid},
	}, {
		name:        "a container of a pod the kubelet is terminating stopped: the kubelet stopped it and relists after its sync",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, stopped),
		wantHanded:  []string{"c1"},
		terminating: true,
	}, {
		name:        "a container of a pod under wait-ready stopped",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/wait-ready": "true"},
		event:       containerEvent(uid, stopped),
		wantHanded:  []string{"c1"},
		want:        []types.UID{uid},
	}, {
		name:        "a container started: the relist tells",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, runtimeapi.ContainerEventType_CONTAINER_STARTED_EVENT),
	}, {
		name:        "a container created: the relist tells",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, runtimeapi.ContainerEventType_CONTAINER_CREATED_EVENT),
	}, {
		name:        "a container deleted: the relist tells",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, runtimeapi.ContainerEventType_CONTAINER_DELETED_EVENT),
	}, {
		name:       "no annotations: upstream",
		gate:       true,
		event:      containerEvent(uid, stopped),
		wantHanded: []string{"c1"},
	}, {
		name:        "another pod's container",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent("other-uid", stopped),
		wantHanded:  []string{"c1"},
	}, {
		name:        "an event without its pod",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       &runtimeapi.ContainerEventResponse{ContainerId: "c1", ContainerEventType: stopped},
		wantHanded:  []string{"c1"},
	}, {
		name:        "gate off: upstream",
		gate:        false,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		event:       containerEvent(uid, stopped),
		wantHanded:  []string{"c1"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			logger, _ := ktesting.NewTestContext(t)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: uid, Annotations: tc.annotations},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "proxy"}, {Name: "app"}}},
			}
			kl.podManager.SetPods([]*v1.Pod{pod})
			if tc.terminating {
				kl.podWorkers.(*fakePodWorkers).terminationRequested = map[types.UID]bool{uid: true}
			}
			recorder := recordRelists(kl)
			listener := &stopListener{Runtime: kl.containerRuntime}
			kl.relistOrderedPodOnContainerStop(logger, listener, tc.event)
			if diff := cmp.Diff(tc.want, recorder.relisted); diff != "" {
				t.Errorf("pods relisted at once mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantHanded, listener.stopped); diff != "" {
				t.Errorf("stops handed to the runtime's kills mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// stopListener is a runtime that records what the kubelet tells it of the
// runtime's container stop events (sidecarStopListener).
type stopListener struct {
	kubecontainer.Runtime
	mu       sync.Mutex
	stopped  []string
	followed []bool
}

func (r *stopListener) SidecarContainerStopped(containerID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = append(r.stopped, containerID)
}

func (r *stopListener) SidecarStopEventsFollowed(followed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.followed = append(r.followed, followed)
}

// eventStreams is a runtime whose container events stream, at each call,
// sends the next list of events and then ends with the next error.
type eventStreams struct {
	internalapi.RuntimeService
	mu      sync.Mutex
	streams [][]*runtimeapi.ContainerEventResponse
	errs    []error
	calls   int
}

func (r *eventStreams) GetContainerEvents(ctx context.Context, ch chan *runtimeapi.ContainerEventResponse, _ func(runtimeapi.RuntimeService_GetContainerEventsClient)) error {
	r.mu.Lock()
	i := r.calls
	r.calls++
	r.mu.Unlock()
	if i >= len(r.streams) {
		<-ctx.Done()
		return ctx.Err()
	}
	for _, e := range r.streams[i] {
		ch <- e
	}
	return r.errs[i]
}

// TestContainerEventsStreamIsFollowedAgain checks that the kubelet follows
// the stream again after it ended, and stops following it when the runtime
// does not implement it, as CRI runtimes before container events do.
func TestContainerEventsStreamIsFollowedAgain(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	_, ctx := ktesting.NewTestContext(t)
	testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
	defer testKubelet.Cleanup()
	kl := testKubelet.kubelet
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: "pod-uid",
			Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "proxy"}, {Name: "app"}}},
	}
	kl.podManager.SetPods([]*v1.Pod{pod})
	recorder := recordRelists(kl)
	stopped := runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT
	runtime := &eventStreams{
		streams: [][]*runtimeapi.ContainerEventResponse{{containerEvent("pod-uid", stopped)}, {containerEvent("pod-uid", stopped)}},
		errs:    []error{errors.New("the runtime restarted"), status.Error(codes.Unimplemented, "no container events")},
	}
	kl.runtimeService = runtime
	listener := &stopListener{Runtime: kl.containerRuntime}
	kl.containerRuntime = listener
	done := make(chan struct{})
	go func() {
		defer close(done)
		kl.relistOrderedPodsOnContainerStop(ctx)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("still following a stream the runtime does not implement")
	}
	if diff := cmp.Diff([]types.UID{"pod-uid", "pod-uid"}, recorder.relisted); diff != "" {
		t.Errorf("pods relisted at once mismatch (-want +got):\n%s", diff)
	}
	if runtime.calls != 2 {
		t.Errorf("the stream was followed %d times, want 2: once, and again after it ended", runtime.calls)
	}
	// The runtime's kills rely on the events only while the stream is
	// followed.
	if diff := cmp.Diff([]bool{true, false, true, false}, listener.followed); diff != "" {
		t.Errorf("the runtime was told the events are followed mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c1", "c1"}, listener.stopped); diff != "" {
		t.Errorf("stops handed to the runtime's kills mismatch (-want +got):\n%s", diff)
	}
}
