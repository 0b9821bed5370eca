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
	"fmt"
	"strconv"
	"strings"
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

// EarlierDeadline is the one deadline of a pod's ordered termination (SPEC
// rule 13), on the node's clock: now plus the grace period that this kill
// of the pod asks for, or recorded, the deadline that an earlier kill of
// the same termination recorded, when that is earlier (the zero time when
// there is none). So a later delete, eviction or active deadline with a
// shorter grace period moves the deadline earlier, counted from when the
// kubelet learns of it, a longer one never moves it later, and a restarted
// kubelet keeps it. The pod's deletionTimestamp is not an input: the API
// server wrote it by its own clock.
func EarlierDeadline(recorded, now time.Time, grace time.Duration) time.Time {
	deadline := now.Add(grace)
	if !recorded.IsZero() && recorded.Before(deadline) {
		return recorded
	}
	return deadline
}

// FormatDeadline is the record of a deadline the kubelet keeps in the pod's
// directory: the node's Unix time in nanoseconds, in decimal.
func FormatDeadline(deadline time.Time) []byte {
	return []byte(strconv.FormatInt(deadline.UnixNano(), 10) + "\n")
}

// ParseDeadline reads a record of FormatDeadline.
func ParseDeadline(record []byte) (time.Time, error) {
	nanos, err := strconv.ParseInt(strings.TrimSpace(string(record)), 10, 64)
	if err != nil || nanos <= 0 {
		return time.Time{}, fmt.Errorf("not a termination deadline: %q", quoteRecord(record))
	}
	return time.Unix(0, nanos), nil
}

// quoteRecord is at most the first 32 bytes of a record, for an error.
func quoteRecord(record []byte) string {
	if len(record) > 32 {
		record = record[:32]
	}
	return string(record)
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
