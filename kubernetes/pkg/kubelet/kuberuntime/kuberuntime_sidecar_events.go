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

// This file belongs to sidecar-kubelet's patch series: the events of
// sidecar ordering (kubelet/sidecarevents), recorded with the runtime's
// recorder once per occurrence.

import (
	"context"
	"time"

	ref "k8s.io/client-go/tools/reference"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarevents"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarmetrics"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// recordPodEvent records an event about the pod. The kubelet's runtime
// recorder records events only about object references, so the pod is
// passed as one.
func (m *kubeGenericRuntimeManager) recordPodEvent(ctx context.Context, pod *v1.Pod, e sidecarevents.Event) {
	logger := klog.FromContext(ctx)
	podRef, err := ref.GetReference(legacyscheme.Scheme, pod)
	if err != nil {
		logger.Error(err, "Couldn't make a ref to pod", "pod", klog.KObj(pod))
		return
	}
	m.recorder.WithLogger(logger).Event(podRef, e.Type, e.Reason, e.Message)
}

// recordNativeSidecarGate records the start events of the native sidecar
// pod.Spec.InitContainers[i], which holds the next container until it is
// ready (sidecars.Layout.GatesOnReady), in a sync that finds it the newest
// of the pod's init containers before the pod's containers have started:
// WaitingForSidecars while it is not ready, and SidecarsReady, with the
// wait in the histogram, once the last such sidecar is
// (sidecarevents.NativeGate). Each once per sandbox.
func (m *kubeGenericRuntimeManager) recordNativeSidecarGate(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, layout sidecars.Layout, i int, ready bool) {
	var next []string
	if i+1 < len(pod.Spec.InitContainers) {
		next = []string{pod.Spec.InitContainers[i+1].Name}
	} else {
		for j := range pod.Spec.Containers {
			next = append(next, pod.Spec.Containers[j].Name)
		}
	}
	var gated []string
	var firstStarted time.Time
	if ready {
		gated = layout.GatedNativeSidecars(&pod.Spec)
		if len(gated) == 0 {
			return
		}
		if first := podStatus.FindContainerStatusByName(gated[0]); first != nil && first.State == kubecontainer.ContainerStateRunning {
			firstStarted = first.StartedAt
		}
	}
	for _, e := range sidecarevents.NativeGate(pod.Spec.InitContainers[i].Name, ready, next, gated, firstStarted, time.Now()) {
		if m.sidecarEvents.First(pod.UID, e.Key) {
			m.recordPodEvent(ctx, pod, e)
			if e.AppsWaited > 0 {
				sidecarmetrics.AppStartWaitDuration.Observe(e.AppsWaited.Seconds())
			}
		}
	}
}
