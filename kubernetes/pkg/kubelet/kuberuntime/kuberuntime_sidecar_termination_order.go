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

// This file belongs to sidecar-kubelet's patch series: upstream's
// terminationOrdering (kuberuntime_termination_order.go) taught the order
// of a pod whose sidecar layout orders its stop (sidecars.TerminationOrder),
// within one deadline for the whole pod (sidecars.Deadline), and the kill of
// a container in that order.

import (
	"context"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// newSidecarTerminationOrdering orders the kill of a pod whose sidecar
// layout orders its stop (contract rules 12 to 14): app containers first,
// then the annotated sidecars in reverse annotation order, then the native
// sidecars in reverse order (layout.TerminationOrder), all within the pod's
// one deadline on the node's clock (terminationDeadline), which the kill's
// grace period (gracePeriodOverride, or the pod's) asks for. running are the
// containers that run; the others count as stopped.
func (m *kubeGenericRuntimeManager) newSidecarTerminationOrdering(ctx context.Context, pod *v1.Pod, layout sidecars.Layout, running []*kubecontainer.Container, gracePeriodOverride *int64) *terminationOrdering {
	order := layout.TerminationOrder(pod)
	runningNames := map[string]bool{}
	for _, c := range running {
		runningNames[c.Name] = true
	}
	o := &terminationOrdering{
		prereqs:    map[string][]chan struct{}{},
		terminated: map[string]chan struct{}{},
	}
	for _, containers := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range containers {
			ch := make(chan struct{})
			o.terminated[c.Name] = ch
			if !runningNames[c.Name] {
				close(ch)
			}
		}
	}
	for name, after := range order.After {
		for _, prereq := range after {
			o.prereqs[name] = append(o.prereqs[name], o.terminated[prereq])
		}
	}
	// The sidecars that stop, for the log and the event of their turn.
	order.StopOrder = slices.DeleteFunc(order.StopOrder, func(name string) bool { return !runningNames[name] })
	o.sidecarOrder = &order
	if len(running) > 0 {
		// killContainer's grace period for each of the pod's containers:
		// the override, or the pod's.
		grace := setTerminationGracePeriod(ctx, pod, nil, "", kubecontainer.ContainerID{}, reasonUnknown)
		if gracePeriodOverride != nil {
			grace = *gracePeriodOverride
		}
		o.deadline = m.terminationDeadline(ctx, pod, time.Now(), time.Duration(grace)*time.Second)
	}
	return o
}

// ordersSidecars reports whether o is the order of a pod's sidecar layout
// (newSidecarTerminationOrdering) rather than upstream's.
func (o *terminationOrdering) ordersSidecars() bool {
	return o != nil && o.sidecarOrder != nil
}

// preStopAndWaitForTurn is killContainer's part for a pod whose sidecar
// layout orders the kill (o): it runs the container's preStop hook and
// waits for its turn to stop, each step bounded by the pod's one deadline.
// An annotated sidecar runs its hook at its turn, since the hook must finish
// before the container is signalled; app containers and native sidecars run
// theirs first, as upstream does. Hooks are delivered at least once
// (preStopAtLeastOnce). An annotated sidecar that exits while it waits, and
// while some app container still runs, is started again
// (waitForTurnKeepingUp). It returns the container to stop (the sidecar's
// last, if it was started again) and the timeout for StopContainer: what is
// left of the deadline.
//
// A cancelled ctx (the pod worker's, when a later delete shortens the grace
// period) ends the wait at once: the container is then not signalled here,
// and the pod worker terminates the pod again with the new deadline.
func (m *kubeGenericRuntimeManager) preStopAndWaitForTurn(ctx context.Context, pod *v1.Pod, o *terminationOrdering, containerID kubecontainer.ContainerID, containerSpec *v1.Container) (kubecontainer.ContainerID, int64) {
	hasPreStop := containerSpec.Lifecycle != nil && containerSpec.Lifecycle.PreStop != nil
	atTurn := slices.Contains(o.sidecarOrder.PreStopAtTurn, containerSpec.Name)

	if hasPreStop && !atTurn {
		m.preStopAtLeastOnce(ctx, pod, containerID, containerSpec, o.deadline)
	}
	containerID = m.waitForTurnKeepingUp(ctx, pod, o, containerID, containerSpec)
	if ctx.Err() != nil {
		return containerID, o.deadline.StopSeconds(time.Now())
	}
	if len(o.prereqs[containerSpec.Name]) > 0 && o.takeSidecarsTurn(time.Now()) {
		m.sidecarsTurnCame(ctx, pod, o)
	}
	if hasPreStop && atTurn {
		m.preStopAtLeastOnce(ctx, pod, containerID, containerSpec, o.deadline)
	}
	return containerID, o.deadline.StopSeconds(time.Now())
}

// takeSidecarsTurn reports whether the sidecars' turn to stop comes now,
// and records when: true for the first sidecar whose wait ends (the app
// containers have stopped, or the deadline has passed).
func (o *terminationOrdering) takeSidecarsTurn(now time.Time) bool {
	o.lock.Lock()
	defer o.lock.Unlock()
	if !o.sidecarsTurn.IsZero() {
		return false
	}
	o.sidecarsTurn = now
	return true
}

// appsStopped reports whether every app container of the pod has stopped.
func (o *terminationOrdering) appsStopped() bool {
	o.lock.Lock()
	defer o.lock.Unlock()
	for _, name := range o.sidecarOrder.Apps {
		// containerTerminated forgets a container that stopped.
		if ch, ok := o.terminated[name]; ok {
			select {
			case <-ch:
			default:
				return false
			}
		}
	}
	return true
}

// sidecarsTurnCame says, once the app containers have stopped, in which
// order the sidecars stop.
func (m *kubeGenericRuntimeManager) sidecarsTurnCame(ctx context.Context, pod *v1.Pod, o *terminationOrdering) {
	klog.FromContext(ctx).V(2).Info("Stopping sidecars", "pod", klog.KObj(pod), "order", o.sidecarOrder.StopOrder)
}
