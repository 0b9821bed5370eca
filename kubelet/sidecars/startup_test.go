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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, time.March, 4, 10, 0, 0, 0, time.UTC)

// pending is an entry without a container in the sandbox yet; upstream
// starts such an entry.
func pending(name string) ContainerStatus {
	return ContainerStatus{Name: name, WillRestart: true}
}

// running is a running container that is not ready.
func running(name string, startedAt time.Time) ContainerStatus {
	return ContainerStatus{Name: name, Created: true, Running: true, StartedAt: startedAt}
}

// ready is a running container that is ready.
func ready(name string, startedAt time.Time) ContainerStatus {
	s := running(name, startedAt)
	s.Ready = true
	return s
}

// exited is a container that has exited; willRestart says whether upstream
// would restart it.
func exited(name string, willRestart bool) ContainerStatus {
	return ContainerStatus{Name: name, Created: true, Exited: true, WillRestart: willRestart}
}

// exitedEarlier is an entry whose latest container exited in an earlier
// sandbox of the pod, and has none in the current one.
func exitedEarlier(name string, willRestart bool) ContainerStatus {
	return ContainerStatus{Name: name, Exited: true, WillRestart: willRestart}
}

// probeKilled is a running container that the sync kills for a failed
// liveness or startup probe, and that upstream would not start again.
func probeKilled(name string, startedAt time.Time) ContainerStatus {
	s := running(name, startedAt)
	s.Killed = true
	return s
}

func TestPlanStart(t *testing.T) {
	layout := Layout{Sidecars: []string{"a", "b"}}

	testCases := []struct {
		name        string
		layout      Layout
		statuses    []ContainerStatus
		upstream    []string
		terminating bool
		want        StartPlan
	}{
		{
			name:     "fresh pod: only the first sidecar starts, the app waits on it",
			layout:   layout,
			statuses: []ContainerStatus{pending("a"), pending("b"), pending("app")},
			upstream: []string{"a", "b", "app"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "fresh pod with the app first in spec order",
			layout:   layout,
			statuses: []ContainerStatus{pending("app"), pending("a"), pending("b")},
			upstream: []string{"app", "a", "b"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "first sidecar running, not ready: nothing new starts",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0), pending("b"), pending("app")},
			upstream: []string{"b", "app"},
			want: StartPlan{
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "first sidecar ready: the second starts, the app waits on it",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), pending("b"), pending("app")},
			upstream: []string{"b", "app"},
			want: StartPlan{
				Start:     []string{"b"},
				Held:      []string{"app"},
				WaitingOn: "b",
			},
		},
		{
			name:     "first sidecar ready, second running not ready: the app waits on the second",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), running("b", t0.Add(2*time.Second)), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Held:      []string{"app"},
				WaitingOn: "b",
			},
		},
		{
			name:     "every sidecar ready: the app starts, released",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), ready("b", t0.Add(3*time.Second)), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Start:             []string{"app"},
				Released:          true,
				SidecarsStartedAt: t0,
			},
		},
		{
			name:     "every sidecar ready, the first one restarted since: released, waited from the earliest start",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0.Add(10*time.Second)), ready("b", t0.Add(3*time.Second)), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Start:             []string{"app"},
				Released:          true,
				SidecarsStartedAt: t0.Add(3 * time.Second),
			},
		},
		{
			name:     "sidecar exited before ready with restartPolicy Never: restarted anyway, the app still waits",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), pending("b"), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "second sidecar exited before ready with restartPolicy Never: restarted, the app waits on it",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), exited("b", false), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Start:     []string{"b"},
				Held:      []string{"app"},
				WaitingOn: "b",
			},
		},
		{
			name:        "sidecar exited before ready while the pod is terminating: not restarted",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), pending("b"), pending("app")},
			upstream:    nil,
			terminating: true,
			want:        StartPlan{},
		},
		{
			name:     "second sidecar crashed while the first is not ready: it waits behind the first",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0), exited("b", true), pending("app")},
			upstream: []string{"b", "app"},
			want: StartPlan{
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "apps created, a sidecar turns not ready: the app restart proceeds",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0), ready("b", t0), exited("app", true)},
			upstream: []string{"app"},
			want: StartPlan{
				Start: []string{"app"},
			},
		},
		{
			name:     "apps created, a sidecar exited and upstream would not restart it: restarted",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), ready("b", t0), running("app", t0)},
			upstream: nil,
			want: StartPlan{
				Start: []string{"a"},
			},
		},
		{
			name:     "apps created, both sidecars exited: both restart at once",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), exited("b", true), running("app", t0)},
			upstream: []string{"b"},
			want: StartPlan{
				Start: []string{"a", "b"},
			},
		},
		{
			name:        "apps created, a sidecar exited while the pod is terminating: not restarted",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), ready("b", t0), running("app", t0)},
			upstream:    nil,
			terminating: true,
			want:        StartPlan{},
		},
		{
			name:     "running sidecar that upstream restarts (liveness) stays in Start",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), ready("b", t0), running("app", t0)},
			upstream: []string{"a"},
			want: StartPlan{
				Start: []string{"a"},
			},
		},
		{
			name:     "running sidecar that upstream restarts during startup stays in Start",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0), pending("b"), pending("app")},
			upstream: []string{"a", "b", "app"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "all apps exited for good: done, nothing starts",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), ready("b", t0), exited("app", false)},
			upstream: nil,
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:     "all apps exited for good, sidecars exited too: done, nothing starts",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), exited("b", true), exited("app", false)},
			upstream: []string{"b"},
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:     "all apps exited for good, upstream would replace a sidecar: done, nothing starts",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), running("b", t0), exited("app1", false), exited("app2", false)},
			upstream: []string{"b"},
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:     "one app done, another still running: not done, an exited sidecar restarts",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), ready("b", t0), exited("app1", false), running("app2", t0)},
			upstream: nil,
			want: StartPlan{
				Start: []string{"a"},
			},
		},
		{
			name:     "one app done, another not created yet: not done",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), ready("b", t0), exited("app1", false), pending("app2")},
			upstream: []string{"app2"},
			want: StartPlan{
				Start: []string{"app2"},
			},
		},
		{
			name:        "pod deleted before its app was created: not done, nothing starts",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), pending("b"), {Name: "app", WillRestart: false}},
			upstream:    nil,
			terminating: true,
			want:        StartPlan{},
		},
		{
			name:     "app exited but will restart: not done",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), ready("b", t0), exited("app", true)},
			upstream: []string{"app"},
			want: StartPlan{
				Start: []string{"app"},
			},
		},
		{
			name:     "app exited but will restart, a sidecar exited too: both restart",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), exited("b", false), exited("app", true)},
			upstream: []string{"app"},
			want: StartPlan{
				Start: []string{"b", "app"},
			},
		},
		{
			name:   "multiple apps held in spec order",
			layout: layout,
			statuses: []ContainerStatus{
				pending("x"), ready("a", t0), pending("y"), running("b", t0), pending("z"),
			},
			upstream: []string{"x", "y", "z"},
			want: StartPlan{
				Held:      []string{"x", "y", "z"},
				WaitingOn: "b",
			},
		},
		{
			name:   "multiple apps released in spec order",
			layout: layout,
			statuses: []ContainerStatus{
				pending("x"), ready("a", t0), pending("y"), ready("b", t0.Add(time.Second)), pending("z"),
			},
			upstream: []string{"x", "y", "z"},
			want: StartPlan{
				Start:             []string{"x", "y", "z"},
				Released:          true,
				SidecarsStartedAt: t0,
			},
		},
		{
			name:     "kubelet restarted: a later sidecar runs while an earlier one is not ready; left alone, apps held",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0.Add(time.Minute)), ready("b", t0), pending("app")},
			upstream: []string{"app"},
			want: StartPlan{
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "kubelet restarted: a later sidecar runs while an earlier one crashed; only the earlier restarts",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", true), ready("b", t0), pending("app")},
			upstream: []string{"a", "app"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "sidecar killed by its startup probe before ready under Never: restarted, the app still waits (contract rule 5)",
			layout:   layout,
			statuses: []ContainerStatus{probeKilled("a", t0), pending("b"), pending("app")},
			upstream: []string{"b", "app"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app"},
				WaitingOn: "a",
			},
		},
		{
			name:     "sidecar killed by its liveness probe while the app runs under Never: restarted (contract rule 7)",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), probeKilled("b", t0), running("app", t0)},
			upstream: nil,
			want: StartPlan{
				Start: []string{"b"},
			},
		},
		{
			name:        "sidecar killed by its probe while the pod is terminating: not restarted",
			layout:      layout,
			statuses:    []ContainerStatus{ready("a", t0), probeKilled("b", t0), running("app", t0)},
			upstream:    nil,
			terminating: true,
			want:        StartPlan{},
		},
		{
			name:     "sidecar killed by its probe after the apps are done: done, nothing starts",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), probeKilled("b", t0), exited("app", false)},
			upstream: nil,
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:   "new sandbox: an app that completed in the old one stays done, the one to rerun waits for the sidecars (contract rule 18)",
			layout: layout,
			statuses: []ContainerStatus{
				pending("a"), pending("b"), exitedEarlier("app1", false), exitedEarlier("app2", true),
			},
			upstream: []string{"a", "b", "app2"},
			want: StartPlan{
				Start:     []string{"a"},
				Held:      []string{"app2"},
				WaitingOn: "a",
			},
		},
		{
			name:   "new sandbox, sidecars ready: only the app to rerun starts",
			layout: layout,
			statuses: []ContainerStatus{
				ready("a", t0), ready("b", t0), exitedEarlier("app1", false), exitedEarlier("app2", true),
			},
			upstream: []string{"app2"},
			want: StartPlan{
				Start:             []string{"app2"},
				Released:          true,
				SidecarsStartedAt: t0,
			},
		},
		{
			name:   "new sandbox, the rerun app done too: the pod is done (contract rule 18)",
			layout: layout,
			statuses: []ContainerStatus{
				ready("a", t0), ready("b", t0), exitedEarlier("app1", false), exited("app2", false),
			},
			upstream: nil,
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:   "new sandbox for a pod whose apps had all completed: done, nothing starts",
			layout: layout,
			statuses: []ContainerStatus{
				pending("a"), pending("b"), exitedEarlier("app1", false), exitedEarlier("app2", false),
			},
			upstream: []string{"a", "b"},
			want: StartPlan{
				AppsDone: true,
			},
		},
		{
			name:     "nothing for upstream to start and nothing held: no WaitingOn",
			layout:   layout,
			statuses: []ContainerStatus{running("a", t0), pending("b"), pending("app")},
			upstream: nil,
			want:     StartPlan{},
		},
	}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.layout.PlanStart(tc.statuses, tc.upstream, tc.terminating)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(StartPlan{}, "StartIndices")); diff != "" {
				t.Errorf("PlanStart() mismatch (-want +got):\n%s", diff)
			}
			// StartIndices name the same containers as Start, by their
			// place in statuses (spec.containers).
			var named []string
			for _, i := range got.StartIndices {
				named = append(named, tc.statuses[i].Name)
			}
			if diff := cmp.Diff(got.Start, named); diff != "" {
				t.Errorf("PlanStart().StartIndices %v name other containers than Start (-Start +StartIndices):\n%s", got.StartIndices, diff)
			}
		})
	}
}

func TestRestartsSidecars(t *testing.T) {
	layout := Layout{Sidecars: []string{"a", "b"}}

	testCases := []struct {
		name        string
		layout      Layout
		statuses    []ContainerStatus
		terminating bool
		want        bool
	}{
		{
			name:     "sidecar crashed before the app was created: restarts",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), pending("b"), pending("app")},
			want:     true,
		},
		{
			name:     "sidecar exited while the app runs: restarts",
			layout:   layout,
			statuses: []ContainerStatus{ready("a", t0), exited("b", false), running("app", t0)},
			want:     true,
		},
		{
			name:     "app exited and upstream restarts it: sidecars restart too",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), ready("b", t0), exited("app", true)},
			want:     true,
		},
		{
			name:     "one app done, another running: restarts",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), ready("b", t0), exited("app1", false), running("app2", t0)},
			want:     true,
		},
		{
			name:     "every app exited for good: the pod is complete, no restart",
			layout:   layout,
			statuses: []ContainerStatus{exited("a", false), ready("b", t0), exited("app1", false), exited("app2", false)},
			want:     false,
		},
		{
			name:        "pod terminating, an app still runs: the kill restarts it (contract rule 14)",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), ready("b", t0), running("app", t0)},
			terminating: true,
			want:        true,
		},
		{
			name:        "pod terminating, one app stopped, another runs: restarts (contract rule 14)",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), ready("b", t0), exited("app1", false), running("app2", t0)},
			terminating: true,
			want:        true,
		},
		{
			name:        "pod terminating, every app stopped: the sidecars' turn, no restart (contract rule 20)",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), ready("b", t0), exited("app", false)},
			terminating: true,
			want:        false,
		},
		{
			name:        "pod terminating, the app upstream would restart is down: no restart, the kill restarts nothing",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), ready("b", t0), exited("app", true)},
			terminating: true,
			want:        false,
		},
		{
			name:        "pod terminating before the app was created: no restart",
			layout:      layout,
			statuses:    []ContainerStatus{exited("a", false), pending("b"), pending("app")},
			terminating: true,
			want:        false,
		},
		{
			name:     "every app exited for good, one in an earlier sandbox: no restart (contract rule 18)",
			layout:   layout,
			statuses: []ContainerStatus{pending("a"), pending("b"), exitedEarlier("app1", false), exited("app2", false)},
			want:     false,
		},
		{
			name:     "an app to rerun in the new sandbox: restarts",
			layout:   layout,
			statuses: []ContainerStatus{pending("a"), pending("b"), exitedEarlier("app1", false), exitedEarlier("app2", true)},
			want:     true,
		},
		{
			name:     "no sidecars: nothing to restart",
			layout:   Layout{},
			statuses: []ContainerStatus{exited("app", false)},
			want:     false,
		},
	}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.layout.RestartsSidecars(tc.statuses, tc.terminating); got != tc.want {
				t.Errorf("RestartsSidecars() = %v, want %v", got, tc.want)
			}
		})
	}
}
