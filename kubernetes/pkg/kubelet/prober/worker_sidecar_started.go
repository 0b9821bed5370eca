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

package prober

// This file belongs to sidecar-kubelet's patch series: an annotated
// sidecar that started before a kubelet restart still counts as started.

import (
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// keepAnnotatedSidecarStarted gives an annotated sidecar whose status says it
// started (its startup probe succeeded, before a kubelet restart too) the
// startup result Success when the kubelet holds none for its container. A
// restarted kubelet keeps the status but not the result, and this worker
// probes a started container no more: the app containers, which wait on
// that result (sidecars.Ready), would wait for ever (the contract's "Ready"). Upstream
// seeds the same result for native sidecars when the worker first meets
// their container (kubernetes#136910); here it runs each time the worker
// finds the container started, since the pod's first sync may decide its
// layout after the worker's first run. Pods without annotations, and every
// pod with SidecarContainerOrdering off, keep upstream's results.
func (w *worker) keepAnnotatedSidecarStarted() {
	if w.isInitContainer() || !kubecontainer.SidecarLayoutOf(w.pod).IsSidecar(w.container.Name) {
		return
	}
	if _, found := w.resultsManager.Get(w.containerID); found {
		return
	}
	w.resultsManager.Set(w.containerID, results.Success, w.pod)
}
