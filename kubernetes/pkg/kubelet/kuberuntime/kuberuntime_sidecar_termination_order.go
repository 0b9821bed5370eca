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

// This file belongs to sidecar-kubelet's patch series: the order in which
// the containers of a pod with a sidecar layout stop, beside upstream's
// terminationOrdering (kuberuntime_termination_order.go), which orders
// native sidecars alone.

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// containerTerminationOrder is what killContainer asks of the order in
// which the containers of one kill stop: upstream's terminationOrdering, or
// a sidecarTerminationOrder.
type containerTerminationOrder interface {
	// waitForTurn waits until the containers that stop before the named
	// one have stopped, for at most gracePeriod seconds, and returns the
	// seconds it waited.
	waitForTurn(name string, gracePeriod int64) float64
	// containerTerminated marks the named container as stopped.
	containerTerminated(name string)
}

// sidecarTerminationOrder stops the containers of a pod whose sidecar
// layout orders them (SPEC rules 12 to 14): app containers first, then the
// annotated sidecars in reverse annotation order, then the native sidecars
// in reverse order, all within one deadline for the whole pod on the node's
// clock. Unlike upstream's terminationOrdering, it runs the containers'
// preStop hooks itself (preStopAndWaitForTurn): an annotated sidecar's hook
// runs at its turn, and every hook is delivered at least once against the
// pod's deadline rather than each container's own grace period. An
// annotated sidecar that exits before its turn while the apps drain is
// started again (kuberuntime_sidecar_termination_restart.go).
type sidecarTerminationOrder struct {
	m   *kubeGenericRuntimeManager
	pod *v1.Pod
	// prereqs are, by container, the channels of the containers that stop
	// before it; stopped are every container's, closed once it stopped (or
	// at once, for one that does not run).
	prereqs map[string][]chan struct{}
	stopped map[string]chan struct{}
	// preStopAtTurn are the containers whose preStop hook runs at their turn.
	preStopAtTurn sets.Set[string]
	// apps are the app containers' stopped channels; keptUp are the
	// sidecars started again if they exit before their turn while some app
	// container still runs (SPEC rule 14).
	apps   []chan struct{}
	keptUp sets.Set[string]
	// stopOrder lists the running sidecars in the order they stop.
	stopOrder []string

	// deadline is the pod's one deadline, taken by the first container to
	// ask, with the grace period that every container of the kill shares.
	deadlineOnce sync.Once
	deadline     time.Time

	// sidecarsTurn runs sidecarsTurnCame once, when the first sidecar's
	// turn comes: the app containers have stopped.
	sidecarsTurn sync.Once

	mu sync.Mutex
}

// newSidecarTerminationOrder orders the kill of a pod with a sidecar layout,
// of which running are the containers that run.
func (m *kubeGenericRuntimeManager) newSidecarTerminationOrder(pod *v1.Pod, layout sidecars.Layout, running []*kubecontainer.Container) *sidecarTerminationOrder {
	order := layout.TerminationOrder(pod)
	runningNames := sets.New[string]()
	for _, c := range running {
		runningNames.Insert(c.Name)
	}
	o := &sidecarTerminationOrder{
		m:             m,
		pod:           pod,
		prereqs:       map[string][]chan struct{}{},
		stopped:       map[string]chan struct{}{},
		preStopAtTurn: sets.New(order.PreStopAtTurn...),
		keptUp:        sets.New(order.KeptUp...),
	}
	for _, containers := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range containers {
			ch := make(chan struct{})
			o.stopped[c.Name] = ch
			if !runningNames.Has(c.Name) {
				close(ch)
			}
		}
	}
	for _, name := range order.Apps {
		o.apps = append(o.apps, o.stopped[name])
	}
	for name, after := range order.After {
		for _, prereq := range after {
			o.prereqs[name] = append(o.prereqs[name], o.stopped[prereq])
		}
	}
	for _, name := range order.StopOrder {
		if runningNames.Has(name) {
			o.stopOrder = append(o.stopOrder, name)
		}
	}
	return o
}

// preStopAndWaitForTurn runs the container's preStop hook and waits for its
// turn to stop, each step bounded by the pod's one deadline. An annotated
// sidecar runs its hook at its turn, since the hook must finish before the
// container is signalled; app containers and native sidecars run theirs
// first, as upstream does. Hooks are delivered at least once
// (preStopAtLeastOnce). An annotated sidecar that exits while it waits, and
// while some app container still runs, is started again
// (waitForTurnKeepingUp). gracePeriod is the container's, as killContainer
// computed it; the first container's is the pod's. It returns the
// container to stop (the sidecar's last, if it was started again) and the
// timeout for StopContainer: what is left of the deadline.
//
// A cancelled ctx (the pod worker's, when a later delete shortens the grace
// period) ends the wait at once: the container is then not signalled here,
// and the pod worker terminates the pod again with the new deadline.
func (o *sidecarTerminationOrder) preStopAndWaitForTurn(ctx context.Context, containerID kubecontainer.ContainerID, containerSpec *v1.Container, gracePeriod int64) (kubecontainer.ContainerID, int64) {
	deadline := o.deadlineFor(ctx, gracePeriod)
	hasPreStop := containerSpec.Lifecycle != nil && containerSpec.Lifecycle.PreStop != nil
	atTurn := o.preStopAtTurn.Has(containerSpec.Name)

	if hasPreStop && !atTurn {
		o.m.preStopAtLeastOnce(ctx, o.pod, containerID, containerSpec, deadline)
	}
	containerID = o.waitForTurnKeepingUp(ctx, containerID, containerSpec, deadline)
	if ctx.Err() != nil {
		return containerID, sidecars.StopSeconds(deadline, time.Now())
	}
	if len(o.prereqs[containerSpec.Name]) > 0 {
		o.sidecarsTurn.Do(func() { o.sidecarsTurnCame(ctx) })
	}
	if hasPreStop && atTurn {
		o.m.preStopAtLeastOnce(ctx, o.pod, containerID, containerSpec, deadline)
	}
	return containerID, sidecars.StopSeconds(deadline, time.Now())
}

// deadlineFor returns the pod's one deadline: the first container to ask
// takes it (terminationDeadline) with its grace period, which every
// container of the pod shares.
func (o *sidecarTerminationOrder) deadlineFor(ctx context.Context, gracePeriod int64) time.Time {
	o.deadlineOnce.Do(func() {
		o.deadline = o.m.terminationDeadline(ctx, o.pod, time.Now(), time.Duration(gracePeriod)*time.Second)
	})
	return o.deadline
}

// waitForTurn is killContainer's wait after the preStop hook: the turn came
// in preStopAndWaitForTurn already, so nothing is left to wait for.
func (o *sidecarTerminationOrder) waitForTurn(string, int64) float64 { return 0 }

// containerTerminated marks the container as stopped.
func (o *sidecarTerminationOrder) containerTerminated(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ch, ok := o.stopped[name]; ok {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
}

var (
	_ containerTerminationOrder = &terminationOrdering{}
	_ containerTerminationOrder = &sidecarTerminationOrder{}
)

// sidecarsTurnCame says, once the app containers have stopped, in which
// order the sidecars stop.
func (o *sidecarTerminationOrder) sidecarsTurnCame(ctx context.Context) {
	klog.FromContext(ctx).V(2).Info("Stopping sidecars", "pod", klog.KObj(o.pod), "order", o.stopOrder)
}

// ended is called once every container of the kill has been asked to
// stop.
func (o *sidecarTerminationOrder) ended() {
}
