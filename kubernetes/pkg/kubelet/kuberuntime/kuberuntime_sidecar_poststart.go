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

// This file belongs to sidecar-kubelet's patch series: an annotated
// sidecar's postStart hook is delivered at least once, across a kubelet
// restart too, and the sidecar is ready only once a run has returned (the
// contract's "Ready").

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/events"
)

// sidecarPostStartRecord is the folder in the pod's directory that marks
// the annotated sidecars whose postStart hook has not returned yet: an
// empty file named for the container's ID, written before the container
// starts and removed when the hook returns. A kubelet that restarts
// meanwhile finds the mark, keeps the sidecar not ready and runs the hook
// again (the contract's "Ready": hooks are delivered at least once). A container
// without a mark (one started by a kubelet without this patch, say) counts
// as having returned from its hook, as upstream counts it.
const sidecarPostStartRecord = "sidecar-kubelet-poststart"

// sidecarPostStartMark is the path of the container's mark, or "" when the
// container is no annotated sidecar with a postStart hook. The layout is
// the one the sync decided, which podStatus carries.
func (m *kubeGenericRuntimeManager) sidecarPostStartMark(pod *v1.Pod, podStatus *kubecontainer.PodStatus, c *v1.Container, containerID string) string {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil || containerID == "" ||
		!kubecontainer.DecideSidecarLayout(pod, podStatus).Layout.IsSidecar(c.Name) {
		return ""
	}
	dir := m.runtimeHelper.GetPodDir(pod.UID)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, sidecarPostStartRecord, containerID)
}

// markSidecarPostStart marks, before an annotated sidecar's container
// starts, that its postStart hook is to run. A mark that cannot be written
// costs only the hook's redelivery after a kubelet restart.
func (m *kubeGenericRuntimeManager) markSidecarPostStart(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, c *v1.Container, containerID string) {
	path := m.sidecarPostStartMark(pod, podStatus, c, containerID)
	if path == "" {
		return
	}
	// The record's folder, but not the pod's directory above it.
	err := os.Mkdir(filepath.Dir(path), 0o750)
	if err == nil || errors.Is(err, fs.ErrExist) {
		err = os.WriteFile(path, nil, 0o640)
	}
	if err != nil {
		klog.FromContext(ctx).Error(err, "Cannot mark a sidecar's postStart hook as under way; a kubelet restart during it will not run it again", "pod", klog.KObj(pod), "containerName", c.Name)
	}
}

// sidecarPostStartReturned removes the mark once the hook has returned.
func (m *kubeGenericRuntimeManager) sidecarPostStartReturned(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus, c *v1.Container, containerID string) {
	path := m.sidecarPostStartMark(pod, podStatus, c, containerID)
	if path == "" {
		return
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		klog.FromContext(ctx).Error(err, "Cannot record a sidecar's returned postStart hook; it may run again", "pod", klog.KObj(pod), "containerName", c.Name)
	}
}

// sidecarPostStartPending reports whether the container's postStart hook
// has not returned since it was marked: a kubelet restart interrupted it.
func (m *kubeGenericRuntimeManager) sidecarPostStartPending(pod *v1.Pod, podStatus *kubecontainer.PodStatus, c *v1.Container, id kubecontainer.ContainerID) bool {
	path := m.sidecarPostStartMark(pod, podStatus, c, id.ID)
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// resumeSidecarPostStartHooks runs again the postStart hook of each running
// annotated sidecar whose mark says no run has returned: a kubelet restart
// interrupted it. It runs before the sync decides who starts, so that the
// sidecar's readiness, and the apps waiting on it, follow in the same sync.
// As upstream's run in startContainer, the hook runs inside the sync, and a
// hook that fails kills the container, which is then restarted.
func (m *kubeGenericRuntimeManager) resumeSidecarPostStartHooks(ctx context.Context, pod *v1.Pod, podStatus *kubecontainer.PodStatus) {
	layout := kubecontainer.DecideSidecarLayout(pod, podStatus).Layout
	if len(layout.Sidecars) == 0 {
		return
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if c.Lifecycle == nil || c.Lifecycle.PostStart == nil || !layout.IsSidecar(c.Name) {
			continue
		}
		cs := podStatus.FindActiveContainerStatusByName(c.Name)
		if cs == nil || cs.State != kubecontainer.ContainerStateRunning || !m.sidecarPostStartPending(pod, podStatus, c, cs.ID) {
			continue
		}
		logger := klog.FromContext(ctx)
		logger.Info("Running a sidecar's postStart hook again: a kubelet restart interrupted it", "pod", klog.KObj(pod), "containerName", c.Name)
		if _, err := m.runner.Run(ctx, cs.ID, pod, c, c.Lifecycle.PostStart); err != nil {
			logger.Error(err, "Failed to execute PostStartHook", "pod", klog.KObj(pod), "containerName", c.Name, "containerID", cs.ID.String())
			// do not record the message in the event so that secrets won't leak from the server.
			m.recordContainerEvent(ctx, pod, c, cs.ID.ID, v1.EventTypeWarning, events.FailedPostStartHook, "PostStartHook failed")
			if err := m.killContainer(ctx, pod, cs.ID, c.Name, "FailedPostStartHook", reasonFailedPostStartHook, nil, nil); err != nil {
				logger.Error(err, "Failed to kill container", "pod", klog.KObj(pod), "containerName", c.Name, "containerID", cs.ID.String())
			}
			continue
		}
		m.sidecarPostStartReturned(ctx, pod, podStatus, c, cs.ID.ID)
	}
}
