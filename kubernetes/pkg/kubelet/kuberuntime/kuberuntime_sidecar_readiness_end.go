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

// This file belongs to sidecar-kubelet's patch series: an ordered
// termination ends the readiness of the containers it stops
// (sidecars.ReadinessEnd), so that their probes stop failing against
// containers that are gone while the kill goes on.

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// endReadinessAtStop is called as killContainer stops a container of an
// ordered termination (o), after its preStop hook and its wait for its turn,
// and endReadinessAtExit once the container has exited.
func (m *kubeGenericRuntimeManager) endReadinessAtStop(ctx context.Context, pod *v1.Pod, o *terminationOrdering, containerSpec *v1.Container, containerID kubecontainer.ContainerID) {
	m.endReadinessAt(ctx, sidecars.ReadinessEndsAtStop, pod, o, containerSpec, containerID)
}

func (m *kubeGenericRuntimeManager) endReadinessAtExit(ctx context.Context, pod *v1.Pod, o *terminationOrdering, containerSpec *v1.Container, containerID kubecontainer.ContainerID) {
	m.endReadinessAt(ctx, sidecars.ReadinessEndsAtExit, pod, o, containerSpec, containerID)
}

// endReadinessAt ends the readiness of a container of an ordered
// termination (o) if now, the moment given, is when its order ends it: its
// readiness result becomes a final Failure, and its probe worker runs the
// probe no more. A container without a readiness probe has no result to
// end.
func (m *kubeGenericRuntimeManager) endReadinessAt(ctx context.Context, now sidecars.ReadinessEnd, pod *v1.Pod, o *terminationOrdering, containerSpec *v1.Container, containerID kubecontainer.ContainerID) {
	if m.readinessManager == nil || containerSpec.ReadinessProbe == nil || o.sidecarOrder.ReadinessEnd(containerSpec.Name) != now {
		return
	}
	m.readinessManager.End(containerID, pod)
	klog.FromContext(ctx).V(4).Info("Readiness ended by the ordered termination", "pod", klog.KObj(pod), "podUID", pod.UID,
		"containerName", containerSpec.Name, "containerID", containerID.String())
}
