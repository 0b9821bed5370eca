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

package container

// This file belongs to sidecar-kubelet's patch series: the one place that
// decides, and keeps, each pod's sidecar layout (contract rule 19).

import (
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// SidecarOrderingEnabled reports whether SidecarContainerOrdering is on
// (sidecar-kubelet).
func SidecarOrderingEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.SidecarContainerOrdering)
}

// sidecarLayouts holds the sidecar layout decided for each pod that has
// sidecar annotations, for as long as the kubelet knows the pod. It is
// process-wide, as the feature gate is, because its readers (the runtime,
// the status manager, the probe workers, the pod workers) are built by
// constructors that upstream's own tests call unedited: none of them can
// take it as a parameter without editing those tests.
var sidecarLayouts = struct {
	sync.RWMutex
	byPod map[types.UID]sidecars.Decision
	// size is len(byPod), read without the lock: a node without annotated
	// pods pays one atomic load per reader.
	size atomic.Int64
}{byPod: map[types.UID]sidecars.Decision{}}

// DecideSidecarLayout returns the pod's sidecar layout, deciding it the
// first time it is asked: from the annotations of the pod's newest sandbox,
// which the runtime keeps with the sandbox (so a restarted kubelet decides
// as before), or, before the pod has a sandbox, from the pod's own (the
// runtime creates the sandbox with them: Decision.PodAsDecided). Every part
// of the kubelet that orders sidecars uses this one decision; a later change
// of the pod's annotations changes nothing.
//
// The zero Decision is upstream behaviour: SidecarContainerOrdering is off,
// or neither the pod nor its sandbox has sidecar annotations (two map
// lookups each, and nothing is kept).
func DecideSidecarLayout(pod *v1.Pod, podStatus *PodStatus) sidecars.Decision {
	if pod == nil {
		return sidecars.Decision{}
	}
	if d, ok := decidedSidecarLayout(pod.UID); ok {
		return d
	}
	from := pod.Annotations
	if podStatus != nil && len(podStatus.SandboxStatuses) > 0 {
		from = podStatus.SandboxStatuses[0].GetAnnotations()
	}
	if !sidecars.HasAnnotations(from) || !SidecarOrderingEnabled() {
		return sidecars.Decision{}
	}
	d := sidecars.Decide(pod, from)
	sidecarLayouts.Lock()
	defer sidecarLayouts.Unlock()
	if earlier, ok := sidecarLayouts.byPod[pod.UID]; ok {
		// Another reader decided first: one decision per pod.
		return earlier
	}
	sidecarLayouts.byPod[pod.UID] = d
	sidecarLayouts.size.Store(int64(len(sidecarLayouts.byPod)))
	return d
}

// SidecarLayoutOf returns the layout decided for the pod, for the parts of
// the kubelet that see the pod but not its runtime status (the status
// manager, the probe workers, the pod workers). It is the zero Layout,
// upstream behaviour, for a pod without sidecar annotations, with the gate
// off, or before any sync of the pod has decided (its first sync decides
// before it starts a container).
func SidecarLayoutOf(uid types.UID) sidecars.Layout {
	d, _ := decidedSidecarLayout(uid)
	return d.Layout
}

func decidedSidecarLayout(uid types.UID) (sidecars.Decision, bool) {
	if sidecarLayouts.size.Load() == 0 {
		return sidecars.Decision{}, false
	}
	sidecarLayouts.RLock()
	defer sidecarLayouts.RUnlock()
	d, ok := sidecarLayouts.byPod[uid]
	return d, ok
}

// ForgetSidecarLayout drops the decision of a pod the kubelet is done with
// (its pod worker is removed). A pod with the same UID decides anew.
func ForgetSidecarLayout(uid types.UID) {
	if sidecarLayouts.size.Load() == 0 {
		return
	}
	sidecarLayouts.Lock()
	defer sidecarLayouts.Unlock()
	delete(sidecarLayouts.byPod, uid)
	sidecarLayouts.size.Store(int64(len(sidecarLayouts.byPod)))
}
