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

// This file belongs to sidecar-kubelet's patch series: each pod's sidecar
// layout as a value (contract rule 19). It keeps nothing: the layout is
// decided from annotations the runtime already keeps with the pod's
// sandbox, and handed on with the pod.

import (
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// SidecarOrderingEnabled reports whether SidecarContainerOrdering is on
// (sidecar-kubelet).
func SidecarOrderingEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.SidecarContainerOrdering)
}

// DecideSidecarLayout decides the pod's sidecar layout from the annotations
// of its newest sandbox in status, which the runtime reads with the
// sandbox's status and keeps for the sandbox's life, or, before the pod has
// a sandbox, from the pod's own (the runtime creates the sandbox with them).
// A new sandbox of the pod is created with the annotations of the one
// before (PodAsDecided), so the decision is the same for the pod's whole
// life, after a kubelet restart too, whatever its annotations say now.
//
// A status that carries the decision of the sync that handed it on
// (WithSidecarLayout) gives that decision: the sync's later readers do not
// decide again.
//
// It keeps nothing and records nothing: whoever acts on the decision says
// what is wrong with malformed annotations. The zero Decision is upstream
// behaviour: SidecarContainerOrdering is off, or neither the pod nor its
// sandbox has sidecar annotations (two map lookups each).
func DecideSidecarLayout(pod *v1.Pod, status *PodStatus) sidecars.Decision {
	if pod == nil || !SidecarOrderingEnabled() {
		return sidecars.Decision{}
	}
	if status != nil && status.SidecarLayout != nil {
		return *status.SidecarLayout
	}
	return sidecars.Decide(pod, sidecarAnnotationsRunWith(pod, status))
}

// WithSidecarLayout decides the pod's sidecar layout (DecideSidecarLayout)
// once for a sync, and returns the status the sync hands on, which carries
// the decision (PodStatus.SidecarLayout), and the decision. The status is a
// shallow copy: status may be the pod cache's, which the probe workers and
// the relists read meanwhile. It is status itself, carrying nothing, with
// the gate off, without a status, or for a pod whose annotations and
// sandbox have no sidecar annotations, whose readers decide the zero
// layout again in two map lookups.
func WithSidecarLayout(pod *v1.Pod, status *PodStatus) (*PodStatus, sidecars.Decision) {
	d := DecideSidecarLayout(pod, status)
	if status == nil || status.SidecarLayout != nil || d.Annotations == nil {
		return status, d
	}
	withLayout := *status
	withLayout.SidecarLayout = &d
	return &withLayout, d
}

// PodAsDecided returns the pod carrying the sidecar annotations its layout
// is decided from (DecideSidecarLayout): pod itself when it carries them,
// as it does unless a user changed them on the running pod, else a shallow
// copy with its own annotations; pod is never modified. The kubelet's syncs
// hand this pod on, to the runtime, the status manager and the probe
// workers, which read the layout from it (SidecarLayoutOf), so that all
// see the decision the pod's sandbox carries. With the gate off it is pod,
// its annotations included, as upstream passes it. Every sync of the pod
// calls it, so it copies the annotations without parsing them: four map
// lookups when nothing changed.
func PodAsDecided(pod *v1.Pod, status *PodStatus) *v1.Pod {
	if pod == nil || !SidecarOrderingEnabled() {
		return pod
	}
	return sidecars.PodWithSidecarAnnotationsOf(pod, sidecarAnnotationsRunWith(pod, status))
}

// SidecarLayoutOf returns the layout of a pod a sync handed on
// (PodAsDecided), decided from its own annotations: for the parts of the
// kubelet that see the pod but not its runtime status (the status manager,
// the probe workers, the kill path). It is the zero Layout, upstream
// behaviour, for a pod without sidecar annotations, with the gate off, or
// with malformed annotations. A pod without annotations costs two map
// lookups; one with them a parse linear in their length.
func SidecarLayoutOf(pod *v1.Pod) sidecars.Layout {
	if pod == nil || !sidecars.HasAnnotations(pod.Annotations) || !SidecarOrderingEnabled() {
		return sidecars.Layout{}
	}
	return sidecars.Decide(pod, pod.Annotations).Layout
}

// SidecarLayoutOfRunningPod returns the layout of a pod the kill path
// stops: the one the sync decided, when runningPod was made from the
// sync's status (ConvertPodStatusToRunningPod carries it), else the one
// the pod carries (SidecarLayoutOf), as for a pod the kubelet cleans up
// outside a sync.
func SidecarLayoutOfRunningPod(pod *v1.Pod, runningPod Pod) sidecars.Layout {
	if runningPod.SidecarLayout != nil && SidecarOrderingEnabled() {
		return runningPod.SidecarLayout.Layout
	}
	return SidecarLayoutOf(pod)
}

// sidecarAnnotationsRunWith returns the annotations the pod's layout is
// decided from: its newest sandbox's, the first of status's sandbox
// statuses as the runtime sorts them, or the pod's own before it has one.
func sidecarAnnotationsRunWith(pod *v1.Pod, status *PodStatus) map[string]string {
	if status != nil && len(status.SandboxStatuses) > 0 && status.SandboxStatuses[0] != nil {
		return status.SandboxStatuses[0].GetAnnotations()
	}
	return pod.Annotations
}
