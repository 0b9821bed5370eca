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

package testing

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// DecideSidecarLayout decides the pod's sidecar layout as the pod's first
// sync does (from podStatus's newest sandbox, or from the pod before it has
// one), for tests of the parts of the kubelet that read the decision, and
// forgets it when the test ends, so that the next test decides anew for a
// pod of the same UID (sidecar-kubelet).
func DecideSidecarLayout(t testing.TB, pod *v1.Pod, podStatus *kubecontainer.PodStatus) {
	t.Helper()
	t.Cleanup(func() { kubecontainer.ForgetSidecarLayout(pod.UID) })
	kubecontainer.DecideSidecarLayout(pod, podStatus)
}
