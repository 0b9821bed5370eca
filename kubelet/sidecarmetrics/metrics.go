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

// Package sidecarmetrics holds the kubelet's metrics of sidecar ordering,
// registered in the kubelet's own registry (pkg/kubelet/metrics.Register).
package sidecarmetrics

import (
	"k8s.io/component-base/metrics"
)

var (
	// AppStartWaitDuration is how long app containers waited for their
	// sidecars: from the first sidecar's start to the app containers' start;
	// behind native sidecars under wait-ready, from the first gating one's
	// start to the start of the container after the last one.
	AppStartWaitDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "kubelet",
		Name:           "sidecar_app_start_wait_duration_seconds",
		Help:           "Time containers waited for the sidecars before them to be ready (annotated sidecars, or native sidecars under wait-ready), from the first such sidecar's start to the start of the containers after them.",
		Buckets:        metrics.ExponentialBuckets(0.05, 2, 14),
		StabilityLevel: metrics.ALPHA,
	})
	// TerminationDuration is how long the sidecars took to stop once the app
	// containers had exited.
	TerminationDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Subsystem:      "kubelet",
		Name:           "sidecar_termination_duration_seconds",
		Help:           "Time from the last app container's exit (or, for a completed pod, from the start of its termination) to every sidecar being stopped.",
		Buckets:        metrics.ExponentialBuckets(0.05, 2, 14),
		StabilityLevel: metrics.ALPHA,
	})

	// ExtraProbeRuns counts the extra runs of waited-on readiness probes,
	// by outcome: "run", or "limited" when the node-wide bound
	// (the prober's extraProbeRunsPerSecond) held one back.
	ExtraProbeRuns = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      "kubelet",
		Name:           "sidecar_extra_probe_runs_total",
		Help:           "Extra runs of readiness probes that other containers wait on, by outcome: run, or limited by the node-wide bound.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"outcome"})
)

// Outcomes of an extra probe run (ExtraProbeRuns).
const (
	ExtraProbeRunOutcomeRun     = "run"
	ExtraProbeRunOutcomeLimited = "limited"
)
