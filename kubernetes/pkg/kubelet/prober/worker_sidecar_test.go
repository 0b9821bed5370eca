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

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/record"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/exec"
	"k8s.io/utils/ptr"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarmetrics"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// readyAtProber is an HTTP prober whose target turns ready at a given time,
// and which counts its runs.
type readyAtProber struct {
	readyAt time.Time

	mu   sync.Mutex
	runs int
}

func (p *readyAtProber) Probe(_ *http.Request, _ time.Duration) (probe.Result, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	if time.Now().Before(p.readyAt) {
		return probe.Failure, "503", nil
	}
	return probe.Success, "200", nil
}

func (p *readyAtProber) ProbeH2C(req *http.Request, timeout time.Duration) (probe.Result, string, error) {
	return p.Probe(req, timeout)
}

func (p *readyAtProber) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// probeTestStart is the extra-run tests' common start, inside their
// synctest bubble: a context with the test's logger that the test's end
// cancels (stopping the workers it runs; the cleanup runs in the bubble,
// before synctest.Test waits for them), a probe manager, and the bubble's
// start. Each test sets the prober it needs.
func probeTestStart(t *testing.T) (context.Context, *manager, time.Time) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	return ctx, newTestManager(), time.Now()
}

// readyAtStart is probeTestStart with an HTTP prober whose target turns
// ready readyAfter the bubble's start: the prompt-detection tests' start.
func readyAtStart(t *testing.T, readyAfter time.Duration) (context.Context, *manager, time.Time, *readyAtProber) {
	t.Helper()
	ctx, m, start := probeTestStart(t)
	prober := &readyAtProber{readyAt: start.Add(readyAfter)}
	m.prober.http = prober
	return ctx, m, start, prober
}

// TestWaitedOnProbeRunsUntilItSucceeds checks contract rule 3's prompt
// detection: the readiness probe of an annotated sidecar, which the app
// containers wait on, also runs every 50 ms until it first succeeds, so the
// success is seen within 50 ms of the sidecar turning ready whatever the
// probe's periodSeconds, and then the probe runs at its own period again.
// A pod without annotations, and one with the gate off, probe exactly as
// upstream: once a period. Without the extra runs the success is seen at
// the next period, 10 s after the start here.
func TestWaitedOnProbeRunsUntilItSucceeds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		// decidedWith, if set, are the annotations the pod's layout was
		// decided with, before they changed to annotations (contract rule 19).
		decidedWith map[string]string
		gate        bool
		// noPromptChecks turns SidecarPromptReadinessChecks off alone.
		noPromptChecks bool
		wantSeenBy     time.Duration // after the sidecar turns ready
		wantRunsBy     int           // probe runs until 30 s after the start
	}{
		{name: "annotated sidecar", annotations: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}, gate: true,
			// 1.23 s of extra runs every 50 ms, then the periods at 10, 20, 30 s.
			wantSeenBy: 50 * time.Millisecond, wantRunsBy: 25 + 3},
		{name: "no annotations: upstream", gate: true, wantSeenBy: 10 * time.Second, wantRunsBy: 3},
		{name: "annotated sidecar, annotation removed since", decidedWith: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}, gate: true,
			wantSeenBy: 50 * time.Millisecond, wantRunsBy: 25 + 3},
		{name: "annotated since: upstream", annotations: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}, decidedWith: map[string]string{},
			gate: true, wantSeenBy: 10 * time.Second, wantRunsBy: 3},
		{name: "gate off: upstream", annotations: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}, gate: false,
			wantSeenBy: 10 * time.Second, wantRunsBy: 3},
		{name: "prompt checks off: the periods alone", annotations: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}, gate: true,
			noPromptChecks: true, wantSeenBy: 10 * time.Second, wantRunsBy: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			if tc.gate {
				featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarPromptReadinessChecks, !tc.noPromptChecks)
			}
			synctest.Test(t, func(t *testing.T) {
				ctx, m, start, prober := readyAtStart(t, 1230*time.Millisecond)
				pod := sidecarPod(t, m, "pod", tc.annotations, readiness, httpProbe(1, 3), start, true)
				// The pod's sync adds the pod's probe workers with the pod as
				// its layout was decided, from the annotations of its
				// sandbox.
				if tc.decidedWith != nil {
					sandbox := &kubecontainer.PodStatus{SandboxStatuses: []*runtimeapi.PodSandboxStatus{{Id: "sandbox", Annotations: tc.decidedWith}}}
					pod = kubecontainer.PodAsDecided(pod, sandbox)
				}
				w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
				go w.run(ctx)

				seen := firstSuccess(m.readinessManager, start, 30*time.Second, nil)
				expectSeenWithin(t, seen, prober.readyAt, tc.wantSeenBy)
				expectRuns(t, prober.count(), tc.wantRunsBy)
				w.stop()
			})
		})
	}
}

// TestWaitedOnStartupProbeRunsUntilItSucceeds checks contract rule 3 for a
// sidecar that a startup probe alone readies (the contract's "Ready"): its
// startup probe also runs every 50 ms until it first succeeds, so the
// success is seen within 50 ms of the sidecar turning ready. Its failed
// extra runs do not count: under failureThreshold 2 the run at the start
// fails, and one more counted failure would fail the probe and have the
// container killed; the sidecar still has the two periods upstream gives
// it. A pod without annotations probes as upstream: the success at the
// next period, 10 s after the start.
func TestWaitedOnStartupProbeRunsUntilItSucceeds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		wantSeenBy  time.Duration // after the sidecar turns ready
		wantRunsBy  int           // probe runs until 30 s after the start
	}{
		{name: "annotated sidecar", annotations: map[string]string{"sidecar-kubelet.io/sidecars": testContainerName},
			// The run at the start, 1.23 s of extra runs every 50 ms, then
			// none: a startup probe stops at its success.
			wantSeenBy: 50 * time.Millisecond, wantRunsBy: 1 + 25},
		{name: "no annotations: upstream", wantSeenBy: 10 * time.Second, wantRunsBy: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
			synctest.Test(t, func(t *testing.T) {
				ctx, m, start, prober := readyAtStart(t, 1230*time.Millisecond)
				pod := sidecarPod(t, m, "pod", tc.annotations, startup, httpProbe(1, 2), start, false)
				w := newWorker(m, startup, pod, pod.Spec.Containers[0])
				go w.run(ctx)

				seen := firstSuccess(m.startupManager, start, 30*time.Second, func(result results.Result, ok bool) {
					if ok && result == results.Failure {
						t.Fatalf("the startup probe failed %v after the start: a failed extra run counted towards its failureThreshold", time.Since(start))
					}
				})
				expectSeenWithin(t, seen, prober.readyAt, tc.wantSeenBy)
				expectRuns(t, prober.count(), tc.wantRunsBy)
				w.stop()
			})
		})
	}
}

// expectSeenWithin fails the test unless a probe's success was seen, at
// most within after the sidecar turned ready (and its probe could run).
func expectSeenWithin(t *testing.T, seen, readyAt time.Time, within time.Duration) {
	t.Helper()
	if seen.IsZero() {
		t.Fatalf("the probe's success was never seen")
	}
	if late := seen.Sub(readyAt); late > within {
		t.Errorf("success seen %v after the sidecar turned ready, want at most %v", late, within)
	}
}

// expectRuns fails the test unless a prober ran want times (±1) in the
// test's 30 s.
func expectRuns(t *testing.T, runs, want int) {
	t.Helper()
	if runs > want+1 || runs < want-1 {
		t.Errorf("%d probe runs in 30 s, want %d (±1)", runs, want)
	}
}

// scriptedProber is an HTTP prober whose answer at each run is script's,
// and which counts its runs.
type scriptedProber struct {
	script func(run int, now time.Time) probe.Result

	mu   sync.Mutex
	runs int
}

func (p *scriptedProber) Probe(_ *http.Request, _ time.Duration) (probe.Result, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	return p.script(p.runs, time.Now()), "", nil
}

func (p *scriptedProber) ProbeH2C(req *http.Request, timeout time.Duration) (probe.Result, string, error) {
	return p.Probe(req, timeout)
}

func (p *scriptedProber) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// annotatedSidecar is the annotation that makes the test container an
// annotated sidecar, which the app container waits on.
var annotatedSidecar = map[string]string{"sidecar-kubelet.io/sidecars": testContainerName}

// httpProbe is an HTTP probe of /ready every 10 s with these thresholds.
func httpProbe(successThreshold, failureThreshold int32) *v1.Probe {
	return &v1.Probe{
		ProbeHandler:  v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}},
		PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: successThreshold, FailureThreshold: failureThreshold,
	}
}

// sidecarPod returns a pod with these annotations whose test container has
// probe as its probe of probeType, beside an app container, and sets its
// status: the test container running since start, its Started as given
// (what its startup probe has found), at the pod IP that HTTP probes call.
func sidecarPod(t *testing.T, m *manager, uid types.UID, annotations map[string]string, probeType probeType, probe *v1.Probe, start time.Time, started bool) *v1.Pod {
	pod := getTestPod()
	pod.UID = uid
	pod.Name += "-" + string(uid)
	pod.Annotations = annotations
	pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: "app"})
	switch probeType {
	case readiness:
		pod.Spec.Containers[0].ReadinessProbe = probe
	case startup:
		pod.Spec.Containers[0].StartupProbe = probe
	default:
		t.Fatalf("no %v probe in these tests", probeType)
	}
	setSidecarStatus(t, m, pod, start, started)
	return pod
}

// setSidecarStatus sets the status of sidecarPod's pod.
func setSidecarStatus(t *testing.T, m *manager, pod *v1.Pod, start time.Time, started bool) {
	logger, _ := ktesting.NewTestContext(t)
	status := getTestRunningStatusWithStarted(started)
	status.PodIP = "10.0.0.1"
	status.ContainerStatuses[0].State.Running.StartedAt = metav1.NewTime(start)
	m.statusManager.SetPodStatus(logger, pod, status)
}

// waitedOnPod returns a pod whose annotated sidecar (the test container)
// has an HTTP readiness probe of period 10 s with these thresholds, and an
// app container, with its layout decided and its status running since
// start.
func waitedOnPod(t *testing.T, m *manager, uid types.UID, start time.Time, successThreshold, failureThreshold int32) *v1.Pod {
	return sidecarPod(t, m, uid, annotatedSidecar, readiness, httpProbe(successThreshold, failureThreshold), start, true)
}

// firstSuccess looks at the test container's result in resultsManager
// every 10 ms until d after start, hands each to look (if set), and
// returns when it first was a success: the zero time if never.
func firstSuccess(resultsManager results.Manager, start time.Time, d time.Duration, look func(result results.Result, ok bool)) time.Time {
	var seen time.Time
	for time.Since(start) < d {
		time.Sleep(10 * time.Millisecond)
		result, ok := resultsManager.Get(testContainerID)
		if look != nil {
			look(result, ok)
		}
		if seen.IsZero() && ok && result == results.Success {
			seen = time.Now()
		}
	}
	return seen
}

// TestExtraRunsCountTowardsTheThresholds checks contract rule 3: the extra runs
// of a waited-on readiness probe are runs like the others, so that
// successThreshold counts consecutive successes of all runs. The sidecar's
// endpoint answers failure and success in turn, and successThreshold is 3:
// no kubelet may ever see it ready. Before the fix a failed extra run was
// thrown away, so that S F S F S counted as three successes in a row, and
// the app started.
func TestExtraRunsCountTowardsTheThresholds(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	synctest.Test(t, func(t *testing.T) {
		ctx, m, start := probeTestStart(t)
		flapping := &scriptedProber{script: func(run int, _ time.Time) probe.Result {
			if run%2 == 0 {
				return probe.Success
			}
			return probe.Failure
		}}
		m.prober.http = flapping
		pod := waitedOnPod(t, m, "flapping", start, 3, 3)
		w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
		defer w.stop()
		go w.run(ctx)
		for time.Since(start) < 30*time.Second {
			time.Sleep(10 * time.Millisecond)
			if result, ok := m.readinessManager.Get(testContainerID); ok && result == results.Success {
				t.Fatalf("ready after %d runs that never succeeded three times in a row", flapping.count())
			}
		}
		if runs := flapping.count(); runs < 50 {
			t.Errorf("%d runs in 30 s: the extra runs did not happen", runs)
		}
	})
}

// TestExtraRunsRecordNoEvents checks that a waited-on sidecar's failures
// are recorded as events at the probe's period only, as upstream records
// them: the sidecar turns ready at 1.23 s, the probe's first (periodic) run
// at its start fails, and so do about 25 extra runs. Before the fix each
// failed extra run recorded an Unhealthy event, an API write each (more
// than ten per pod in make bench's density runs).
func TestExtraRunsRecordNoEvents(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	synctest.Test(t, func(t *testing.T) {
		// The events' references name the pod's kind.
		if err := v1.AddToScheme(legacyscheme.Scheme); err != nil {
			t.Fatal(err)
		}
		ctx, m, start, prober := readyAtStart(t, 1230*time.Millisecond)
		recorder := record.NewFakeRecorder(1000)
		m.prober.recorder = recorder
		pod := waitedOnPod(t, m, "quiet", start, 1, 3)
		w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
		defer w.stop()
		go w.run(ctx)
		time.Sleep(5 * time.Second)
		if runs := prober.count(); runs < 20 {
			t.Fatalf("%d probe runs in 5 s: the extra runs did not happen", runs)
		}
		if got := len(recorder.Events); got != 1 {
			t.Errorf("%d events for %d failed runs, want 1 (the periodic run's)", got, prober.count()-1)
		}
	})
}

// TestExtraRunsEndAtTheFirstReadiness checks that the extra runs stop at
// the container's first readiness and do not come back when it flaps: the
// sidecar turns ready at 1.23 s, not ready from 5 s to 20 s, and ready
// again. Its probe runs every 50 ms until 1.23 s, then at its period
// (10, 20, 30 s). Before the fix the extra runs resumed whenever the result
// was not a success in the first minute: a flap brought back 20 runs a
// second.
func TestExtraRunsEndAtTheFirstReadiness(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	synctest.Test(t, func(t *testing.T) {
		ctx, m, start := probeTestStart(t)
		flap := &scriptedProber{script: func(_ int, now time.Time) probe.Result {
			switch since := now.Sub(start); {
			case since < 1230*time.Millisecond, since >= 5*time.Second && since < 20*time.Second:
				return probe.Failure
			default:
				return probe.Success
			}
		}}
		m.prober.http = flap
		pod := waitedOnPod(t, m, "flap", start, 1, 1)
		w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
		defer w.stop()
		go w.run(ctx)
		time.Sleep(30*time.Second + 10*time.Millisecond)
		if runs, want := flap.count(), 25+3; runs > want+1 || runs < want-1 {
			t.Errorf("%d probe runs in 30 s, want %d (±1)", runs, want)
		}
	})
}

// TestExtraRunsAreBoundedNodeWide checks the node-wide bound of the extra
// runs: 50 waited-on sidecars that never turn ready, as after a node
// reboot, are probed at most the bound's runs a second together (and a
// burst), not 20 times a second each; the runs the bound holds back are
// counted. The bound is the default, or the node owner's
// --sidecar-extra-probe-runs-per-second (WithExtraProbeRunsPerSecond),
// which may turn the extra runs off: then each sidecar is probed on its
// period only (here at most its first run, after upstream's random
// initial delay), as upstream probes it.
func TestExtraRunsAreBoundedNodeWide(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	testCases := []struct {
		name        string
		setting     *int32
		exec        bool
		perSecond   int
		burst       int
		heldBack    bool
		extraCounts bool
	}{
		{name: "the default", setting: nil, perSecond: sidecars.DefaultExtraProbeRunsPerSecond, burst: 20, heldBack: true, extraCounts: true},
		{name: "the node owner's 20 a second", setting: ptr.To[int32](20), perSecond: 20, burst: sidecars.ExtraExecCheckCost, heldBack: true, extraCounts: true},
		// Each exec run spends 16 of the bound (sidecars.ExtraExecCheckCost):
		// 12.5 runs a second in all, and one at once. Counted as one each,
		// 200 a second would start 200 processes a second in the sidecars,
		// a core's worth of the runtime's CPU.
		{name: "the default, exec probes", setting: nil, exec: true, perSecond: 13, burst: 1, heldBack: true, extraCounts: true},
		{name: "turned off", setting: ptr.To[int32](0)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, m, start := probeTestStart(t)
				WithExtraProbeRunsPerSecond(tc.setting)(m)
				never := &scriptedProber{script: func(int, time.Time) probe.Result { return probe.Failure }}
				m.prober.http = never
				neverExec := &readyAtExecProber{readyAt: start.Add(time.Hour)}
				m.prober.exec = neverExec
				// The kubelet registers its metrics at its start; counters count
				// once registered.
				metrics.NewKubeRegistry().Register(sidecarmetrics.ExtraProbeRuns)
				runBefore := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeRun)
				limitedBefore := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeLimited)
				const sidecarsWaiting, seconds = 50, 5
				var workers []*worker
				for i := range sidecarsWaiting {
					pod := waitedOnPod(t, m, types.UID(fmt.Sprintf("pod-%02d", i)), start, 1, 3)
					if tc.exec {
						pod.Spec.Containers[0].ReadinessProbe.ProbeHandler = v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"/ready"}}}
					}
					w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
					workers = append(workers, w)
					go w.run(ctx)
				}
				time.Sleep(seconds*time.Second - time.Millisecond)
				// Each worker's first run (the period is 10 s), then what the
				// bound lets through.
				limit := sidecarsWaiting + tc.perSecond*seconds + tc.burst
				runs := never.count() + neverExec.count()
				if runs > limit {
					t.Errorf("%d probe runs of %d waited-on sidecars in %d s, want at most %d", runs, sidecarsWaiting, seconds, limit)
				}
				ran := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeRun) - runBefore
				limited := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeLimited) - limitedBefore
				if (limited > 0) != tc.heldBack {
					t.Errorf("%.0f extra runs counted as held back, want some: %v", limited, tc.heldBack)
				}
				if (ran > 0) != tc.extraCounts {
					t.Errorf("%.0f extra runs counted as run, want some: %v", ran, tc.extraCounts)
				}
				t.Logf("%d waited-on sidecars, %d s: %d probe runs, %.0f extra runs, %.0f held back", sidecarsWaiting, seconds, runs, ran, limited)
				// Without extra runs a worker first sleeps a random part of
				// the period, as upstream's do: let every one wake to stop.
				time.Sleep(10 * time.Second)
				for _, w := range workers {
					w.stop()
				}
			})
		})
	}
}

// TestExtraRunsSpendTheBoundOnlyWhereTheyProbe checks that only the extra
// runs that probe spend the node-wide bound and count as run: in a rollout
// most waited-on sidecars have not been created yet, or have not started,
// and their workers' extra ticks find nothing to probe. Here 40 such
// sidecars wait beside one that runs and never turns ready; the running one
// is probed on its schedule (every 50 ms, backing off from 2 s on), as if it
// waited alone. Before the fix each tick
// took a token and counted as a run before the worker looked for the
// container: the 41 workers asked for 820 tokens a second, the running
// sidecar got about 5 runs a second, and the counter said 200.
func TestExtraRunsSpendTheBoundOnlyWhereTheyProbe(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	synctest.Test(t, func(t *testing.T) {
		ctx, m, start := probeTestStart(t)
		logger := klog.FromContext(ctx)
		never := &scriptedProber{script: func(int, time.Time) probe.Result { return probe.Failure }}
		m.prober.http = never
		metrics.NewKubeRegistry().Register(sidecarmetrics.ExtraProbeRuns)
		runBefore := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeRun)
		limitedBefore := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeLimited)
		const notProbed, seconds = 40, 5
		var workers []*worker
		for i := range notProbed {
			pod := waitedOnPod(t, m, types.UID(fmt.Sprintf("pod-%02d", i)), start, 1, 3)
			status := getTestNotRunningStatus() // created, not started
			if i%2 == 0 {
				status = v1.PodStatus{Phase: v1.PodPending, ContainerStatuses: []v1.ContainerStatus{{
					Name: testContainerName, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}},
				}}}
			}
			m.statusManager.SetPodStatus(logger, pod, status)
			workers = append(workers, newWorker(m, readiness, pod, pod.Spec.Containers[0]))
		}
		running := waitedOnPod(t, m, "running", start, 1, 3)
		workers = append(workers, newWorker(m, readiness, running, running.Spec.Containers[0]))
		for _, w := range workers {
			go w.run(ctx)
		}
		time.Sleep(seconds*time.Second - time.Millisecond)
		// The first run, then the extra runs on their schedule.
		if runs, want := never.count(), 1+extraRunsWithin(false, seconds*time.Second, 0); runs < want-2 {
			t.Errorf("the running sidecar was probed %d times in %d s beside %d waiting to start, want %d as if alone", runs, seconds, notProbed, want)
		}
		counted := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeRun) - runBefore
		if runs := never.count(); counted > float64(runs) {
			t.Errorf("%.0f extra runs counted as run, but the prober ran %d times in all", counted, runs)
		}
		if limited := extraRunCount(t, sidecarmetrics.ExtraProbeRunOutcomeLimited) - limitedBefore; limited != 0 {
			t.Errorf("%.0f extra runs counted as held back, want none: one sidecar probed at most 20 times a second is within the bound", limited)
		}
		for _, w := range workers {
			w.stop()
		}
	})
}

// TestExtraRunsStartWithALateContainer checks that a sidecar whose
// container appears long after its worker began (the twentieth sidecar of
// a chain: every worker starts with the pod's sync, each container only
// once the sidecar before it is ready; or a container that appears after
// the worker's first minute) is checked within noContainerInterval of its
// container, then from the first interval on. Found by make bench's exec
// chain, where such sidecars waited up to a second (the back-off their
// workers had reached with no container) for their first check.
func TestExtraRunsStartWithALateContainer(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	for _, appearsAfter := range []time.Duration{15 * time.Second, 90 * time.Second} {
		t.Run(appearsAfter.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, m, _ := probeTestStart(t)
				logger := klog.FromContext(ctx)
				var firstRunAt time.Time
				never := &scriptedProber{script: func(run int, at time.Time) probe.Result {
					if run == 1 {
						firstRunAt = at
					}
					return probe.Failure
				}}
				m.prober.http = never
				pod := waitedOnPod(t, m, "late", time.Now(), 1, 3)
				pod.Spec.Containers[0].ReadinessProbe.PeriodSeconds = 300 // only extra runs in this test
				m.statusManager.SetPodStatus(logger, pod, v1.PodStatus{Phase: v1.PodPending, ContainerStatuses: []v1.ContainerStatus{{
					Name: testContainerName, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "ContainerCreating"}},
				}}})
				w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
				go w.run(ctx)
				time.Sleep(appearsAfter)
				status := getTestRunningStatus()
				status.PodIP = "10.0.0.1"
				m.statusManager.SetPodStatus(logger, pod, status)
				created := time.Now()
				time.Sleep(2 * time.Second)
				if firstRunAt.IsZero() {
					t.Fatalf("not probed within 2 s of its container")
				}
				if d := firstRunAt.Sub(created); d > noContainerInterval {
					t.Errorf("first probe run %v after its container appeared, want at most %v", d, noContainerInterval)
				}
				// Then every 50 ms: the container's first 2 s are its fastest.
				if runs := never.count(); runs < 30 {
					t.Errorf("%d probe runs in the container's first 2 s, want 30 or more", runs)
				}
				w.stop()
			})
		})
	}
}

// TestExtraRunsBackOffFromTheProbesFirstRun checks contract rule 3 for a
// readiness probe that may not run at the container's start: its extra
// runs come every 50 ms from the first run the probe may make, and the
// first comes as soon as it may. The probe runs on its period of 300 s
// alone otherwise, so that only extra runs can see the readiness here.
// Before the fix the back-off counted from the container's start: 10 s
// into it, when initialDelaySeconds or a startup probe let the probe run,
// the extra runs came once a second, and the readiness was seen up to a
// second late.
func TestExtraRunsBackOffFromTheProbesFirstRun(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	for _, tc := range []struct {
		name string
		// initialDelaySeconds of the readiness probe.
		initialDelaySeconds int32
		// startedAfter: when the container's startup probe succeeds (its
		// status says Started), after its start; 0: it has none.
		startedAfter time.Duration
		// triggered: the pod's sync then runs the probe at once, as
		// upstream's status update does for a started container that is
		// not ready (manualTriggerCh).
		triggered bool
		// readyAfter: when the sidecar answers ready, after its start.
		readyAfter time.Duration
		// mayRunAfter: when the probe may first run, after the start.
		mayRunAfter time.Duration
		wantSeenBy  time.Duration // after max(readyAfter, mayRunAfter)
	}{
		{name: "initialDelaySeconds 10, ready before they end", initialDelaySeconds: 10,
			readyAfter: 700 * time.Millisecond, mayRunAfter: 10 * time.Second,
			// The first run comes as the delay ends: the test's 10 ms.
			wantSeenBy: 10 * time.Millisecond},
		{name: "initialDelaySeconds 10, ready 1.23 s after they end", initialDelaySeconds: 10,
			readyAfter: 11230 * time.Millisecond, mayRunAfter: 10 * time.Second, wantSeenBy: 50 * time.Millisecond},
		{name: "behind a startup probe that succeeds at 10 s, ready 1.23 s after", startedAfter: 10 * time.Second,
			readyAfter: 11230 * time.Millisecond, mayRunAfter: 10 * time.Second, wantSeenBy: 50 * time.Millisecond},
		{name: "behind a startup probe that succeeds at 10.01 s, the sync's run at once, ready 20 ms after",
			startedAfter: 10010 * time.Millisecond, triggered: true,
			// The worker looked at 10 s; its next look would have been at
			// 10.2 s: the extra runs come at 50 ms from the sync's run.
			readyAfter: 10030 * time.Millisecond, mayRunAfter: 10010 * time.Millisecond, wantSeenBy: 50 * time.Millisecond},
		{name: "ready at 11.23 s, from the start: backed off", readyAfter: 11230 * time.Millisecond,
			// 10 s into the wait the extra runs come once a second.
			wantSeenBy: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, m, start, _ := readyAtStart(t, tc.readyAfter)
				probe := httpProbe(1, 3)
				probe.PeriodSeconds = 300
				probe.InitialDelaySeconds = tc.initialDelaySeconds
				pod := sidecarPod(t, m, "delayed", annotatedSidecar, readiness, probe, start, tc.startedAfter == 0)
				w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
				go w.run(ctx)

				seen := firstSuccess(m.readinessManager, start, 20*time.Second, func(results.Result, bool) {
					if tc.startedAfter > 0 && time.Since(start) >= tc.startedAfter {
						// The startup probe's success; without the pod
						// sync's manual trigger, the worker's own looks
						// are the bound.
						setSidecarStatus(t, m, pod, start, true)
						if tc.triggered {
							w.manualTriggerCh <- struct{}{}
						}
						tc.startedAfter = 0
					}
				})
				expectSeenWithin(t, seen, start.Add(max(tc.readyAfter, tc.mayRunAfter)), tc.wantSeenBy)
				w.stop()
			})
		})
	}
}

// extraRunCount reads the ExtraProbeRuns counter of an outcome.
func extraRunCount(t *testing.T, outcome string) float64 {
	t.Helper()
	value, err := testutil.GetCounterMetricValue(sidecarmetrics.ExtraProbeRuns.WithLabelValues(outcome))
	if err != nil {
		t.Fatalf("reading %s: %v", outcome, err)
	}
	return value
}

// extraRunsWithin counts the extra runs of a waited-on probe that never
// succeeds in its first d, each run taking took, by the schedule of
// sidecars.ExtraCheckInterval.
func extraRunsWithin(exec bool, d, took time.Duration) int {
	runs := 0
	for at := time.Duration(0); ; runs++ {
		at += sidecars.ExtraCheckInterval(exec, at, took)
		if runs > 0 {
			at += took
		}
		if at > d {
			return runs
		}
	}
}

// TestExtraRunsBackOffWhileNotReady checks that the extra runs of a sidecar
// that stays not ready back off: every 50 ms for 2 s, then less and less
// often, at most once a second from 10 s on, until the window ends at a
// minute; a run that takes 300 ms spaces the next ones by four times as
// much. Before the back-off the sidecar was probed 20 times a second for a
// whole minute (1,200 runs).
func TestExtraRunsBackOffWhileNotReady(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	for _, tc := range []struct {
		name string
		took time.Duration
	}{
		{name: "a fast endpoint"},
		{name: "an endpoint that takes 300 ms", took: 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, m, start := probeTestStart(t)
				// Cancelled at 90 s, before the counts: the test's own end is later.
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				var mu sync.Mutex
				var runsAt []time.Duration
				never := &scriptedProber{script: func(_ int, now time.Time) probe.Result {
					mu.Lock()
					runsAt = append(runsAt, now.Sub(start))
					mu.Unlock()
					time.Sleep(tc.took)
					return probe.Failure
				}}
				m.prober.http = never
				pod := waitedOnPod(t, m, "never", start, 1, 3)
				w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
				go w.run(ctx)
				time.Sleep(90 * time.Second)
				// Let a run under way end, and the worker with it.
				cancel()
				w.stop()
				time.Sleep(time.Second)
				mu.Lock()
				defer mu.Unlock()
				count := func(from, to time.Duration) int {
					n := 0
					for _, at := range runsAt {
						if at >= from && at < to {
							n++
						}
					}
					return n
				}
				// The periodic runs (every 10 s) come beside the extra ones.
				if n := count(10*time.Second, time.Minute); n > 50+5 {
					t.Errorf("%d runs between 10 s and 60 s, want at most 55: one extra run a second and the periodic ones", n)
				}
				if n := count(time.Minute+time.Second, 90*time.Second); n > 3 {
					t.Errorf("%d runs between 61 s and 90 s, want the periodic ones alone (3): the window is over", n)
				}
				first := count(0, 2*time.Second)
				if want := extraRunsWithin(false, 2*time.Second, tc.took); first < want-1 || first > want+2 {
					t.Errorf("%d runs in the first 2 s, want %d (±1) by the schedule", first, want)
				}
				t.Logf("%s: %d runs in the first 2 s, %d in the first minute", tc.name, first, count(0, time.Minute))
			})
		})
	}
}

// readyAtExecProber is an exec prober whose command succeeds from a given
// time on, and which counts its runs.
type readyAtExecProber struct {
	readyAt time.Time

	mu   sync.Mutex
	runs int
}

func (p *readyAtExecProber) Probe(exec.Cmd) (probe.Result, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	if time.Now().Before(p.readyAt) {
		return probe.Failure, "not yet", nil
	}
	return probe.Success, "", nil
}

func (p *readyAtExecProber) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// TestWaitedOnExecProbeRunsUntilItSucceeds checks contract rule 3 for an exec
// readiness probe: it runs every 100 ms until it first succeeds, so the
// success is seen within 100 ms of the sidecar turning ready, whatever
// its periodSeconds. Before the fix the exec probe kept its period: the
// success was seen at the next one, 10 s after the start; until the exec
// checks were bounded at their cost, it ran every 250 ms.
func TestWaitedOnExecProbeRunsUntilItSucceeds(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	synctest.Test(t, func(t *testing.T) {
		ctx, m, start := probeTestStart(t)
		prober := &readyAtExecProber{readyAt: start.Add(1230 * time.Millisecond)}
		m.prober.exec = prober
		execProbe := &v1.Probe{
			ProbeHandler:  v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"/ready"}}},
			PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3,
		}
		pod := sidecarPod(t, m, "pod", annotatedSidecar, readiness, execProbe, start, true)
		w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
		go w.run(ctx)

		seen := firstSuccess(m.readinessManager, start, 30*time.Second, nil)
		// Within an interval, and the 10 ms the test looks at.
		expectSeenWithin(t, seen, prober.readyAt, 110*time.Millisecond)
		// The first run, extra runs every 100 ms up to 1.3 s, then the
		// periods at 10, 20 and 30 s.
		expectRuns(t, prober.count(), 1+13+3)
		w.stop()
	})
}
