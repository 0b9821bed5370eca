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

	v1 "k8s.io/api/core/v1"
)

func TestReady(t *testing.T) {
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}}
	noProbes := &v1.Container{Name: "sidecar"}
	readinessOnly := &v1.Container{Name: "sidecar", ReadinessProbe: probe}
	startupOnly := &v1.Container{Name: "sidecar", StartupProbe: probe}
	bothProbes := &v1.Container{Name: "sidecar", ReadinessProbe: probe, StartupProbe: probe}
	hook := &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"wait"}}}}
	postStartOnly := &v1.Container{Name: "sidecar", Lifecycle: hook}
	readinessAndPostStart := &v1.Container{Name: "sidecar", ReadinessProbe: probe, Lifecycle: hook}
	preStopOnly := &v1.Container{Name: "sidecar", Lifecycle: &v1.Lifecycle{PreStop: hook.PostStart}}

	testCases := []struct {
		name      string
		container *v1.Container
		running   bool
		readiness bool // the readiness probe's last result was a success
		startup   bool // the startup probe's
		// postStart: a run of the postStart hook has returned (false: a
		// kubelet restart interrupted it, and no run has returned since)
		postStart bool
		want      bool
	}{
		{name: "postStart hook, returned", container: postStartOnly, running: true, postStart: true, want: true},
		{name: "postStart hook interrupted by a kubelet restart", container: postStartOnly, running: true, want: false},
		{name: "postStart hook returned, not running", container: postStartOnly, postStart: true, want: false},
		{name: "postStart hook and a readiness probe: the probe decides", container: readinessAndPostStart, running: true, readiness: true, want: true},
		{name: "postStart hook and a readiness probe not reported yet", container: readinessAndPostStart, running: true, postStart: true, want: false},
		{name: "a preStop hook only: ready when running", container: preStopOnly, running: true, want: true},
		{
			name:      "not running, no probes",
			container: noProbes,
			running:   false,
			want:      false,
		},
		{
			name:      "not running, readiness probe succeeded before it exited",
			container: readinessOnly,
			running:   false,
			readiness: true,
			want:      false,
		},
		{
			name:      "not running, startup probe succeeded before it exited",
			container: startupOnly,
			running:   false,
			startup:   true,
			want:      false,
		},
		{
			name:      "not running, both probes succeeded before it exited",
			container: bothProbes,
			running:   false,
			readiness: true,
			startup:   true,
			want:      false,
		},
		{
			name:      "readiness probe succeeded",
			container: readinessOnly,
			running:   true,
			readiness: true,
			want:      true,
		},
		{
			name:      "readiness probe failed",
			container: readinessOnly,
			running:   true,
			readiness: false,
			want:      false,
		},
		{
			name:      "readiness probe not reported yet",
			container: readinessOnly,
			running:   true,
			readiness: false,
			want:      false,
		},
		{
			name:      "startup probe only, succeeded",
			container: startupOnly,
			running:   true,
			startup:   true,
			want:      true,
		},
		{
			name:      "startup probe only, not reported yet",
			container: startupOnly,
			running:   true,
			startup:   false,
			want:      false,
		},
		{
			name:      "startup probe only, failed",
			container: startupOnly,
			running:   true,
			startup:   false,
			want:      false,
		},
		{
			name:      "startup probe only, readiness result ignored",
			container: startupOnly,
			running:   true,
			readiness: true,
			startup:   false,
			want:      false,
		},
		{
			name:      "both probes, startup succeeded but readiness not reported yet",
			container: bothProbes,
			running:   true,
			readiness: false,
			startup:   true,
			want:      false,
		},
		{
			name:      "both probes, startup succeeded but readiness failed",
			container: bothProbes,
			running:   true,
			readiness: false,
			startup:   true,
			want:      false,
		},
		{
			name:      "both probes, both succeeded",
			container: bothProbes,
			running:   true,
			readiness: true,
			startup:   true,
			want:      true,
		},
		{
			name:      "no probes, running",
			container: noProbes,
			running:   true,
			want:      true,
		},
		{
			name:      "no probes, running, stale probe results ignored",
			container: noProbes,
			running:   true,
			readiness: false,
			startup:   false,
			want:      true,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ready(tc.container, tc.running, tc.readiness, tc.startup, tc.postStart); got != tc.want {
				t.Errorf("Ready(running=%v, readiness=%v, startup=%v, postStart=%v) = %v, want %v", tc.running, tc.readiness, tc.startup, tc.postStart, got, tc.want)
			}
		})
	}
}
