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
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
)

// ProbeKind is a kind of probe whose success other containers may wait on.
type ProbeKind int

const (
	// ReadinessProbe is a container's readiness probe.
	ReadinessProbe ProbeKind = iota
	// StartupProbe is a container's startup probe.
	StartupProbe
)

const (
	// WaitedOnProbeInterval is how often the kubelet runs a readiness probe
	// that other containers wait on, besides its own period, until the
	// container's first readiness: the apps start within this of the
	// sidecar becoming ready, whatever the probe's periodSeconds (SPEC rule
	// 3).
	WaitedOnProbeInterval = 50 * time.Millisecond
	// WaitedOnProbeWindow bounds the extra runs of a container that never
	// turns ready: they happen only in the first WaitedOnProbeWindow of its
	// life, at most WaitedOnProbeWindow / WaitedOnProbeInterval of them.
	WaitedOnProbeWindow = time.Minute
	// ExtraProbeRunsPerSecond bounds the extra runs of every probe on the
	// node together, and ExtraProbeRunsBurst how many may come at once. An
	// extra run is a connection to the sidecar, so a node reboot that finds
	// every sidecar waited on must not open 20 of them a second per sidecar:
	// 200 a second keep every waiting sidecar probed 20 times a second up to
	// 10 at once, and 4 times a second (a quarter of a second apart, rule
	// 3's promise) up to 50; beyond that the extra runs thin out towards the
	// probes' own periods. The kubelet counts the runs it makes and those
	// the bound holds back (ExtraProbeRuns).
	ExtraProbeRunsPerSecond = 200
	ExtraProbeRunsBurst     = 20
)

// WaitedOn reports whether other containers of the pod wait for this probe
// of container c to succeed before they start, so that the kubelet runs it
// between its periodic runs too, until the container is first ready. That
// is a sidecar's readiness probe, for annotated sidecars, and for native
// sidecars under wait-ready.
//
// Every run counts, extra or periodic: successThreshold and
// failureThreshold count consecutive results of all runs, so an extra run
// never changes what the probe means. Hence the exceptions: exec probes
// keep their period (each run starts a process in the container), and
// startup probes are not run more often, since their failureThreshold
// gives the container failureThreshold × periodSeconds to start, and extra
// runs would shorten that. A sidecar that a startup probe alone readies is
// seen at that probe's period. Native sidecars without wait-ready keep
// upstream's probes exactly, and so does a pod without annotations (the
// zero Layout).
func (l Layout) WaitedOn(pod *v1.Pod, c *v1.Container, kind ProbeKind) bool {
	if pod == nil || c == nil || kind != ReadinessProbe {
		return false
	}
	if probe := c.ReadinessProbe; probe == nil || probe.Exec != nil {
		return false
	}
	if l.IsSidecar(c.Name) {
		return slices.ContainsFunc(pod.Spec.Containers, func(app v1.Container) bool { return app.Name == c.Name })
	}
	return l.WaitReady && slices.ContainsFunc(pod.Spec.InitContainers, func(init v1.Container) bool {
		return init.Name == c.Name && isNativeSidecar(&init)
	})
}
