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

// This file belongs to sidecar-kubelet's patch series: the runtime's side of
// the one decision of each pod's sidecar layout (contract rule 19).

import (
	"context"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// podAsDecided returns the pod carrying the sidecar annotations its layout
// was decided from (kubecontainer.DecideSidecarLayout), so that a new
// sandbox is created with them and a restarted kubelet decides the same. A
// change of the pod's annotations since changes nothing.
func (m *kubeGenericRuntimeManager) podAsDecided(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus) *v1.Pod {
	if !kubecontainer.SidecarOrderingEnabled() {
		// The gate off decides no layout: the pod goes to the runtime as
		// it is, its annotations included, as upstream passes it.
		return pod
	}
	d := kubecontainer.DecideSidecarLayout(pod, podStatus)
	if d.Unchanged(pod.Annotations) {
		return pod
	}
	return d.PodAsDecided(pod)
}
