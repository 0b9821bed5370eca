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

// TerminationOrder says in which order a pod's containers stop (contract
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
	// Apps lists the app containers, which stop first.
	Apps []string
	// KeptUp lists the sidecars that are started again when they exit
	// before their turn while some app container still runs (contract rule
	// 14): the annotated ones. Native sidecars keep upstream's behaviour,
	// which leaves them down.
	KeptUp []string
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
	order.Apps = append([]string(nil), stopsEarlier...)
	// Each sidecar waits for every container that stops before it: the
	// whole list rather than only its neighbour, so that the order holds
	// when the neighbour is not running.
	for i := len(l.Sidecars) - 1; i >= 0; i-- {
		name := l.Sidecars[i]
		order.After[name] = append([]string(nil), stopsEarlier...)
		order.PreStopAtTurn = append(order.PreStopAtTurn, name)
		order.KeptUp = append(order.KeptUp, name)
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

// ReadinessEnd is when an ordered termination ends a container's readiness:
// from then on its readiness is Failure and its readiness probe does not run
// again, as for a container that is not running. The kubelet writes the
// pod's status only once the whole kill is over, which on a busy node is
// seconds after the containers have exited; until then the probe worker
// sees them running, and every run of their probe fails and is a Warning
// event (kubernetes#25149, #122824): about one a second for each probed
// container of each pod that goes.
type ReadinessEnd int

const (
	// ReadinessEndsAtExit ends it once the container has exited. An app
	// container drains after its SIGTERM, and meanwhile its readiness probe
	// says whether it still serves (kubernetes#110309).
	ReadinessEndsAtExit ReadinessEnd = iota
	// ReadinessEndsAtStop ends it when the kubelet stops the container,
	// after its preStop hook: a sidecar's turn comes once the apps have
	// exited (or at the deadline), and from then on its readiness gates no
	// app and no traffic of the pod's.
	ReadinessEndsAtStop
)

// ReadinessEnd says when the readiness of the named container ends in a
// termination in this order: at its stop for a sidecar, at its exit for
// every other container.
func (o TerminationOrder) ReadinessEnd(container string) ReadinessEnd {
	if _, sidecar := o.After[container]; sidecar {
		return ReadinessEndsAtStop
	}
	return ReadinessEndsAtExit
}

// BootClock is a reading of the node's boot clock: the time since the node
// booted (Linux's CLOCK_BOOTTIME), which no step of the wall clock moves,
// and the boot it counts from. Every process of the node reads the same
// clock, so a restarted kubelet counts a deadline recorded before its
// restart on it: a clock step on the node during a termination costs no
// grace (contract rule 13). kubelet/bootclock reads it.
type BootClock struct {
	// BootID names the node's boot (Linux's /proc/sys/kernel/random/boot_id).
	BootID string
	// SinceBoot is the time since that boot.
	SinceBoot time.Duration
}

// maxBootID bounds the boot ID a record may hold (Linux's is 36 bytes).
const maxBootID = 64

// FormatDeadline is the record of a deadline, left from now, that the
// kubelet keeps in the pod's directory: the boot it was recorded in and the
// deadline on that boot's clock, in nanoseconds.
func FormatDeadline(left time.Duration, now BootClock) []byte {
	return fmt.Appendf(nil, "boot %s %d\n", now.BootID, int64(now.SinceBoot+left))
}

// DeadlineLeft reads a record of FormatDeadline and returns how long is
// left until its deadline at now, on the boot clock: negative once it has
// passed. A record of an earlier boot is an error: the node rebooted, and
// the pod's containers with it. A record of an earlier version of the fork,
// the deadline's Unix time in nanoseconds, is read on the wall clock
// (wallNow), as it was written.
func DeadlineLeft(record []byte, now BootClock, wallNow time.Time) (time.Duration, error) {
	fields := strings.Fields(string(record))
	switch {
	case len(fields) == 1:
		nanos, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || nanos <= 0 {
			break
		}
		return time.Unix(0, nanos).Sub(wallNow), nil
	case len(fields) == 3 && fields[0] == "boot" && fields[1] != "" && len(fields[1]) <= maxBootID:
		nanos, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || nanos <= 0 {
			break
		}
		if fields[1] != now.BootID {
			return 0, fmt.Errorf("a termination deadline of another boot of the node: %q", quoteRecord(record))
		}
		return time.Duration(nanos) - now.SinceBoot, nil
	}
	return 0, fmt.Errorf("not a termination deadline: %q", quoteRecord(record))
}

// quoteRecord is at most the first 32 bytes of a record, for an error.
func quoteRecord(record []byte) string {
	if len(record) > 32 {
		record = record[:32]
	}
	return string(record)
}
