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

package prober

// This file belongs to sidecar-kubelet's patch series: the extra runs of a
// probe that other containers wait on.

import (
	"time"

	"golang.org/x/time/rate"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarmetrics"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

const (
	// waitedOnProbeWindow bounds the extra runs of a container that never
	// turns ready: they happen only in the first waitedOnProbeWindow of its
	// life (128 of them in the first minute, at 2 ms a run).
	waitedOnProbeWindow = time.Minute
	// noContainerInterval is how often a waited-on sidecar's worker looks
	// for its container while it has none: each look is a status lookup,
	// no probe, and a pod stuck before its container (an image that does
	// not pull) costs five a second.
	noContainerInterval = 200 * time.Millisecond
)

// waitedOn runs a probe that other containers wait on (a sidecar's
// readiness probe: sidecars.Layout.WaitsOnReadiness; or its startup probe:
// WaitsOnStartup) besides its own period, until it first succeeds for the
// container, for at most waitedOnProbeWindow from the first run the probe
// may make, so that the waiting containers start promptly whatever the
// probe's periodSeconds (contract rule 3). The extra runs come every 50 ms
// (exec probes: 100 ms, one at a time) and back off while the container
// stays not ready, to one a second from 10 s on; however slow a run is,
// the extra runs of a network probe take at most a quarter of the time
// (sidecars.ExtraCheckInterval). The back-off counts from the probe's
// first run, not from the container's start: a readiness probe behind a
// startup probe, or behind initialDelaySeconds, may not run for seconds,
// and its sidecar has not been found not ready meanwhile. The extra runs of
// a readiness probe are runs like the others: they count towards
// successThreshold and failureThreshold. Those of a startup probe count
// only when they succeed (sidecars.ExtraRunCounts), so that the container
// keeps the failureThreshold × periodSeconds to start that the probe gives
// it. All count in prober_probe_total. They end at the container's first
// success and do not come back on a later flap; a new container (a
// restart) is waited on again. The node's extra runs together are bounded
// (newExtraProbeRunLimiter). The zero waitedOn does nothing.
type waitedOn struct {
	enabled bool
	// exec: the probe starts a process in the container at each run.
	exec bool
	// startup: the probe is a startup probe, whose failed extra runs do
	// not count.
	startup bool
	// timer is the next extra run's, set when the worker first waits for it.
	timer *time.Timer
	// probingSince is when the current container's probe first could run:
	// its container running and started, its initialDelaySeconds over.
	// Zero until then, and for a new container. The back-off and the
	// window count from it.
	probingSince time.Time
	// delayedUntil is when the current container's initialDelaySeconds
	// end, once a run has found them under way; zero before.
	delayedUntil time.Time
	// ready: the current container has been ready; no more extra runs for
	// it.
	ready bool
	// extraRun marks the run in progress as an extra one.
	extraRun bool
	// lastRun is how long the last extra run took.
	lastRun time.Duration
}

func newWaitedOn(pod *v1.Pod, container *v1.Container, probeType probeType, extraProbeRuns *rate.Limiter) waitedOn {
	// The probe manager adds a pod's workers in the pod's sync, after the
	// pod's layout is decided. No bound: the node's owner turned the extra
	// runs off.
	if extraProbeRuns == nil {
		return waitedOn{}
	}
	layout := kubecontainer.SidecarLayoutOf(pod)
	switch {
	case probeType == readiness && layout.WaitsOnReadiness(pod, container):
		return waitedOn{enabled: true, exec: container.ReadinessProbe.Exec != nil}
	case probeType == startup && layout.WaitsOnStartup(pod, container):
		return waitedOn{enabled: true, exec: container.StartupProbe.Exec != nil, startup: true}
	}
	return waitedOn{}
}

// tick returns the channel of the next extra run, or nil (no extra run)
// once the worker's current container has been ready or its window is over.
func (o *waitedOn) tick(w *worker) <-chan time.Time {
	if !o.enabled || !o.waiting(w) {
		o.stop()
		return nil
	}
	if o.timer == nil {
		var interval time.Duration
		switch now := time.Now(); {
		case o.probingSince.IsZero() && o.delayedUntil.After(now):
			// The probe's initialDelaySeconds are under way: its first run
			// comes as they end, which no status change announces.
			interval = o.delayedUntil.Sub(now)
		case o.probingSince.IsZero():
			// No container yet (the sidecars before it still start), or its
			// probe may not run yet: its container is created but not
			// started, or its startup probe has not succeeded. The worker
			// looks at a steady pace, a status lookup and no probe, so that
			// the checks begin within noContainerInterval of the moment the
			// probe may run however long that took (the twentieth sidecar
			// of a chain; a startup that takes a minute), and not at the
			// back-off the container would have reached by then. A start
			// or a startup probe's success also syncs the pod, whose status
			// update runs the readiness probe at once (upstream's manual
			// trigger): these looks are the bound.
			interval = max(sidecars.ExtraCheckInterval(o.exec, 0, 0), noContainerInterval)
		default:
			interval = sidecars.YieldToRuntime(sidecars.ExtraCheckInterval(o.exec, now.Sub(o.probingSince), o.lastRun),
				w.probeManager.runtimeStart.latency(now))
		}
		o.timer = time.NewTimer(interval)
	}
	return o.timer.C
}

// fired marks the run about to start as an extra one; the next extra run
// is timed anew, from the backed-off interval.
func (o *waitedOn) fired() {
	o.extraRun = true
	o.timer = nil
}

// ran records how long an extra run took.
func (o *waitedOn) ran(took time.Duration) {
	o.lastRun = took
}

// waiting reports whether the worker's current container is still waited
// on: it has not been ready yet, and its window is not over.
func (o *waitedOn) waiting(w *worker) bool {
	if w.containerID.IsEmpty() {
		// Its window starts with its probe's first run (probeRunnable).
		return true
	}
	if o.ready || (!o.probingSince.IsZero() && time.Since(o.probingSince) > waitedOnProbeWindow) {
		return false
	}
	if result, ok := w.resultsManager.Get(w.containerID); ok && result == results.Success {
		o.ready = true
		return false
	}
	return true
}

// newContainer starts over for a new container: a restarted sidecar is
// waited on again, its window from its probe's first run.
func (o *waitedOn) newContainer() {
	if o.enabled {
		o.probingSince = time.Time{}
		o.delayedUntil = time.Time{}
		o.ready = false
		o.lastRun = 0
		o.stop()
	}
}

// delayed records that a run found the probe's initialDelaySeconds under
// way for a container started at startedAt: the next extra run comes as
// they end. It is the moment at which upstream's check of the delay (whole
// seconds since the start) first lets the probe run.
func (o *waitedOn) delayed(startedAt time.Time, initialDelaySeconds int32) {
	if o.enabled && o.probingSince.IsZero() {
		o.delayedUntil = startedAt.Add(time.Duration(initialDelaySeconds) * time.Second)
		o.stop()
	}
}

// probeRunnable records that the probe may run for the current container
// from now on: its back-off and its window count from the first such run,
// whether an extra, a periodic or a triggered one.
func (o *waitedOn) probeRunnable() {
	if o.enabled && o.probingSince.IsZero() {
		o.probingSince = time.Now()
		// The next extra run comes at the first interval from this run,
		// not at the pace of the looks before it.
		o.stop()
	}
}

// counts reports whether an extra run's result counts towards the probe's
// thresholds: all of a readiness probe's, a startup probe's success alone.
func (o *waitedOn) counts(result results.Result) bool {
	return sidecars.ExtraRunCounts(o.startup, result == results.Success)
}

// takeExtraRun reports whether the run about to start is an extra one, and
// clears the mark for the runs after it.
func (o *waitedOn) takeExtraRun() bool {
	extra := o.extraRun
	o.extraRun = false
	return extra
}

// mayProbe reports whether an extra run may probe now, within the
// node-wide bound, which an exec run spends at its cost
// (sidecars.ExtraCheckCost), and counts it as run or held back. The worker
// asks only once it has a running container to probe: the ticks of a
// sidecar not yet created or started find nothing to probe, and in a
// rollout they are most of the ticks; taking tokens for them would thin
// out the checks of the sidecars that run.
func (o *waitedOn) mayProbe(limiter *rate.Limiter) bool {
	if !limiter.AllowN(time.Now(), sidecars.ExtraCheckCost(o.exec)) {
		sidecarmetrics.ExtraProbeRuns.WithLabelValues(sidecarmetrics.ExtraProbeRunOutcomeLimited).Inc()
		return false
	}
	sidecarmetrics.ExtraProbeRuns.WithLabelValues(sidecarmetrics.ExtraProbeRunOutcomeRun).Inc()
	return true
}

func (o *waitedOn) stop() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
}

// newExtraProbeRunLimiter is the node-wide bound of the extra runs, all
// waited-on probes together, by default: an extra run is a connection to
// the sidecar or a process in it, so a node reboot that finds every sidecar
// waited on must not open 20 of them a second per sidecar. The bound (the
// default, and the node owner's --sidecar-extra-probe-runs-per-second: see
// sidecars.DefaultExtraProbeRunsPerSecond for why 200) keeps every waiting
// sidecar checked 4 times a second up to 50 of them (exec probes: 12
// checks a second in all, each counting as sidecars.ExtraExecCheckCost);
// beyond that the extra runs thin out towards the probes' own periods.
// The kubelet counts the runs it makes and those the bound holds back
// (sidecarmetrics.ExtraProbeRuns); make bench reports them.
func newExtraProbeRunLimiter() *rate.Limiter {
	return extraProbeRunLimiter(sidecars.DefaultExtraProbeRunsPerSecond)
}

// extraProbeRunLimiter bounds the extra runs to perSecond; nil (no extra
// runs at all) for 0, and with the feature gate SidecarPromptReadinessChecks
// off, which turns them off alone: the apps then wait for the sidecars'
// periodic probes, and the rest of the ordering stays.
func extraProbeRunLimiter(perSecond int32) *rate.Limiter {
	if perSecond <= 0 || !utilfeature.DefaultFeatureGate.Enabled(features.SidecarPromptReadinessChecks) {
		return nil
	}
	return rate.NewLimiter(rate.Limit(perSecond), sidecars.ExtraProbeRunBurst(perSecond))
}

// proberFor is the prober of a run: an extra run records no events. A
// copy per extra run (six words) keeps the prober the manager holds the
// one that is used, as upstream's tests replace its parts.
func (m *manager) proberFor(extraRun bool) *prober {
	if extraRun {
		return m.prober.withoutEvents()
	}
	return m.prober
}

// withoutEvents is the prober that records no events, for the extra runs.
// A sidecar's failures are the user's to see at the probe's period, as
// upstream records them: the same failure found every 50 ms between them
// would add an event update (an API write) per run, more than ten per pod
// at a rollout, and tell the user nothing the periodic runs do not.
func (pb *prober) withoutEvents() *prober {
	quiet := *pb
	quiet.recorder = noEvents{}
	return &quiet
}

// noEvents is an event recorder that records nothing.
type noEvents struct{}

func (noEvents) Event(runtime.Object, string, string, string)                  {}
func (noEvents) Eventf(runtime.Object, string, string, string, ...interface{}) {}
func (noEvents) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...interface{}) {
}
func (n noEvents) WithLogger(klog.Logger) record.EventRecorderLogger { return n }

// A ManagerOption sets up the probe manager beyond upstream's arguments.
type ManagerOption func(*manager)

// WithExtraProbeRunsPerSecond sets the node-wide bound of the extra runs
// (the kubelet's --sidecar-extra-probe-runs-per-second, validated there):
// nil keeps the default, 0 turns the extra runs off, so that waited-on
// sidecars are probed on their periods only, as upstream probes them.
func WithExtraProbeRunsPerSecond(perSecond *int32) ManagerOption {
	return func(m *manager) {
		if perSecond != nil {
			m.extraProbeRuns = extraProbeRunLimiter(*perSecond)
		}
	}
}
