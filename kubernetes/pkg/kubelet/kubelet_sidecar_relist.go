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

// This file belongs to sidecar-kubelet's patch series: the relists of one
// pod that end a sidecar pod's waits at once, where upstream waits for the
// next periodic relist.
//
// Each relist of a pod is a ListPodSandbox and a ListContainers call, both
// filtered by the pod but served by the runtime from the node's whole
// container list, so each costs in proportion to the node's containers. At
// a full node (110 pods) asking for one at every probe success, container
// stop and phase move of every ordered pod cost the runtime more than the
// waits it saved: the kubelet asks only where a waiting container, or a
// Job's terminal phase, is behind the relist.

import (
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// relistOnSidecarProbeSuccess asks for a relist of the pod at once when a
// probe of a container that others wait for succeeds (an annotated
// sidecar's, or a native sidecar's under wait-ready:
// sidecars.Layout.HoldsOthers). The probe's success triggers a sync, but the
// pod worker syncs only once the runtime cache is newer than its last sync:
// a probe that succeeds just after a sync (the sync itself triggers the
// first readiness probe) would wait for the next periodic relist, up to a
// second, before the waiting containers start. An app's probe success
// releases nobody and keeps upstream's path.
func (kl *Kubelet) relistOnSidecarProbeSuccess(logger klog.Logger, pod *v1.Pod, update proberesults.Update) {
	if update.Result != proberesults.Success {
		return
	}
	layout, status := kl.sidecarLayoutInCache(pod)
	if !layout.Ordered() {
		return
	}
	// A container the status does not name yet cannot be told apart: relist.
	if name, ok := containerNameByID(status, update.ContainerID); ok && !layout.HoldsOthers(pod, name) {
		return
	}
	kl.RequestPodRelist(logger, pod.UID)
}

// containerNameByID finds the name of the pod's container with this ID in
// the pod's status in the runtime cache, the runtime's own view, where the
// pod's status got the ID the prober reports.
func containerNameByID(status *kubecontainer.PodStatus, id kubecontainer.ContainerID) (string, bool) {
	if status == nil {
		return "", false
	}
	for _, cs := range status.ContainerStatuses {
		if cs.ID == id {
			return cs.Name, true
		}
	}
	return "", false
}

// relistOrderedPodOnTransition asks for a relist of a pod whose containers
// the sidecar annotations order, once its worker has moved it to terminating
// or to terminated. Without it each move waits for the next periodic relist,
// up to a second: for a Job pod whose apps are done, two of them stand
// between the sync that stopped its sidecars and the terminal phase. A
// deleted pod has no phase to reach: its last moves keep upstream's pace.
func (kl *Kubelet) relistOrderedPodOnTransition(logger klog.Logger, pod *v1.Pod) {
	if pod.DeletionTimestamp != nil {
		return
	}
	if layout, _ := kl.sidecarLayoutInCache(pod); layout.Ordered() {
		kl.RequestPodRelist(logger, pod.UID)
	}
}

// onlyHeldForSidecars reports whether every result of a sync is an app
// container held back for its sidecars (kubecontainer.ErrSidecarsNotReady):
// a sync that changed nothing in the runtime. Upstream asks for a relist of
// the pod after every sync with results and no error; such results are not
// errors (PodSyncResult.Error), but a relist after them finds nothing new.
// It would still let the pod worker's next sync through at once, so each
// probe result of a waiting sidecar would buy one more sync and one more
// relist: make bench's density runs counted five to six relists of each
// annotated pod against three of a native sidecar's under wait-ready. The
// sidecar's readiness, which does release the apps, asks for its own relist
// (relistOnSidecarProbeSuccess).
func onlyHeldForSidecars(result kubecontainer.PodSyncResult) bool {
	if len(result.SyncResults) == 0 {
		return false
	}
	for _, r := range result.SyncResults {
		if !errors.Is(r.Error, kubecontainer.ErrSidecarsNotReady) {
			return false
		}
	}
	return true
}
