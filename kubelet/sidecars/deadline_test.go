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
)

func TestNewDeadline(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		name     string
		recorded time.Time
		grace    time.Duration
		want     time.Time
	}{
		{name: "first kill: now plus the grace period", grace: 30 * time.Second, want: now.Add(30 * time.Second)},
		{name: "grace period 1", grace: time.Second, want: now.Add(time.Second)},
		{name: "a later, shorter grace period moves it earlier", recorded: now.Add(56 * time.Second), grace: 5 * time.Second, want: now.Add(5 * time.Second)},
		{name: "a later, longer grace period does not move it later", recorded: now.Add(5 * time.Second), grace: 60 * time.Second, want: now.Add(5 * time.Second)},
		{name: "a restarted kubelet keeps a deadline that passed", recorded: now.Add(-time.Minute), grace: 30 * time.Second, want: now.Add(-time.Minute)},
		{name: "grace period 0", grace: 0, want: now},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeadline(tc.recorded, now, tc.grace)
			if diff := cmp.Diff(tc.want, d.At()); diff != "" {
				t.Errorf("NewDeadline().At() mismatch (-want +got):\n%s", diff)
			}
			if d.IsZero() {
				t.Errorf("NewDeadline() is the zero Deadline")
			}
		})
	}
	if !(Deadline{}).IsZero() {
		t.Errorf("the zero Deadline is not IsZero")
	}
}

// TestDeadlineSteps: what each step of a termination gets of the deadline,
// left from now: the signal's timeout (StopSeconds) and the wait for a
// preStop hook (HookEnds), which never gives less than MinimumGrace.
func TestDeadlineSteps(t *testing.T) {
	now := time.Date(2026, time.March, 4, 10, 0, 0, 0, time.UTC)
	type steps struct {
		StopSeconds int64
		HookEnds    time.Duration // from now
	}
	testCases := []struct {
		name string
		left time.Duration
		want steps
	}{
		{name: "deadline long past", left: -time.Minute, want: steps{StopSeconds: 0, HookEnds: MinimumGrace}},
		{name: "deadline just past", left: -time.Nanosecond, want: steps{StopSeconds: 0, HookEnds: MinimumGrace}},
		{name: "deadline exactly now", left: 0, want: steps{StopSeconds: 0, HookEnds: MinimumGrace}},
		{name: "0.4 s left", left: 400 * time.Millisecond, want: steps{StopSeconds: 0, HookEnds: MinimumGrace}},
		{name: "0.999 s left", left: 999 * time.Millisecond, want: steps{StopSeconds: 1, HookEnds: MinimumGrace}},
		{name: "exactly the minimum left", left: MinimumGrace, want: steps{StopSeconds: 2, HookEnds: MinimumGrace}},
		{name: "2.4 s left", left: 2400 * time.Millisecond, want: steps{StopSeconds: 2, HookEnds: 2400 * time.Millisecond}},
		{name: "2.9 s left", left: 2900 * time.Millisecond, want: steps{StopSeconds: 3, HookEnds: 2900 * time.Millisecond}},
		{name: "termination just started with 30 s", left: 30*time.Second - time.Millisecond, want: steps{StopSeconds: 30, HookEnds: 30*time.Second - time.Millisecond}},
		{name: "exactly 30 s", left: 30 * time.Second, want: steps{StopSeconds: 30, HookEnds: 30 * time.Second}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeadline(time.Time{}, now, tc.left)
			got := steps{StopSeconds: d.StopSeconds(now), HookEnds: d.HookEnds(now).Sub(now)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps with %v left mismatch (-want +got):\n%s", tc.left, diff)
			}
		})
	}
}

func TestRestartAt(t *testing.T) {
	now := time.Date(2026, time.March, 4, 10, 0, 0, 0, time.UTC)
	testCases := []struct {
		name        string
		backOffEnds time.Duration // from now; 0 means no back-off
		deadline    time.Duration // from now
		wantAt      time.Duration // from now
		wantOK      bool
	}{
		{name: "no back-off, time left", deadline: 20 * time.Second, wantAt: 0, wantOK: true},
		{name: "back-off ended already", backOffEnds: -time.Second, deadline: 20 * time.Second, wantAt: 0, wantOK: true},
		{name: "back-off ends before the deadline", backOffEnds: 10 * time.Second, deadline: 20 * time.Second, wantAt: 10 * time.Second, wantOK: true},
		{name: "back-off ends with exactly the minimum left", backOffEnds: 18 * time.Second, deadline: 20 * time.Second, wantAt: 18 * time.Second, wantOK: true},
		{name: "back-off ends with less than the minimum left", backOffEnds: 18*time.Second + time.Millisecond, deadline: 20 * time.Second, wantOK: false},
		{name: "back-off ends after the deadline", backOffEnds: 40 * time.Second, deadline: 20 * time.Second, wantOK: false},
		{name: "no back-off, less than the minimum left", deadline: time.Second, wantOK: false},
		{name: "deadline passed", deadline: -time.Second, wantOK: false},
	}
	type restart struct {
		At time.Time
		OK bool
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var backOffEnds time.Time
			if tc.backOffEnds != 0 {
				backOffEnds = now.Add(tc.backOffEnds)
			}
			var got restart
			got.At, got.OK = NewDeadline(time.Time{}, now, tc.deadline).RestartAt(now, backOffEnds)
			want := restart{OK: tc.wantOK}
			if tc.wantOK {
				want.At = now.Add(tc.wantAt)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("RestartAt() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
