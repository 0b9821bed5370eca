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

package sidecars

import (
	"time"

	v1 "k8s.io/api/core/v1"
)

// TerminationOrder says in which order a pod's containers stop (SPEC
// "Termination"). App containers stop first, in parallel; then the annotated
// sidecars in reverse annotation order; then the native sidecars in reverse
// order.
type TerminationOrder struct {
	// After maps a container to the containers that must have stopped before
	// it may begin to stop. Containers that are not running count as
	// stopped.
	After map[string][]string
	// PreStopAtTurn lists the containers whose preStop hook runs when their
	// turn comes (annotated sidecars), rather than when the pod's termination
	// starts (app containers and, as upstream chose, native sidecars).
	PreStopAtTurn []string
	// StopOrder lists every sidecar, annotated then native, in the order
	// they stop: the keys of After, each after those it waits for.
	StopOrder []string
}

// TerminationOrder computes the stop order of a pod with this layout.
func (l Layout) TerminationOrder(pod *v1.Pod) TerminationOrder {
	order := TerminationOrder{After: map[string][]string{}}
	var stopsEarlier []string
	for _, c := range pod.Spec.Containers {
		if !l.IsSidecar(c.Name) {
			stopsEarlier = append(stopsEarlier, c.Name)
		}
	}
	// Each sidecar waits for every container that stops before it: the
	// whole list rather than only its neighbour, so that the order holds
	// when the neighbour is not running.
	for i := len(l.Sidecars) - 1; i >= 0; i-- {
		name := l.Sidecars[i]
		order.After[name] = append([]string(nil), stopsEarlier...)
		order.PreStopAtTurn = append(order.PreStopAtTurn, name)
		order.StopOrder = append(order.StopOrder, name)
		stopsEarlier = append(stopsEarlier, name)
	}
	for i := len(pod.Spec.InitContainers) - 1; i >= 0; i-- {
		c := pod.Spec.InitContainers[i]
		if !isNativeSidecar(&c) {
			continue
		}
		order.After[c.Name] = append([]string(nil), stopsEarlier...)
		order.StopOrder = append(order.StopOrder, c.Name)
		stopsEarlier = append(stopsEarlier, c.Name)
	}
	return order
}

// Deadline is the one deadline of a pod's termination (SPEC rule 13): the
// start of this termination plus the grace period, or the pod's
// deletionTimestamp when that is earlier. The API server moves the
// deletionTimestamp earlier when a later delete asks for a shorter grace
// period, and a restarted kubelet reads the same deletionTimestamp, where
// it would start the grace period over.
func Deadline(start time.Time, grace time.Duration, deletionTimestamp *time.Time) time.Time {
	deadline := start.Add(grace)
	if deletionTimestamp != nil && deletionTimestamp.Before(deadline) {
		return *deletionTimestamp
	}
	return deadline
}

// HookSeconds returns the whole seconds a preStop hook may run: what is left
// until the pod's deadline, rounded down so that no hook runs past it, and
// never negative.
func HookSeconds(deadline, now time.Time) int64 {
	left := deadline.Sub(now)
	if left <= 0 {
		return 0
	}
	return int64(left / time.Second)
}

// StopSeconds returns the timeout of the signal that stops a container: what
// is left until the pod's deadline, to the nearest second, so that a
// container signalled as termination starts gets its whole grace period. The
// kubelet raises it to its minimum of 2 seconds: a container signalled at or
// after the deadline still gets 2 seconds, so the containers still running
// then are stopped at once, in parallel, and none runs more than 2 seconds
// past the deadline.
func StopSeconds(deadline, now time.Time) int64 {
	left := deadline.Sub(now)
	if left <= 0 {
		return 0
	}
	return int64(left.Round(time.Second) / time.Second)
}

// isNativeSidecar reports whether an init container is a native sidecar
// (restartPolicy Always).
func isNativeSidecar(c *v1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}
