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
	// WaitedOnProbeInterval is how often the kubelet runs a probe that other
	// containers wait on, besides its own period, until its first success:
	// the apps start within this of the sidecar becoming ready, whatever
	// the probe's periodSeconds (SPEC rule 3).
	WaitedOnProbeInterval = 50 * time.Millisecond
	// WaitedOnProbeWindow bounds the cost of those extra runs: they happen
	// only in the first WaitedOnProbeWindow of a container's life, at most
	// WaitedOnProbeWindow / WaitedOnProbeInterval of them per container.
	WaitedOnProbeWindow = time.Minute
)

// WaitedOn reports whether other containers of the pod wait for this probe
// of container c to succeed before they start, so that the kubelet runs it
// between its periodic runs too, until it first succeeds. That is the
// probe that decides whether a sidecar is ready (IsReady): its readiness
// probe, or its startup probe when it has none; for annotated sidecars,
// and for native sidecars under wait-ready.
//
// Exec probes keep their period: each run starts a process in the
// container. The extra runs only look for a success, so a failure among
// them counts for nothing, and a startup probe's failureThreshold keeps
// its meaning. Native sidecars without wait-ready keep upstream's probes
// exactly, and so does a pod without annotations (the zero Layout).
func (l Layout) WaitedOn(pod *v1.Pod, c *v1.Container, kind ProbeKind) bool {
	if pod == nil || c == nil {
		return false
	}
	var probe *v1.Probe
	switch {
	case kind == ReadinessProbe:
		probe = c.ReadinessProbe
	case kind == StartupProbe && c.ReadinessProbe == nil:
		probe = c.StartupProbe
	}
	if probe == nil || probe.Exec != nil {
		return false
	}
	if l.IsSidecar(c.Name) {
		return slices.ContainsFunc(pod.Spec.Containers, func(app v1.Container) bool { return app.Name == c.Name })
	}
	return l.WaitReady && slices.ContainsFunc(pod.Spec.InitContainers, func(init v1.Container) bool {
		return init.Name == c.Name && isNativeSidecar(&init)
	})
}
