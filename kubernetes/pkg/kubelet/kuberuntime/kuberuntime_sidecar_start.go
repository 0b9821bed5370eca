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

// This file belongs to sidecar-kubelet's patch series. It hands the
// runtime's and the prober's view of a pod to the sidecar decisions of
// github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars and applies
// what they decide to the sync's podActions.

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// sidecarWait records the app containers a sync holds back for their
// sidecars.
type sidecarWait struct {
	// containers are the held app containers.
	containers []string
	// sidecar is the sidecar they wait on.
	sidecar string
}

// sidecarLayout returns the pod's sidecar layout, decided from its newest
// sandbox (kubecontainer.DecideSidecarLayout): the zero layout, upstream
// behaviour, when SidecarContainerOrdering is off or the annotations are
// malformed, which the sync that acts on the layout reports. A pod without
// annotations costs two annotation lookups.
func (m *kubeGenericRuntimeManager) sidecarLayout(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus) sidecars.Layout {
	d := kubecontainer.DecideSidecarLayout(pod, podStatus)
	return d.Layout
}

// orderSidecarStarts applies the start order of the pod's annotated sidecars
// to the containers upstream would start in this sync (changes), and
// reports whether the pod's app containers are done, in which case nothing
// starts and the pod is to be killed, its sidecars last. newSandbox is true
// when the sync creates the pod's sandbox: nothing of the pod runs yet.
func (m *kubeGenericRuntimeManager) orderSidecarStarts(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, layout sidecars.Layout, changes *podActions, newSandbox bool) (appsDone bool) {
	logger := klog.FromContext(ctx)
	find := podStatus.FindActiveContainerStatusByName
	if newSandbox {
		// Nothing of the pod runs in the sandbox this sync creates.
		find = func(string) *kubecontainer.Status { return nil }
	}
	statuses := sidecarContainerStatuses(logger, pod, podStatus, find, func(c *v1.Container, running bool, id kubecontainer.ContainerID) bool {
		if !layout.IsSidecar(c.Name) {
			return false
		}
		// Only a sidecar without probes waits on its postStart hook
		// (sidecars.Ready): the pod's directory is asked for no other.
		hookPending := c.ReadinessProbe == nil && c.StartupProbe == nil && m.sidecarPostStartPending(pod, podStatus, c, id)
		return sidecars.Ready(c, running, probeSucceeded(m.readinessManager, id), probeSucceeded(m.startupManager, id), !hookPending)
	})
	// A running container the sync kills for a failed liveness or startup
	// probe: upstream starts it again unless restartPolicy is Never, and
	// PlanStart restarts a sidecar then too (contract rule 5).
	for i := range statuses {
		if cs := find(statuses[i].Name); cs != nil && statuses[i].Running {
			_, statuses[i].Killed = changes.ContainersToKill[cs.ID]
		}
	}
	var upstream []string
	for _, idx := range changes.ContainersToStart {
		upstream = append(upstream, pod.Spec.Containers[idx].Name)
	}

	plan := layout.PlanStart(statuses, upstream, pod.DeletionTimestamp != nil)
	changes.ContainersToStart = append([]int{}, plan.StartIndices...)
	logger.V(2).Info("Ordered the pod's sidecars", "pod", klog.KObj(pod), "start", plan.Start, "held", plan.Held, "waitingOn", plan.WaitingOn, "appsDone", plan.AppsDone)

	if len(plan.Held) > 0 {
		changes.sidecarWait = &sidecarWait{containers: plan.Held, sidecar: plan.WaitingOn}
	}
	return plan.AppsDone
}

// sidecarContainerStatuses gives the sidecar decisions the runtime's view of
// every entry of spec.containers, in spec order. find returns an entry's
// container, or nil when it has none; ready tells whether a running
// container is ready, and nil leaves Ready false. Whether an entry has
// exited comes from its latest container in any sandbox, so that a pod
// whose sandbox was recreated keeps its completed app containers (contract
// rule 18).
func sidecarContainerStatuses(logger klog.Logger, pod *v1.Pod, podStatus *kubecontainer.PodStatus, find func(name string) *kubecontainer.Status, ready func(c *v1.Container, running bool, id kubecontainer.ContainerID) bool) []sidecars.ContainerStatus {
	statuses := make([]sidecars.ContainerStatus, 0, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		s := sidecars.ContainerStatus{Name: c.Name, WillRestart: kubecontainer.ShouldContainerBeRestarted(logger, c, pod, podStatus)}
		if latest := podStatus.FindContainerStatusByName(c.Name); latest != nil {
			s.Exited = latest.State == kubecontainer.ContainerStateExited
		}
		if cs := find(c.Name); cs != nil {
			s.Created = true
			s.Running = cs.State == kubecontainer.ContainerStateRunning
			s.StartedAt = cs.StartedAt
			s.Ready = ready != nil && ready(c, s.Running, cs.ID)
		}
		statuses = append(statuses, s)
	}
	return statuses
}

// reportSidecarWait adds a failed StartContainer result with
// ErrSidecarsNotReady for every app container the sync held back, so that
// the kubelet's reason cache shows them waiting with reason
// SidecarsNotReady. Such results are not sync failures.
func reportSidecarWait(result *kubecontainer.PodSyncResult, wait *sidecarWait) {
	if wait == nil {
		return
	}
	for _, name := range wait.containers {
		r := kubecontainer.NewSyncResult(kubecontainer.StartContainer, name)
		r.Fail(kubecontainer.ErrSidecarsNotReady, fmt.Sprintf("waiting for sidecar %q to be ready", wait.sidecar))
		result.AddSyncResult(r)
	}
}

// probeSucceeded reports whether the last result of the container's probe
// that manager holds is a success.
func probeSucceeded(manager proberesults.Manager, id kubecontainer.ContainerID) bool {
	if manager == nil {
		return false
	}
	result, found := manager.Get(id)
	return found && result == proberesults.Success
}
