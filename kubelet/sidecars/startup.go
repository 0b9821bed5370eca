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
	"slices"
	"time"
)

// ContainerStatus is what PlanStart knows of one entry of spec.containers.
// It is derived afresh from the runtime and the prober in every sync, so a
// restarted kubelet decides the same.
type ContainerStatus struct {
	Name string
	// Created: a container exists for this entry in the pod's current
	// sandbox, in any state.
	Created bool
	// Running: that container is running.
	Running bool
	// Ready, for a sidecar, as IsReady says.
	Ready bool
	// Exited: the entry's latest container, in any sandbox of the pod, has
	// exited. A pod whose sandbox was recreated keeps the exits of the
	// sandboxes before (contract rule 18).
	Exited bool
	// WillRestart: upstream would (re)start this entry if it is not running
	// (the kubelet's ShouldContainerBeRestarted: restart policy, exit code,
	// container restart rules, pod deletion).
	WillRestart bool
	// Killed: the sync kills the running container (a failed liveness or
	// startup probe); upstream starts it again only if the pod's
	// restartPolicy allows.
	Killed bool
	// StartedAt is when the running container started.
	StartedAt time.Time
}

// StartPlan is what PlanStart decides for one sync.
type StartPlan struct {
	// Start lists the containers to start in this sync, in spec order.
	Start []string
	// StartIndices are the indices of Start in the statuses PlanStart was
	// given, which are those of spec.containers: the sync's
	// ContainersToStart.
	StartIndices []int
	// Held lists the app containers that upstream would start now but that
	// wait for their sidecars.
	Held []string
	// WaitingOn is the first annotated sidecar that is not ready while app
	// containers wait; empty when nothing waits.
	WaitingOn string
	// Released is true in the sync that starts the app containers for the
	// first time after all sidecars became ready.
	Released bool
	// SidecarsStartedAt is when the first sidecar started; with Released, the
	// app containers waited from then until now.
	SidecarsStartedAt time.Time
	// AppsDone: every app container has exited and will not be restarted.
	// The pod is complete: nothing starts, and its sidecars are to be stopped.
	AppsDone bool
}

// PlanStart decides which containers of a pod with annotated sidecars start
// in this sync.
//
// statuses has one entry per spec.containers entry, in spec order. upstream
// lists the containers upstream's kubelet would start now. terminating is
// true once the pod is being deleted.
//
// The rules (the contract's "Startup", "Running", "Completion", rule 18):
//   - while no app container has been created in this sandbox, the sidecars
//     start one at a time in annotation order, each once the previous one is
//     ready, and the app containers wait until every sidecar is ready; app
//     containers that completed in an earlier sandbox stay completed;
//   - a sidecar that is not running, or that the sync kills for a failed
//     probe, is (re)started, whatever the pod's restartPolicy, while the pod
//     is not terminating and its app containers are not done; the kubelet's
//     crash-loop back-off applies;
//   - once app containers exist, a sidecar that turns not-ready holds nobody;
//   - when every app container has exited for good, nothing starts.
func (l Layout) PlanStart(statuses []ContainerStatus, upstream []string, terminating bool) StartPlan {
	var plan StartPlan
	if l.appsDone(statuses) {
		plan.AppsDone = true
		return plan
	}
	appsCreated := false
	for _, s := range statuses {
		appsCreated = appsCreated || (s.Created && !l.IsSidecar(s.Name))
	}

	// Walk the sidecars in start order: each may start once all the ones
	// before it are ready.
	for _, name := range l.Sidecars {
		s := statusOf(statuses, name)
		if s.Running && !s.StartedAt.IsZero() && (plan.SidecarsStartedAt.IsZero() || s.StartedAt.Before(plan.SidecarsStartedAt)) {
			plan.SidecarsStartedAt = s.StartedAt
		}
		if !s.Ready && plan.WaitingOn == "" {
			plan.WaitingOn = name
		}
	}

	start := func(i int) {
		plan.Start = append(plan.Start, statuses[i].Name)
		plan.StartIndices = append(plan.StartIndices, i)
	}
	for i, s := range statuses {
		upstreamStarts := slices.Contains(upstream, s.Name)
		if !l.IsSidecar(s.Name) {
			switch {
			case !upstreamStarts:
			case !appsCreated && plan.WaitingOn != "":
				plan.Held = append(plan.Held, s.Name)
			default:
				start(i)
				plan.Released = plan.Released || !appsCreated
			}
			continue
		}
		mayStart := appsCreated || l.readyBefore(statuses, s.Name)
		switch {
		case s.Running:
			// Upstream restarts a running sidecar only to replace it
			// (liveness, startup probe, changed spec): keep that, and
			// replace one killed by its probe under restartPolicy Never
			// too, as a sidecar that exits is (contract rule 5).
			if upstreamStarts || (s.Killed && !terminating) {
				start(i)
			}
		case !mayStart:
			// Waits behind an earlier sidecar that is not ready.
		case upstreamStarts || !terminating:
			start(i)
		}
	}
	if len(plan.Held) == 0 {
		plan.WaitingOn = ""
	}
	if !plan.Released {
		plan.SidecarsStartedAt = time.Time{}
	}
	return plan
}

// RestartsSidecars reports whether a sidecar that is not running is to be
// (re)started, whatever the pod's restartPolicy: while the pod is not
// terminating and its app containers are not done, at once or when the
// sidecars before it are ready (PlanStart starts sidecars by this rule);
// while the pod terminates, as long as some app container still runs, by
// the kill that waits for the apps (contract rule 14). The kubelet's status
// uses it to show an exited sidecar as waiting for its restart rather than
// terminated: the API server refuses a status in which a container of a
// restartPolicy Never pod leaves the terminated state.
//
// In the last 2 seconds before the pod's deadline the kill no longer starts
// a sidecar again (Deadline.RestartAt), which this rule, without the
// deadline, cannot tell: the pod's final status, written at most that long
// after, shows the sidecar terminated.
func (l Layout) RestartsSidecars(statuses []ContainerStatus, terminating bool) bool {
	if len(l.Sidecars) == 0 {
		return false
	}
	if terminating {
		return l.appRunning(statuses)
	}
	return !l.appsDone(statuses)
}

// appRunning reports whether some app container runs.
func (l Layout) appRunning(statuses []ContainerStatus) bool {
	for _, s := range statuses {
		if !l.IsSidecar(s.Name) && s.Running {
			return true
		}
	}
	return false
}

// appsDone reports whether every app container has exited, in this
// sandbox or an earlier one, and will not be restarted.
func (l Layout) appsDone(statuses []ContainerStatus) bool {
	for _, s := range statuses {
		if !l.IsSidecar(s.Name) && (!s.Exited || s.Running || s.WillRestart) {
			return false
		}
	}
	return true
}

// readyBefore reports whether every sidecar before name, in start order, is
// ready.
func (l Layout) readyBefore(statuses []ContainerStatus, name string) bool {
	for _, before := range l.Sidecars {
		if before == name {
			return true
		}
		if !statusOf(statuses, before).Ready {
			return false
		}
	}
	return true
}

func statusOf(statuses []ContainerStatus, name string) ContainerStatus {
	for _, s := range statuses {
		if s.Name == name {
			return s
		}
	}
	return ContainerStatus{Name: name}
}
