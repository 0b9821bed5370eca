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

import "time"

// MinimumGrace is upstream's minimum grace period, the least time the
// kubelet gives a container to stop or a preStop hook to run, whatever is
// left of the pod's deadline.
const MinimumGrace = 2 * time.Second

// Deadline is the one deadline of a pod's ordered termination (contract
// rule 13), on the kubelet's own clock: every step of the termination gets
// what remains of it. Its record in the pod's directory, on the node's boot
// clock, is FormatDeadline's and DeadlineLeft's. The zero Deadline is none.
type Deadline struct {
	at time.Time
}

// NewDeadline is the pod's deadline for a kill that asks for grace: now plus
// grace, or recorded, the deadline that an earlier kill of the same
// termination recorded, when that is earlier (the zero time when there is
// none). So a later delete, eviction or active deadline with a shorter grace
// period moves the deadline earlier, counted from when the kubelet learns of
// it, a longer one never moves it later, and a restarted kubelet keeps it.
// The pod's deletionTimestamp is not an input: the API server wrote it by
// its own clock.
func NewDeadline(recorded, now time.Time, grace time.Duration) Deadline {
	at := now.Add(grace)
	if !recorded.IsZero() && recorded.Before(at) {
		at = recorded
	}
	return Deadline{at: at}
}

// At is the deadline's instant; the zero time for the zero Deadline.
func (d Deadline) At() time.Time { return d.at }

// IsZero reports whether d is no deadline.
func (d Deadline) IsZero() bool { return d.at.IsZero() }

// StopSeconds returns the timeout of the signal that stops a container: what
// is left until the deadline, to the nearest second, so that a container
// signalled as termination starts gets its whole grace period. The kubelet
// raises it to MinimumGrace: a container signalled at or after the deadline
// still gets 2 seconds, so the containers still running then are stopped at
// once, in parallel, and none runs more than 2 seconds past the deadline.
func (d Deadline) StopSeconds(now time.Time) int64 {
	left := d.at.Sub(now)
	if left <= 0 {
		return 0
	}
	return int64(left.Round(time.Second) / time.Second)
}

// HookEnds is when the kubelet stops waiting for a preStop hook that starts
// at now: the deadline, or MinimumGrace from now if that is later, as
// upstream gives every hook at least that minimum. So a sidecar whose turn
// comes at or after the deadline still runs its hook before it is stopped.
func (d Deadline) HookEnds(now time.Time) time.Time {
	if least := now.Add(MinimumGrace); d.at.Before(least) {
		return least
	}
	return d.at
}

// RestartAt says when a sidecar of KeptUp that exited before its turn to
// stop, while some app container still runs, is started again (contract rule
// 14): once its back-off ends (backOffEnds; the zero time when it is not
// in back-off), or at once, provided that leaves MinimumGrace before the
// deadline: a sidecar started with less would be stopped before it could
// serve the apps, and its start would push the pod past its grace period
// plus that minimum. Otherwise ok is false: it stays down, and its turn
// comes with the apps' end or the deadline. The times are the kubelet's own
// clock; none comes from the API server.
func (d Deadline) RestartAt(now, backOffEnds time.Time) (at time.Time, ok bool) {
	at = now
	if backOffEnds.After(now) {
		at = backOffEnds
	}
	if d.at.Sub(at) < MinimumGrace {
		return time.Time{}, false
	}
	return at, true
}
