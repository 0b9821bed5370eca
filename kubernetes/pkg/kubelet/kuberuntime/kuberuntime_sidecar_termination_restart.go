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

// This file belongs to sidecar-kubelet's patch series: an annotated sidecar
// that exits during the pod's termination, before its turn to stop and
// while some app container still runs, is started again while time remains
// (contract rule 14), so that the apps keep their proxy or log shipper while
// they drain.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// sidecarExitCheckPeriod is how often the kill of a pod asks the runtime
// whether an annotated sidecar waiting for its turn has exited, while the
// kubelet does not follow the runtime's container stop events (EventedPLEG
// on, or a runtime without the events stream): as often as upstream's PLEG
// relists, so that a sidecar is started again about as soon as a running
// pod's would be.
var sidecarExitCheckPeriod = time.Second

// sidecarExitSafetyPeriod is how often the kill asks while the kubelet
// follows those events, which wake it at once (sidecarStopEvents): only in
// case it missed one, as it may while the stream is followed again after
// it ended.
var sidecarExitSafetyPeriod = 10 * time.Second

// sidecarStopEvents hands the runtime's container stop events, which the
// kubelet follows for pods with a sidecar layout
// (kubelet_sidecar_container_events.go), to the kills whose annotated
// sidecars wait for their turn to stop. A sidecar that exits is then
// started again as soon as it exits, not at the next check, and the kill
// asks the runtime about it every sidecarExitSafetyPeriod, not every
// second: at a full node's long drain, that second's ContainerStatus call
// per waiting sidecar was most of the runtime calls the fork added.
// The zero value is ready to use.
type sidecarStopEvents struct {
	// followed is whether the kubelet follows the events now.
	followed atomic.Bool

	mu sync.Mutex
	// waiting holds, per container ID, the channels of the kills that
	// wait for the container to stop.
	waiting map[string][]chan struct{}
}

// watch returns a channel that receives once the runtime reports that the
// container stopped, and the func to call once the kill no longer waits.
func (s *sidecarStopEvents) watch(containerID string) (<-chan struct{}, func()) {
	stopped := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting == nil {
		s.waiting = map[string][]chan struct{}{}
	}
	s.waiting[containerID] = append(s.waiting[containerID], stopped)
	return stopped, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.waiting[containerID] = slices.DeleteFunc(s.waiting[containerID], func(c chan struct{}) bool { return c == stopped })
		if len(s.waiting[containerID]) == 0 {
			delete(s.waiting, containerID)
		}
	}
}

// stopped wakes the kills that wait for the container to stop; a
// container no kill waits for costs a map lookup.
func (s *sidecarStopEvents) stopped(containerID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.waiting[containerID] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// checkPeriod is how long the kill waits before it asks the runtime again
// whether a sidecar it keeps up has exited.
func (s *sidecarStopEvents) checkPeriod() time.Duration {
	if s.followed.Load() {
		return sidecarExitSafetyPeriod
	}
	return sidecarExitCheckPeriod
}

// SidecarContainerStopped tells the kills of pods with a sidecar layout
// that the runtime reported the container stopped. The kubelet calls it
// for each stop event of the runtime's container events stream.
func (m *kubeGenericRuntimeManager) SidecarContainerStopped(containerID string) {
	m.sidecarStops.stopped(containerID)
}

// SidecarStopEventsFollowed tells the kills whether the kubelet follows
// the runtime's container stop events now: while it does, they rely on
// SidecarContainerStopped and ask the runtime seldom.
func (m *kubeGenericRuntimeManager) SidecarStopEventsFollowed(followed bool) {
	m.sidecarStops.followed.Store(followed)
}

// sidecarRestartsKey is the context key of WithSidecarRestarts.
type sidecarRestartsKey struct{}

// sidecarRestarts is what starting a container again needs that a kill is
// not given: the pod's pull secrets and the kubelet's crash-loop back-off,
// which SyncPod receives as arguments, and a way to write the pod's status.
type sidecarRestarts struct {
	pullSecrets []v1.Secret
	backOff     *flowcontrol.Backoff
	// writeStatus hands the runtime's status of the pod to the kubelet's
	// status manager, as SyncTerminatingPod does before the kill; nil
	// writes nothing.
	writeStatus func(*kubecontainer.PodStatus)
	// statusWrites serializes writeStatus: each sidecar waits for its turn
	// in a goroutine of its own, and the status read last must be the one
	// written last.
	statusWrites *sync.Mutex
}

// WithSidecarRestarts returns ctx carrying what a kill of the pod needs to
// start again an annotated sidecar that exits before its turn to stop: the
// pod's pull secrets and the kubelet's crash-loop back-off, the same that
// SyncPod uses, so that a sidecar crashing during termination backs off as
// it would while the pod runs. A kill without it leaves such a sidecar
// down, as upstream does.
//
// writeStatus, if not nil, is called with the runtime's status of the pod
// each time the kill finds such a sidecar exited, after acting on it. The
// pod worker writes the pod's status before the kill and then waits for it
// through the whole drain; without these writes the API would show the
// sidecar's first container running until the kill ends, and the kubelet
// would serve that container's logs.
func WithSidecarRestarts(ctx context.Context, pullSecrets []v1.Secret, backOff *flowcontrol.Backoff, writeStatus func(*kubecontainer.PodStatus)) context.Context {
	return context.WithValue(ctx, sidecarRestartsKey{}, sidecarRestarts{
		pullSecrets:  pullSecrets,
		backOff:      backOff,
		writeStatus:  writeStatus,
		statusWrites: &sync.Mutex{},
	})
}

// waitForTurnKeepingUp waits until every container that must stop before
// the sidecar has stopped (its turn), until the deadline, or until ctx is
// cancelled. Meanwhile, if the sidecar is one the pod's order keeps up and
// the kill may restart it (WithSidecarRestarts), it asks the runtime
// whether the sidecar has exited (at once, then when the runtime reports
// the sidecar stopped, and every checkPeriod) and, while some app container
// still runs, starts it again (restartBeforeTurn). It returns the sidecar's
// container to stop at its turn: the last one it started, or containerID.
func (m *kubeGenericRuntimeManager) waitForTurnKeepingUp(ctx context.Context, pod *v1.Pod, o *terminationOrdering, containerID kubecontainer.ContainerID, containerSpec *v1.Container) kubecontainer.ContainerID {
	timer := time.NewTimer(time.Until(o.deadline.At()))
	defer timer.Stop()
	// checks ticks, and stops receives, while the sidecar is kept up; a
	// nil channel never does.
	var checks <-chan time.Time
	var stops <-chan struct{}
	var check *time.Timer
	unwatch := func() {}
	defer func() { unwatch() }()
	restarts, ok := ctx.Value(sidecarRestartsKey{}).(sidecarRestarts)
	if ok && slices.Contains(o.sidecarOrder.KeptUp, containerSpec.Name) {
		stops, unwatch = m.sidecarStops.watch(containerID.ID)
		// The first check comes at once: the sidecar may have exited
		// before the watch began, and no event would tell of it.
		check = time.NewTimer(0)
		defer check.Stop()
		checks = check.C
	}
	for _, prereq := range o.prereqs[containerSpec.Name] {
		for waiting := true; waiting; {
			select {
			case <-prereq:
				waiting = false
				continue
			case <-timer.C:
				return containerID
			case <-ctx.Done():
				return containerID
			case <-checks:
			case <-stops:
			}
			if o.appsStopped() {
				// The apps are gone: the sidecar is no longer needed.
				checks, stops = nil, nil
				continue
			}
			previous := containerID
			var next time.Duration
			containerID, next = m.restartBeforeTurn(ctx, pod, containerSpec, containerID, o.deadline, restarts)
			if containerID != previous {
				// A new container: wait for its stop too.
				unwatch()
				stops, unwatch = m.sidecarStops.watch(containerID.ID)
			}
			if next < 0 {
				checks, stops = nil, nil
				continue
			}
			check.Reset(next)
		}
	}
	return containerID
}

// restartBeforeTurn asks the runtime whether the annotated sidecar's
// container has exited and, if it has, starts it again when its back-off
// allows and if time remains before the deadline (Deadline.RestartAt). It
// returns the sidecar's container (the new one, if it started one) and when
// to ask again: at once for a new container, never for a negative duration
// (the sidecar stays down until its turn). Whenever it finds the sidecar
// exited, it writes the pod's status last (writeStatusDuringKill).
func (m *kubeGenericRuntimeManager) restartBeforeTurn(ctx context.Context, pod *v1.Pod, containerSpec *v1.Container, containerID kubecontainer.ContainerID, deadline sidecars.Deadline, restarts sidecarRestarts) (kubecontainer.ContainerID, time.Duration) {
	logger := klog.FromContext(ctx)
	resp, err := m.runtimeService.ContainerStatus(ctx, containerID.ID, false)
	if err != nil || resp.GetStatus() == nil {
		logger.V(4).Info("Cannot check a sidecar waiting for its turn to stop", "pod", klog.KObj(pod), "containerName", containerSpec.Name, "containerID", containerID.String(), "err", err)
		return containerID, sidecarExitCheckPeriod
	}
	if resp.Status.State != runtimeapi.ContainerState_CONTAINER_EXITED {
		return containerID, m.sidecarStops.checkPeriod()
	}
	defer m.writeStatusDuringKill(ctx, pod, restarts)

	now := time.Now()
	// As doBackOff does: the back-off counts from when the container
	// finished, by the runtime's wall clock, which the back-off's clock is.
	finishedAt := time.Unix(0, resp.Status.FinishedAt)
	key := GetBackoffKey(pod, containerSpec)
	var backOffEnds time.Time
	if restarts.backOff.IsInBackOffSince(key, finishedAt) {
		backOffEnds = now.Add(finishedAt.Add(restarts.backOff.Get(key)).Sub(now))
	}
	at, ok := deadline.RestartAt(now, backOffEnds)
	if !ok {
		logger.V(2).Info("Sidecar exited before its turn to stop; too little time left to start it again", "pod", klog.KObj(pod), "containerName", containerSpec.Name, "exitCode", resp.Status.ExitCode, "left", deadline.At().Sub(now))
		return containerID, -1
	}
	if wait := at.Sub(now); wait > 0 {
		logger.V(2).Info("Sidecar exited before its turn to stop; starting it again after its back-off", "pod", klog.KObj(pod), "containerName", containerSpec.Name, "exitCode", resp.Status.ExitCode, "backOff", wait)
		return containerID, wait
	}

	restarts.backOff.Next(key, finishedAt)
	logger.Info("Sidecar exited before its turn to stop while app containers drain; starting it again", "pod", klog.KObj(pod), "containerName", containerSpec.Name, "exitCode", resp.Status.ExitCode, "left", deadline.At().Sub(now))
	newID, err := m.startSidecarAgain(ctx, pod, containerSpec, restarts.pullSecrets)
	if err != nil {
		logger.Error(err, "Cannot start again a sidecar that exited before its turn to stop", "pod", klog.KObj(pod), "containerName", containerSpec.Name)
		// The sidecar stays exited: no event will wake the kill.
		return containerID, sidecarExitCheckPeriod
	}
	// The new container is checked at once: it may exit before the kill
	// watches it, and then no stop event would wake the kill.
	return newID, 0
}

// writeStatusDuringKill hands the runtime's status of the pod, read now, to
// restarts.writeStatus. restartBeforeTurn defers it, so that it reads the
// pod after any start of the sidecar: a sidecar found exited in its
// back-off shows its exit, and one started again its new container. The
// status manager drops a status equal to the one it has, so a look that
// finds nothing new costs no write to the API.
func (m *kubeGenericRuntimeManager) writeStatusDuringKill(ctx context.Context, pod *v1.Pod, restarts sidecarRestarts) {
	if restarts.writeStatus == nil {
		return
	}
	restarts.statusWrites.Lock()
	defer restarts.statusWrites.Unlock()
	podStatus, err := m.sidecarPodStatus(ctx, pod)
	if err != nil {
		klog.FromContext(ctx).V(4).Info("Cannot read the pod's status during its termination", "pod", klog.KObj(pod), "err", err)
		return
	}
	restarts.writeStatus(podStatus)
}

// startSidecarAgain starts a new container for the sidecar in the pod's
// sandbox, as SyncPod would start it, and returns its ID.
func (m *kubeGenericRuntimeManager) startSidecarAgain(ctx context.Context, pod *v1.Pod, containerSpec *v1.Container, pullSecrets []v1.Secret) (kubecontainer.ContainerID, error) {
	podStatus, err := m.sidecarPodStatus(ctx, pod)
	if err != nil {
		return kubecontainer.ContainerID{}, err
	}
	if len(podStatus.SandboxStatuses) == 0 || podStatus.SandboxStatuses[0].GetMetadata() == nil {
		return kubecontainer.ContainerID{}, fmt.Errorf("pod %s has no sandbox", klog.KObj(pod))
	}
	sandbox := podStatus.SandboxStatuses[0]
	if sandbox.State != runtimeapi.PodSandboxState_SANDBOX_READY {
		return kubecontainer.ContainerID{}, fmt.Errorf("the sandbox of pod %s is not ready", klog.KObj(pod))
	}
	sandboxConfig, err := m.generatePodSandboxConfig(ctx, pod, sandbox.Metadata.Attempt)
	if err != nil {
		return kubecontainer.ContainerID{}, err
	}
	imageVolumePulls, err := m.getImageVolumes(ctx, pod, sandboxConfig, pullSecrets)
	if err != nil {
		return kubecontainer.ContainerID{}, err
	}
	result := kubecontainer.NewSyncResult(kubecontainer.StartContainer, containerSpec.Name)
	imageVolumes, err := m.toKubeContainerImageVolumes(ctx, imageVolumePulls, containerSpec, pod, result)
	if err != nil {
		return kubecontainer.ContainerID{}, err
	}
	podIP := ""
	if len(podStatus.IPs) > 0 {
		podIP = podStatus.IPs[0]
	}
	if msg, err := m.startContainer(ctx, sandbox.Id, sandboxConfig, containerStartSpec(containerSpec), pod, podStatus, pullSecrets, podIP, podStatus.IPs, imageVolumes); err != nil {
		return kubecontainer.ContainerID{}, fmt.Errorf("%w: %s", err, msg)
	}
	podStatus, err = m.sidecarPodStatus(ctx, pod)
	if err != nil {
		return kubecontainer.ContainerID{}, err
	}
	started := podStatus.FindContainerStatusByName(containerSpec.Name)
	if started == nil || started.State != kubecontainer.ContainerStateRunning {
		return kubecontainer.ContainerID{}, fmt.Errorf("container %s of pod %s does not run after its start", containerSpec.Name, klog.KObj(pod))
	}
	return started.ID, nil
}

// sidecarPodStatus returns the pod's status as the runtime has it now.
func (m *kubeGenericRuntimeManager) sidecarPodStatus(ctx context.Context, pod *v1.Pod) (*kubecontainer.PodStatus, error) {
	runningPod, err := m.GetPod(ctx, pod.UID)
	if err != nil {
		return nil, err
	}
	return m.GetPodStatus(ctx, runningPod)
}
