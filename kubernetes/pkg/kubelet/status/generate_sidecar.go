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

package status

// This file belongs to sidecar-kubelet's patch series: the pod's Initialized
// condition under wait-ready.

import (
	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// gatedSidecarReady reports whether an init container that the pod's layout
// makes hold the next container until it is ready (a native sidecar under
// wait-ready: sidecars.Layout.GatesOnReady) is ready. Upstream counts a
// native sidecar as initialized once it has started, the point at which it
// starts the next container; under wait-ready the next container starts
// once the sidecar is ready, and the pod's Initialized condition follows
// the same gate. Every other init container, and every pod with the zero
// layout, passes: upstream's condition. Once an app container has started
// the condition stays true whatever the sidecars do (upstream's
// HasAnyRegularContainerStarted), so a later flap of readiness changes
// nothing.
func gatedSidecarReady(layout sidecars.Layout, c *v1.Container, s *v1.ContainerStatus) bool {
	if !podutil.IsRestartableInitContainer(c) || !layout.GatesOnReady(c.Name) {
		return true
	}
	return s.Ready
}
