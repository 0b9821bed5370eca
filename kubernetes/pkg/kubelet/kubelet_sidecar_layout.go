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

// This file belongs to sidecar-kubelet's patch series: the kubelet's syncs
// hand on each pod as its sidecar layout was decided (contract rule 19).

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarevents"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// podAsDecided decides the pod's sidecar layout once for a sync, from the
// annotations of its newest sandbox in podStatus, and returns what the sync
// hands on: the status carrying the decision
// (kubecontainer.WithSidecarLayout), from which the runtime's sync and the
// pod's API status read it, and the pod as decided
// (kubecontainer.PodAsDecided), from which the parts that see the pod
// alone read it (the status manager, the probe workers, the kill path).
// The pod is pod itself unless a user changed the sidecar annotations of
// the running pod.
//
// A sync that finds the pod's sidecar annotations changed says that the
// change is ignored, with a SidecarAnnotationChanged event, once per change
// (kl.sidecarEvents: only pods whose annotations changed are remembered,
// until their SyncTerminatedPod).
func (kl *Kubelet) podAsDecided(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus) (*v1.Pod, *kubecontainer.PodStatus) {
	podStatus, d := kubecontainer.WithSidecarLayout(pod, podStatus)
	decided := kubecontainer.PodAsDecided(pod, podStatus)
	if decided == pod {
		return decided, podStatus
	}
	e := sidecarevents.AnnotationChanged(d, pod.Annotations)
	if !kl.sidecarEvents.First(pod.UID, e.Key) {
		return decided, podStatus
	}
	logger := klog.FromContext(ctx)
	logger.Info("Sidecar annotations of a running pod changed; keeping those it started with", "pod", klog.KObj(pod), "change", d.ChangeIn(pod.Annotations))
	kl.recorder.WithLogger(logger).Event(pod, e.Type, e.Reason, e.Message)
	return decided, podStatus
}

// sidecarLayoutInCache returns the layout of a pod the kubelet meets outside
// its syncs (a probe result, a container's stop, a move of its worker),
// decided from the runtime's status of the pod in the pod cache, and that
// status (nil when the cache has none). With the gate off it is the zero
// Layout, and the cache is not read.
func (kl *Kubelet) sidecarLayoutInCache(pod *v1.Pod) (sidecars.Layout, *kubecontainer.PodStatus) {
	if pod == nil || !kubecontainer.SidecarOrderingEnabled() {
		return sidecars.Layout{}, nil
	}
	status, err := kl.podCache.Get(pod.UID)
	if err != nil {
		status = nil
	}
	return kubecontainer.DecideSidecarLayout(pod, status).Layout, status
}
