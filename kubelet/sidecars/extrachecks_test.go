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

func TestExtraCheckInterval(t *testing.T) {
	ms := time.Millisecond
	testCases := []struct {
		name      string
		exec      bool
		waited    time.Duration
		lastCheck time.Duration
		want      time.Duration
	}{
		{name: "just started", waited: 0, want: 50 * ms},
		{name: "up to 2 s: no back-off", waited: 2 * time.Second, lastCheck: ms, want: 50 * ms},
		{name: "past 2 s: doubled", waited: 2*time.Second + ms, want: 100 * ms},
		{name: "past 4 s", waited: 5 * time.Second, want: 200 * ms},
		{name: "past 6 s", waited: 7 * time.Second, want: 400 * ms},
		{name: "past 8 s", waited: 9 * time.Second, want: 800 * ms},
		{name: "10 s: once a second", waited: 10 * time.Second, want: time.Second},
		{name: "a minute: once a second", waited: time.Minute, want: time.Second},
		{name: "a year: once a second, no overflow", waited: 365 * 24 * time.Hour, want: time.Second},
		{name: "exec, just started", exec: true, waited: 0, want: 100 * ms},
		{name: "exec past 2 s", exec: true, waited: 3 * time.Second, want: 200 * ms},
		{name: "exec past 4 s", exec: true, waited: 5 * time.Second, want: 400 * ms},
		{name: "exec past 6 s", exec: true, waited: 7 * time.Second, want: 800 * ms},
		{name: "exec past 8 s: once a second", exec: true, waited: 9 * time.Second, want: time.Second},
		{name: "a slow check: four times its duration", waited: 0, lastCheck: 30 * ms, want: 120 * ms},
		{name: "a slow answer beyond the maximum", waited: time.Minute, lastCheck: 2 * time.Second, want: 8 * time.Second},
		{name: "an exec check of 60 ms: the next 100 ms after its start", exec: true, waited: 0, lastCheck: 60 * ms, want: 100 * ms},
		{name: "an exec check of 150 ms: the next as it ends", exec: true, waited: 0, lastCheck: 150 * ms, want: 150 * ms},
		{name: "an exec check of 2 s: one at a time", exec: true, waited: time.Minute, lastCheck: 2 * time.Second, want: 2 * time.Second},
		{name: "a fast check changes nothing", waited: 0, lastCheck: 10 * ms, want: 50 * ms},
		{name: "a check's duration beyond reason is ignored", waited: 0, lastCheck: 2 * time.Hour, want: 50 * ms},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got := ExtraCheckInterval(tc.exec, tc.waited, tc.lastCheck)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ExtraCheckInterval(%v, %v, %v) mismatch (-want +got):\n%s", tc.exec, tc.waited, tc.lastCheck, diff)
			}
		})
	}
}

// TestExtraChecksFallToOneASecond counts the extra checks of a sidecar that
// stays not ready for a minute, each check taking 2 ms: at most one a
// second from 10 s on, and how many in all.
func TestExtraChecksFallToOneASecond(t *testing.T) {
	for _, exec := range []bool{false, true} {
		var at time.Duration
		total, afterTen := 0, 0
		for {
			at += ExtraCheckInterval(exec, at, 2*time.Millisecond)
			if at > time.Minute {
				break
			}
			total++
			if at > 10*time.Second {
				afterTen++
			}
		}
		if afterTen > 50 {
			t.Errorf("exec=%v: %d extra checks between 10 s and 60 s, want at most 50 (one a second)", exec, afterTen)
		}
		t.Logf("exec=%v: %d extra checks in the first minute, %d of them after 10 s (a fixed 50 ms: 1200)", exec, total, afterTen)
	}
}

func TestExtraProbeRunsPerSecondSetting(t *testing.T) {
	testCases := []struct {
		perSecond int32
		valid     bool
		burst     int
	}{
		{perSecond: -1, valid: false, burst: ExtraExecCheckCost},
		{perSecond: 0, valid: true, burst: ExtraExecCheckCost}, // no extra runs: the burst is never used
		{perSecond: 5, valid: true, burst: ExtraExecCheckCost}, // one exec check every 3.2 s
		{perSecond: DefaultExtraProbeRunsPerSecond, valid: true, burst: 20},
		{perSecond: MaxExtraProbeRunsPerSecond, valid: true, burst: 1000},
		{perSecond: MaxExtraProbeRunsPerSecond + 1, valid: false, burst: 1000},
	}
	for _, tc := range testCases {
		err := ValidateExtraProbeRunsPerSecond(tc.perSecond)
		got := struct {
			Valid bool
			Burst int
		}{err == nil, ExtraProbeRunBurst(tc.perSecond)}
		want := struct {
			Valid bool
			Burst int
		}{tc.valid, tc.burst}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d a second (-want +got):\n%s (err %v)", tc.perSecond, diff, err)
		}
	}
}

func TestExtraCheckCost(t *testing.T) {
	got := []int{ExtraCheckCost(false), ExtraCheckCost(true)}
	if diff := cmp.Diff([]int{1, ExtraExecCheckCost}, got); diff != "" {
		t.Errorf("network, exec (-want +got):\n%s", diff)
	}
	// The default bound lets at least ten exec checks a second through:
	// a sidecar of an exec chain, waited on alone, is checked every 100 ms.
	if perSecond := DefaultExtraProbeRunsPerSecond / ExtraExecCheckCost; perSecond < 10 {
		t.Errorf("the default bound allows %d exec checks a second, want 10 or more", perSecond)
	}
}

func TestYieldToRuntime(t *testing.T) {
	ms := time.Millisecond
	testCases := []struct {
		name                              string
		interval, runtimeStart, wantAfter time.Duration
	}{
		{name: "no container started lately", interval: 50 * ms, runtimeStart: 0, wantAfter: 50 * ms},
		{name: "a quiet runtime: 100 ms a start", interval: 50 * ms, runtimeStart: 100 * ms, wantAfter: 50 * ms},
		{name: "a busy runtime: 400 ms a start", interval: 50 * ms, runtimeStart: 400 * ms, wantAfter: 100 * ms},
		{name: "a saturated runtime: 4 s a start", interval: 50 * ms, runtimeStart: 4 * time.Second, wantAfter: time.Second},
		// A full node of a slow machine: the yield stops at once a second,
		// or the sidecar's readiness would be seen at its probe's period.
		{name: "a full node: 40 s a start", interval: 50 * ms, runtimeStart: 40 * time.Second, wantAfter: time.Second},
		{name: "an exec check that took 3 s keeps its duty spacing", interval: 3 * time.Second, runtimeStart: 40 * time.Second, wantAfter: 3 * time.Second},
		{name: "backed off already beyond the runtime's share", interval: time.Second, runtimeStart: 400 * ms, wantAfter: time.Second},
		{name: "an exec probe's first interval", interval: 100 * ms, runtimeStart: 2 * time.Second, wantAfter: 500 * ms},
		{name: "a nonsense reading is ignored", interval: 50 * ms, runtimeStart: 2 * time.Hour, wantAfter: 50 * ms},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.wantAfter, YieldToRuntime(tc.interval, tc.runtimeStart)); diff != "" {
				t.Errorf("YieldToRuntime(%v, %v) (-want +got):\n%s", tc.interval, tc.runtimeStart, diff)
			}
		})
	}
}

func TestExtraRunCounts(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		startupProbe, succeeded bool
		want                    bool
	}{
		{name: "readiness probe, success", succeeded: true, want: true},
		{name: "readiness probe, failure: failureThreshold counts all runs", succeeded: false, want: true},
		{name: "startup probe, success: the container has started", startupProbe: true, succeeded: true, want: true},
		{name: "startup probe, failure: only the periods count towards failureThreshold", startupProbe: true, succeeded: false, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExtraRunCounts(tc.startupProbe, tc.succeeded); got != tc.want {
				t.Errorf("ExtraRunCounts(%v, %v) = %v, want %v", tc.startupProbe, tc.succeeded, got, tc.want)
			}
		})
	}
}
