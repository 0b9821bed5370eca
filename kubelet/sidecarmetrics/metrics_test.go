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

package sidecarmetrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

func TestMetrics(t *testing.T) {
	const (
		appStartWait = "kubelet_sidecar_app_start_wait_duration_seconds"
		termination  = "kubelet_sidecar_termination_duration_seconds"
		extraRuns    = "kubelet_sidecar_extra_probe_runs_total"
	)

	collectors := []metrics.Registerable{AppStartWaitDuration, TerminationDuration, ExtraProbeRuns}
	var names []string
	for _, m := range collectors {
		names = append(names, m.FQName())
	}
	if diff := cmp.Diff([]string{appStartWait, termination, extraRuns}, names); diff != "" {
		t.Errorf("metric names mismatch (-want +got):\n%s", diff)
	}

	registry := metrics.NewKubeRegistry()
	registry.MustRegister(collectors...)

	// The histograms are package globals: count relative to what earlier runs
	// (go test -count=N) observed.
	histograms := []struct {
		name      string
		histogram *metrics.Histogram
		value     float64
	}{
		{appStartWait, AppStartWaitDuration, 1.5},
		{termination, TerminationDuration, 0.2},
	}
	count := func(name string) uint64 {
		t.Helper()
		vec, err := testutil.GetHistogramVecFromGatherer(registry, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return vec.GetAggregatedSampleCount()
	}
	for _, h := range histograms {
		before := count(h.name)
		h.histogram.Observe(h.value)
		if after := count(h.name); after != before+1 {
			t.Errorf("%s: count went from %d to %d after one observation, want %d", h.name, before, after, before+1)
		}
	}

	families, err := registry.Gather()
	if err != nil {
		t.Fatalf("Gather() error: %v", err)
	}
	var gathered []string
	for _, family := range families {
		gathered = append(gathered, family.GetName())
		if got, want := family.GetType().String(), "HISTOGRAM"; got != want {
			t.Errorf("%s: type %s, want %s", family.GetName(), got, want)
		}
	}
	// Gather sorts the families by name.
	if diff := cmp.Diff([]string{appStartWait, termination}, gathered); diff != "" {
		t.Errorf("gathered metric families mismatch (-want +got):\n%s", diff)
	}
}
