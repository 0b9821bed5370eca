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

// This file belongs to sidecar-kubelet's patch series.

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics"
	"k8s.io/kubernetes/pkg/features"
	kubeletmetrics "k8s.io/kubernetes/pkg/kubelet/metrics"
	"k8s.io/kubernetes/pkg/probe"

	"github.com/google/go-cmp/cmp"
)

// observeRuntimeStart records one container start in the kubelet's CRI
// call durations, as the instrumented runtime service does.
func observeRuntimeStart(create, start time.Duration) {
	kubeletmetrics.RuntimeOperationsDuration.WithLabelValues("create_container").Observe(create.Seconds())
	kubeletmetrics.RuntimeOperationsDuration.WithLabelValues("start_container").Observe(start.Seconds())
}

// keepStartingContainers records a container start with these latencies
// every 200 ms, as other pods' containers starting meanwhile, until ctx is
// done; the channel it returns is closed then.
func keepStartingContainers(ctx context.Context, create, start time.Duration) <-chan struct{} {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			observeRuntimeStart(create, start)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return stopped
}

// TestRuntimeStartMeter checks the runtime's pace as the extra runs read
// it: the mean create and start latency of the calls since the last
// reading, read at most once a second, and 0 when no container started or
// the last reading is too old for the calls since to be recent.
func TestRuntimeStartMeter(t *testing.T) {
	metrics.NewKubeRegistry().Register(kubeletmetrics.RuntimeOperationsDuration)
	ms := time.Millisecond
	var meter runtimeStartMeter
	now := time.Now()
	observeRuntimeStart(time.Hour, time.Hour) // before the first reading: not counted
	var got []time.Duration
	got = append(got, meter.latency(now)) // the first reading: a baseline only
	observeRuntimeStart(100*ms, 20*ms)
	observeRuntimeStart(300*ms, 60*ms)
	got = append(got, meter.latency(now.Add(500*ms))) // within the second: the last value
	got = append(got, meter.latency(now.Add(time.Second)))
	got = append(got, meter.latency(now.Add(1500*ms)))
	got = append(got, meter.latency(now.Add(2*time.Second))) // no start since: 0
	observeRuntimeStart(3*time.Second, time.Second)
	got = append(got, meter.latency(now.Add(3*time.Second)))
	// A busy time, then a pause without readings: the next reading is a
	// baseline, not the busy time's pace; the one after it is the pace
	// since.
	observeRuntimeStart(6*time.Second, 2*time.Second)
	got = append(got, meter.latency(now.Add(3*time.Second+runtimeStartStale+ms)))
	observeRuntimeStart(500*ms, 250*ms)
	got = append(got, meter.latency(now.Add(4*time.Second+runtimeStartStale+ms)))
	want := []time.Duration{0, 0, 200*ms + 40*ms, 240 * ms, 0, 4 * time.Second, 0, 750 * ms}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the runtime's pace (-want +got):\n%s", diff)
	}
}

// TestExtraRunsYieldToASaturatedRuntime checks that the extra runs of a
// waited-on sidecar space out to a quarter of the runtime's recent
// create-and-start latency: with containers taking 4 s to start, as with a
// hundred pods starting at once on two cores, the sidecar is checked about
// once a second instead of every 50 ms, and as often as before once the
// runtime is quick again. The yield stops at once a second: with 40 s a
// start (110 pods on a slower machine) the sidecar is still checked once a
// second, not left to its probe's period.
func TestExtraRunsYieldToASaturatedRuntime(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	metrics.NewKubeRegistry().Register(kubeletmetrics.RuntimeOperationsDuration)
	for _, tc := range []struct {
		name    string
		start   time.Duration // each container start the runtime makes meanwhile
		minRuns int
		maxRuns int
	}{
		// 2 s: the first run and an extra run every 50 ms (fewer as the
		// timers and the reading settle).
		{name: "a quick runtime", start: 100 * time.Millisecond, minRuns: 30, maxRuns: 41},
		{name: "a saturated runtime", start: 4 * time.Second, minRuns: 2, maxRuns: 4},
		{name: "a full node's runtime", start: 40 * time.Second, minRuns: 2, maxRuns: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				m := newTestManager()
				never := &scriptedProber{script: func(int, time.Time) probe.Result { return probe.Failure }}
				m.prober.http = never
				// Other pods' containers keep starting at the runtime's pace.
				starting := keepStartingContainers(ctx, tc.start*3/4, tc.start/4)
				// The meter's first reading is a baseline.
				m.runtimeStart.latency(time.Now())
				time.Sleep(time.Second)
				pod := waitedOnPod(t, m, "pod", time.Now(), 1, 3)
				w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
				go w.run(ctx)
				time.Sleep(2*time.Second - time.Millisecond)
				if runs := never.count(); runs < tc.minRuns || runs > tc.maxRuns {
					t.Errorf("%d probe runs in 2 s, want %d to %d", runs, tc.minRuns, tc.maxRuns)
				}
				w.stop()
				cancel()
				<-starting
			})
		})
	}
}

// TestExtraRunsAfterABusyPause checks that a pause after a busy time does
// not make the next sidecar's checks yield to the busy time's pace: the
// runtime took 4 s a container start while a hundred pods started, then
// nothing was waited on for a minute, and now containers start quickly
// again. The new sidecar is checked every 50 ms from its start, as on a
// node that was never busy (make bench's ten pods after a run of 110 got
// almost no extra checks while the meter averaged the busy minute).
func TestExtraRunsAfterABusyPause(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	metrics.NewKubeRegistry().Register(kubeletmetrics.RuntimeOperationsDuration)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := newTestManager()
		never := &scriptedProber{script: func(int, time.Time) probe.Result { return probe.Failure }}
		m.prober.http = never
		// The busy time, read while sidecars were waited on then.
		m.runtimeStart.latency(time.Now())
		for i := 0; i < 100; i++ {
			observeRuntimeStart(3*time.Second, time.Second)
		}
		time.Sleep(time.Second)
		if got := m.runtimeStart.latency(time.Now()); got != 4*time.Second {
			t.Fatalf("the busy time's pace: %v, want 4s", got)
		}
		// The busy time goes on a while after that reading, and a minute
		// passes with no sidecar waited on.
		for i := 0; i < 100; i++ {
			observeRuntimeStart(3*time.Second, time.Second)
		}
		time.Sleep(time.Minute)
		// Now the runtime is quick again.
		starting := keepStartingContainers(ctx, 75*time.Millisecond, 25*time.Millisecond)
		pod := waitedOnPod(t, m, "pod", time.Now(), 1, 3)
		w := newWorker(m, readiness, pod, pod.Spec.Containers[0])
		go w.run(ctx)
		time.Sleep(2*time.Second - time.Millisecond)
		// As "a quick runtime" of TestExtraRunsYieldToASaturatedRuntime.
		if runs := never.count(); runs < 30 || runs > 41 {
			t.Errorf("%d probe runs in the sidecar's first 2 s, want 30 to 41", runs)
		}
		w.stop()
		cancel()
		<-starting
	})
}
