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

// The seam between sidecar-kubelet's tests (kubelet_*sidecar*_test.go, the
// same for every supported minor) and this minor's code, whose
// signatures change between releases. This is the v1.37 version.

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// sidecarTestPhase is getPhase for an initialized pod.
func sidecarTestPhase(logger klog.Logger, pod *v1.Pod, statuses []v1.ContainerStatus, podIsTerminal bool) v1.PodPhase {
	return getPhase(logger, pod, statuses, podIsTerminal, true)
}

// sidecarTestAPIPodStatus is generateAPIPodStatus.
func sidecarTestAPIPodStatus(ctx context.Context, kl *Kubelet, pod *v1.Pod, podStatus *kubecontainer.PodStatus, podIsTerminal bool) v1.PodStatus {
	return kl.generateAPIPodStatus(ctx, pod, podStatus, podIsTerminal)
}
