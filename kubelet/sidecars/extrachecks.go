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
	"time"
)

const (
	// FirstExtraCheckInterval is how often the kubelet checks a waited-on
	// sidecar's network readiness probe (HTTP, TCP, gRPC) between the
	// probe's periodic runs while the sidecar has just started: the apps
	// start within this of its readiness (contract rule 3's quarter of a second,
	// with room for the start itself).
	FirstExtraCheckInterval = 50 * time.Millisecond
	// FirstExtraExecCheckInterval is the same for an exec probe, each of
	// whose checks starts a process in the container through the runtime
	// and itself takes some tens of milliseconds: the next check starts
	// 100 ms after the last one started, or as soon as it ended
	// (ExtraExecCheckDutyFactor), so that the readiness is seen about as
	// soon as a check can see it. What that costs the node is bounded by
	// the node-wide bound, in which an exec check counts as
	// ExtraExecCheckCost network ones.
	FirstExtraExecCheckInterval = 100 * time.Millisecond
	// ExtraChecksBackOffAfter is how long a sidecar may stay not ready
	// before its extra checks back off: most sidecars are ready within it
	// (the bench's proxies in well under a second).
	ExtraChecksBackOffAfter = 2 * time.Second
	// ExtraChecksBackOffStep is how often, past ExtraChecksBackOffAfter,
	// the interval doubles, up to MaxExtraCheckInterval.
	ExtraChecksBackOffStep = 2 * time.Second
	// MaxExtraCheckInterval is the longest interval between extra checks:
	// a sidecar that stays not ready (a mesh waiting for its control plane)
	// is checked once a second, as a probe of periodSeconds 1 would be,
	// from at most 10 s after its probe's first run.
	MaxExtraCheckInterval = time.Second
	// ExtraCheckDutyFactor keeps the extra checks of one network probe to
	// at most a 1/ExtraCheckDutyFactor share of its time: the next check
	// waits at least this many times as long as the last one took. A slow
	// answer is the sign of a sidecar that is slow to answer; asking more
	// often would only add to its load.
	ExtraCheckDutyFactor = 4
	// ExtraExecCheckDutyFactor is the same for an exec probe: one check at
	// a time, the next no sooner than the last one ended. An exec check's
	// duration is mostly the start of a process in the container, which
	// the check cannot do without; a saturated runtime is read from its
	// create-and-start latency instead (YieldToRuntime), and the CPU the
	// checks take is bounded node-wide at their cost (ExtraExecCheckCost).
	// With the factor 4, a 60 ms check spaced the next one 240 ms apart, and
	// make bench's exec chain saw each sidecar's readiness 170 ms (p50)
	// after it, against 51 ms for a postStart hook that polls.
	ExtraExecCheckDutyFactor = 1
)

// ExtraCheckInterval returns how long the kubelet waits before the next
// extra check of a waited-on sidecar's readiness or startup probe
// (Layout.WaitsOnReadiness, WaitsOnStartup), given whether the probe is an
// exec one, how long the sidecar has been waited on (since the first run
// its probe could make for the container: a probe held back by
// initialDelaySeconds, or a readiness probe behind a startup probe, has
// not found the sidecar not ready meanwhile) and how long the last extra
// check took (0 before the first).
//
// The interval starts at FirstExtraCheckInterval (exec:
// FirstExtraExecCheckInterval), doubles every ExtraChecksBackOffStep once
// the sidecar has been waited on for ExtraChecksBackOffAfter, and is at most
// MaxExtraCheckInterval, so from 10 s on a sidecar that stays not ready costs
// at most one extra check a second. It is never shorter than
// ExtraCheckDutyFactor (exec: ExtraExecCheckDutyFactor) times the last
// check's duration.
func ExtraCheckInterval(exec bool, waited, lastCheck time.Duration) time.Duration {
	interval, dutyFactor := FirstExtraCheckInterval, time.Duration(ExtraCheckDutyFactor)
	if exec {
		interval, dutyFactor = FirstExtraExecCheckInterval, ExtraExecCheckDutyFactor
	}
	if waited > ExtraChecksBackOffAfter {
		// Doublings so far; bounded, so that a long wait cannot overflow.
		for steps := (waited - ExtraChecksBackOffAfter) / ExtraChecksBackOffStep; steps >= 0 && interval < MaxExtraCheckInterval; steps-- {
			interval *= 2
		}
	}
	interval = min(interval, MaxExtraCheckInterval)
	if lastCheck > 0 && lastCheck < time.Hour {
		interval = max(interval, dutyFactor*lastCheck)
	}
	return interval
}

const (
	// DefaultExtraProbeRunsPerSecond is the node-wide bound of extra
	// checks, all waited-on sidecars together, unless the node's owner sets
	// the kubelet's --sidecar-extra-probe-runs-per-second. An extra check
	// of a network probe costs the kubelet 0.47 to 0.70 ms of CPU (make
	// bench's probe-rate runs of its quiet reference run: 50 waiting
	// sidecars against the same pods probed on their period), so 200 a
	// second bound the extra cost to at most a seventh of one core, while
	// every sidecar of a 50-sidecar rollout is still checked four times a
	// second in its first two seconds (rule 3's quarter of a second). An
	// exec check counts as ExtraExecCheckCost of them.
	DefaultExtraProbeRunsPerSecond = 200
	// MaxExtraProbeRunsPerSecond is the highest bound the kubelet accepts:
	// above it the bound is no bound on a node of any size.
	MaxExtraProbeRunsPerSecond = 10000
)

// ValidateExtraProbeRunsPerSecond checks the kubelet's
// --sidecar-extra-probe-runs-per-second: 0 (no extra checks: waited-on
// sidecars are probed on their periods, as upstream probes them) to
// MaxExtraProbeRunsPerSecond.
func ValidateExtraProbeRunsPerSecond(perSecond int32) error {
	if perSecond < 0 || perSecond > MaxExtraProbeRunsPerSecond {
		return fmt.Errorf("--sidecar-extra-probe-runs-per-second %d must be between 0 (no extra probe runs) and %d", perSecond, MaxExtraProbeRunsPerSecond)
	}
	return nil
}

// ExtraExecCheckCost is what an extra check of an exec probe counts
// against the node-wide bound, in checks of a network probe: about what it
// costs the node in CPU against one of those. make bench's probe-rate runs
// measure both (the report's "CPU per extra check" lines): an HTTP check
// took the kubelet 0.47 to 0.70 ms in the quiet reference run, an exec
// check took containerd, its shims and runc 15.7 and 18.9 ms in two
// scratch runs (each starts a process in the container; the reference
// run's exec line failed, see hack/bench/run.sh's
// BENCH_PROBE_RATE_EXEC_PODS): 22 to 40 times as much. 16 rounds that
// down on purpose: the default 200 a second is then about a seventh of a
// core as network checks and a quarter as exec ones (12 a second), enough
// for the one waiting sidecar of an exec chain to be checked every 100 ms
// however many wait behind it.
const ExtraExecCheckCost = 16

// ExtraCheckCost is what an extra check counts against the node-wide
// bound: 1 for a network probe (HTTP, TCP, gRPC), ExtraExecCheckCost for
// an exec one.
func ExtraCheckCost(exec bool) int {
	if exec {
		return ExtraExecCheckCost
	}
	return 1
}

// ExtraProbeRunBurst is how many extra checks the node-wide bound lets
// through at once: a tenth of a second's worth, so that the sidecars of
// pods started together are checked in their first 50 ms (200 a second: 20
// at once), and at least one exec check's cost, or no exec check could
// ever run under a low bound.
func ExtraProbeRunBurst(perSecond int32) int {
	return max(ExtraExecCheckCost, int(perSecond)/10)
}

// ExtraCheckRuntimeShare bounds the extra checks by the runtime's own pace:
// the interval between two extra checks is at least this share of the time
// the runtime recently took to create and start a container, up to
// MaxExtraCheckInterval. The apps wait for that start anyway once the
// sidecar is ready, so checking more often would shorten their wait by
// less than a quarter while it takes CPU, and for exec probes runtime
// calls, from a runtime already saturated (a hundred pods starting at once
// on two cores: 3 to 4 s per container start).
const ExtraCheckRuntimeShare = 4

// YieldToRuntime returns the interval before the next extra check
// (ExtraCheckInterval's), lengthened to a quarter of runtimeStart, the
// runtime's recent create-and-start latency as the kubelet measured its CRI
// calls (0 when it started no container lately: no reason to yield), but
// by the yield to no more than MaxExtraCheckInterval. With a quiet runtime
// (about 100 ms a start) it changes nothing; on a saturated one it spaces
// the checks out to the pace at which the apps could start, and at most to
// once a second, the pace of a waiting sidecar's back-off and of a probe
// of periodSeconds 1.
//
// Why the yield stops there: the sidecar's readiness is seen only when a
// check runs, and the app's CreateContainer comes after that, so a longer
// yield adds to the app's wait instead of overlapping the runtime's. On a
// full node of a slower 2-core machine (make bench, 110 pods at once, 40 s
// and more a container start: docs/bench/full-node-probes) a quarter of the
// start spaced the checks past the probe's own period of 10 s, the fork saw
// a ready sidecar 5.7 s after it (p50) against 0.45 s for upstream's
// startup probe of periodSeconds 1, and its apps joined the runtime's queue
// that much later. On a faster machine, settled, with and without the stop
// (docs/bench/full-node-yield-cap and full-node-yield-nocap: 110 pods, three
// runs each, about 8 s a start) the stop halved that part (p50 979 to 460
// ms, upstream's 506 to 580) for about two more extra checks a second on
// the node (3 against 1, the runs' mean), with no difference the runs
// could tell in the time to all Ready or the node's CPU per pod. An exec
// check's own duration still spaces its checks (ExtraExecCheckDutyFactor),
// and the node-wide bound still holds.
func YieldToRuntime(interval, runtimeStart time.Duration) time.Duration {
	if runtimeStart <= 0 || runtimeStart > time.Hour {
		return interval
	}
	return max(interval, min(runtimeStart/ExtraCheckRuntimeShare, MaxExtraCheckInterval))
}

// ExtraRunCounts reports whether an extra run of a waited-on probe counts
// towards the probe's thresholds, given whether it is a startup probe and
// whether the run succeeded: every run of a readiness probe, so that
// successThreshold and failureThreshold count consecutive results of all
// runs; only the successes of a startup probe (WaitsOnStartup).
func ExtraRunCounts(startupProbe, succeeded bool) bool {
	return !startupProbe || succeeded
}
