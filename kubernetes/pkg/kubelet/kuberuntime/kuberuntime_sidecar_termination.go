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

// This file belongs to sidecar-kubelet's patch series: what the ordered
// termination of a pod (kuberuntime_sidecar_termination_order.go) keeps
// beyond one kill: the pod's deadline and its preStop hooks, recorded in the
// pod's directory so that a restarted kubelet keeps them, and the
// interruption of a kill by a shorter grace period. The feature gate
// SidecarTerminationFix turns these off alone (docs/kep/termination-fix.md):
// each kill then counts the grace period from its own start and runs the
// hooks as upstream's killContainer does, and the order stays.

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/bootclock"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// OrdersSidecarTermination reports whether KillPod stops the pod's
// containers in the order its sidecar layout asks for (annotated sidecars,
// or native sidecars under wait-ready), within one deadline that a later
// delete with a shorter grace period moves earlier at once: the kubelet
// then hands the pod worker's cancellation through to KillPod. The layout
// is the one the sync decided, which podStatus carries.
func OrdersSidecarTermination(pod *v1.Pod, podStatus *kubecontainer.PodStatus) bool {
	return kubecontainer.DecideSidecarLayout(pod, podStatus).Layout.Ordered()
}

// terminationFixed reports whether the feature gate SidecarTerminationFix
// is on: the deadline across kills and kubelet restarts, the interruption
// by a shorter grace period, and the hooks at least once.
func terminationFixed() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.SidecarTerminationFix)
}

// terminationInterruptKey is the context key of WithTerminationInterrupt.
type terminationInterruptKey struct{}

// WithTerminationInterrupt returns ctx carrying interrupt, the pod worker's
// context of a sync. The runtime's SyncPod runs on a context that nothing
// cancels; when such a sync stops an ordered pod (a Job pod whose app
// containers are done), a delete or an eviction that comes meanwhile
// cancels interrupt, and the stop then gives way at once to the pod's
// termination, which follows the shorter grace period (contract rule 13).
func WithTerminationInterrupt(ctx, interrupt context.Context) context.Context {
	return context.WithValue(ctx, terminationInterruptKey{}, interrupt)
}

// interruptibleKill returns the context for a kill that the sync's
// interrupt (WithTerminationInterrupt) may cut short, and its cancel.
func interruptibleKill(ctx context.Context) (context.Context, context.CancelFunc) {
	interrupt, ok := ctx.Value(terminationInterruptKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	return InterruptibleTermination(ctx, interrupt)
}

// InterruptibleTermination returns the context for the kill of a pod whose
// termination its sidecar layout orders, which interrupt (the pod worker's
// context, cancelled when a later delete shortens the grace period) also
// cancels, and its cancel; with SidecarTerminationFix off, ctx itself, as
// upstream kills on a context the pod worker does not reach.
func InterruptibleTermination(ctx, interrupt context.Context) (context.Context, context.CancelFunc) {
	if !terminationFixed() {
		return ctx, func() {}
	}
	killCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(interrupt, cancel)
	return killCtx, func() { stop(); cancel() }
}

// terminationRecord is the file in the pod's directory that holds the
// deadline of the pod's ordered termination, on the node's boot clock, so
// that a restarted kubelet keeps it; the kubelet removes it with the pod,
// and once a kill has stopped every container.
const terminationRecord = "sidecar-kubelet-termination"

// readBootClock reads the node's boot clock, on which the termination
// record counts; a test replaces it with a clock of its own.
var readBootClock = bootclock.Read

// terminationDeadline returns the deadline of the pod's ordered
// termination: now plus the grace period, or the deadline recorded by an
// earlier kill of this termination (before a kubelet restart, or one that
// a shorter grace period interrupted) when that is earlier
// (sidecars.NewDeadline). The deadline counts on clocks that do not
// step: within this kubelet's life the process's monotonic clock (now
// carries it), and across a restart the node's boot clock, which the
// record holds; so a step of the wall clock during a termination neither
// kills every container at once nor lets the pod outlive its grace period.
// It never reads the pod's deletionTimestamp, which the API server wrote
// by its own clock. A record that cannot be read or written costs only its
// restart-safety: the deadline is then counted from now, as upstream
// counts it. With SidecarTerminationFix off the deadline is always counted
// from now, and nothing is recorded.
func (m *kubeGenericRuntimeManager) terminationDeadline(ctx context.Context, pod *v1.Pod, now time.Time, grace time.Duration) sidecars.Deadline {
	var recorded time.Time
	record := func(sidecars.Deadline) {}
	if terminationFixed() {
		recorded, record = m.readTerminationRecord(ctx, pod, now)
	}
	deadline := sidecars.NewDeadline(recorded, now, grace)
	if !deadline.At().Equal(recorded) {
		record(deadline)
	}
	klog.FromContext(ctx).V(2).Info("Ordered termination", "pod", klog.KObj(pod), "deadline", deadline.At(), "left", deadline.At().Sub(now), "recorded", !recorded.IsZero())
	return deadline
}

// readTerminationRecord reads the pod's termination record: the deadline it
// holds (zero if there is none, or none that can be read), and the function
// that records a new deadline. Without the node's boot clock it neither
// reads nor records, since the record counts on that clock.
func (m *kubeGenericRuntimeManager) readTerminationRecord(ctx context.Context, pod *v1.Pod, now time.Time) (time.Time, func(sidecars.Deadline)) {
	logger := klog.FromContext(ctx)
	clock, err := readBootClock()
	if err != nil {
		logger.Error(err, "Cannot read the node's boot clock; the pod's termination deadline will not survive a kubelet restart", "pod", klog.KObj(pod))
		return time.Time{}, func(sidecars.Deadline) {}
	}
	path := filepath.Join(m.runtimeHelper.GetPodDir(pod.UID), terminationRecord)
	var recorded time.Time
	switch data, err := os.ReadFile(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		logger.Error(err, "Cannot read the pod's termination deadline", "pod", klog.KObj(pod))
	default:
		if left, err := sidecars.DeadlineLeft(data, clock, now); err != nil {
			logger.Error(err, "Ignoring the pod's recorded termination deadline", "pod", klog.KObj(pod), "path", path)
		} else {
			recorded = now.Add(left)
		}
	}
	record := func(deadline sidecars.Deadline) {
		if err := writeFileAtomically(path, sidecars.FormatDeadline(deadline.At().Sub(now), clock)); err != nil {
			logger.Error(err, "Cannot record the pod's termination deadline", "pod", klog.KObj(pod))
		}
	}
	return recorded, record
}

// endOrderedTermination ends a kill of a pod whose sidecar layout orders
// it (o, the kill's order; nothing to do for upstream's): it forgets the
// pod's deadline once every container has stopped, so that a later kill of
// the pod (a new sandbox's, say) is a new termination.
func (m *kubeGenericRuntimeManager) endOrderedTermination(ctx context.Context, pod *v1.Pod, o *terminationOrdering, results []*kubecontainer.SyncResult) {
	if !o.ordersSidecars() {
		return
	}
	for _, r := range results {
		if r.Error != nil {
			return
		}
	}
	m.forgetTermination(ctx, pod)
}

// forgetTermination removes the pod's termination record, so that the
// pod's next kill is a new termination: once a kill has stopped every
// container, and when the pod's containers start again in its sandbox
// (KEP-5532's RestartAllContainers), to which an earlier kill that was cut
// short must not hand its deadline.
func (m *kubeGenericRuntimeManager) forgetTermination(ctx context.Context, pod *v1.Pod) {
	path := filepath.Join(m.runtimeHelper.GetPodDir(pod.UID), terminationRecord)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		klog.FromContext(ctx).Error(err, "Cannot remove the pod's termination deadline", "pod", klog.KObj(pod))
	}
}

// writeFileAtomically writes data to path through a file beside it, so
// that a kubelet that stops midway leaves the old content or the new. It
// creates path's folder, but not the pod's directory above it: a hook that
// returns after the kubelet removed the pod's directory must not bring it
// back.
func writeFileAtomically(path string, data []byte) error {
	if err := os.Mkdir(filepath.Dir(path), 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o640); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// preStopHooks are the preStop hooks of ordered terminations under way in
// this kubelet, by container ID: a kill that a shorter grace period
// interrupted leaves its hooks running, and the next kill joins them.
type preStopHooks struct {
	mu      sync.Mutex
	running map[string]chan struct{}
}

// preStopAtLeastOnce delivers the container's preStop hook at least once,
// as Kubernetes documents hooks, before the container is stopped. A hook
// whose turn comes at or after the deadline (the apps used the grace
// period, or a delete asked for 1 second) still runs, for upstream's
// minimum of 2 seconds, as upstream gives every hook; the container is then
// stopped with that minimum too (contract rule 13). A hook that completed (the
// record in the pod's directory says so, also after a kubelet restart) is
// not run again; one that this kubelet is running (started by a kill that a
// shorter grace period interrupted) is joined, not started again; one that
// a kubelet restart interrupted runs again. The hook runs on a context of
// its own, so that neither a shorter grace period nor the end of the wait
// aborts it: like upstream's, it ends with the container. The wait for it
// ends at the deadline (or 2 seconds from now, if later), or when ctx is
// cancelled.
//
// With SidecarTerminationFix off the hook runs as upstream's killContainer
// runs it: on the kill's context, if the deadline leaves a second, for what
// it leaves, and again by the next kill.
func (m *kubeGenericRuntimeManager) preStopAtLeastOnce(ctx context.Context, pod *v1.Pod, containerID kubecontainer.ContainerID, containerSpec *v1.Container, deadline sidecars.Deadline) {
	logger := klog.FromContext(ctx)
	if ctx.Err() != nil {
		return
	}
	if !terminationFixed() {
		if left := deadline.StopSeconds(time.Now()); left > 0 {
			m.executePreStopHook(ctx, pod, containerID, containerSpec, left)
		}
		return
	}
	record := filepath.Join(m.runtimeHelper.GetPodDir(pod.UID), "sidecar-kubelet-prestop", containerID.ID)
	if _, err := os.Stat(record); err == nil {
		logger.V(2).Info("PreStop hook already completed", "pod", klog.KObj(pod), "containerID", containerID.String())
		return
	}
	done := m.sidecarHooks.startOrJoin(containerID.ID, func() {
		hookCtx := context.WithoutCancel(ctx)
		// Waits until the hook returns; the caller waits until the deadline.
		m.executePreStopHook(hookCtx, pod, containerID, containerSpec, math.MaxInt32)
		if err := writeFileAtomically(record, nil); err != nil {
			logger.Error(err, "Cannot record a completed preStop hook; it may run again", "pod", klog.KObj(pod), "containerID", containerID.String())
		}
	})
	timer := time.NewTimer(time.Until(deadline.HookEnds(time.Now())))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		logger.V(2).Info("PreStop hook not completed by the pod's deadline", "pod", klog.KObj(pod), "containerID", containerID.String())
	case <-ctx.Done():
	}
}

// startOrJoin runs hook in a goroutine unless one runs for the container
// already, and returns the channel closed when it has returned.
func (h *preStopHooks) startOrJoin(containerID string, hook func()) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if done, ok := h.running[containerID]; ok {
		return done
	}
	if h.running == nil {
		h.running = map[string]chan struct{}{}
	}
	done := make(chan struct{})
	h.running[containerID] = done
	go func() {
		defer func() {
			h.mu.Lock()
			delete(h.running, containerID)
			h.mu.Unlock()
			close(done)
		}()
		hook()
	}()
	return done
}
