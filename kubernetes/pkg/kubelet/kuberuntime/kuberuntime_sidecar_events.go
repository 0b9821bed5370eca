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

	ref "k8s.io/client-go/tools/reference"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarevents"
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
