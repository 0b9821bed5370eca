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

	v1 "k8s.io/api/core/v1"
)

// WaitsOnReadiness reports whether other containers of the pod wait for the
// readiness probe of container c to succeed before they start, so that the
// kubelet runs it between its periodic runs too, until the container is
// first ready. That is the readiness probe of an annotated sidecar, and of a
// native sidecar that gates on readiness (GatesOnReady: wait-ready "true",
// or wait-ready naming it).
//
// Every run counts, extra or periodic: successThreshold and
// failureThreshold count consecutive results of all runs, so an extra run
// never changes what the probe means. Exec probes are run more often too,
// though less often than the others, as each run starts a process in the
// container (ExtraCheckInterval). Native sidecars that do not gate keep
// upstream's probes exactly, and so does a pod without annotations (the
// zero Layout).
func (l Layout) WaitsOnReadiness(pod *v1.Pod, c *v1.Container) bool {
	return c != nil && c.ReadinessProbe != nil && l.waitsOn(pod, c)
}

// WaitsOnStartup reports whether other containers of the pod wait for the
// startup probe of container c to succeed: that of the same containers as
// WaitsOnReadiness. Without a readiness probe its success is the
// container's readiness (the contract's "Ready"); with one, the readiness
// probe runs only once it has succeeded. Its extra runs count only when
// they succeed (ExtraRunCounts): the failureThreshold of a startup probe
// gives the container failureThreshold × periodSeconds to start, which
// failed extra runs would shorten, and its successThreshold is always 1
// (API validation), so one success is what the periodic run would have
// found a period later.
func (l Layout) WaitsOnStartup(pod *v1.Pod, c *v1.Container) bool {
	return c != nil && c.StartupProbe != nil && l.waitsOn(pod, c)
}

// waitsOn reports whether other containers of the pod wait for container
// c: an annotated sidecar, or a native sidecar that gates on readiness.
func (l Layout) waitsOn(pod *v1.Pod, c *v1.Container) bool {
	if pod == nil {
		return false
	}
	if l.IsSidecar(c.Name) {
		return slices.ContainsFunc(pod.Spec.Containers, func(app v1.Container) bool { return app.Name == c.Name })
	}
	return l.GatesOnReady(c.Name) && slices.ContainsFunc(pod.Spec.InitContainers, func(init v1.Container) bool {
		return init.Name == c.Name && isNativeSidecar(&init)
	})
}

// HoldsOthers reports whether other containers of the pod wait for the
// container named name: an annotated sidecar, or a native sidecar that
// gates on readiness (GatesOnReady). Only such a container's probe success
// can release a waiting container, so only its success is worth an
// immediate relist of the pod;
// an app's readiness, a plain init container's and every container of a
// pod without annotations (the zero Layout) keep upstream's periodic relist.
func (l Layout) HoldsOthers(pod *v1.Pod, name string) bool {
	if l.IsSidecar(name) {
		return true
	}
	return l.GatesOnReady(name) && pod != nil && slices.ContainsFunc(pod.Spec.InitContainers, func(init v1.Container) bool {
		return init.Name == name && isNativeSidecar(&init)
	})
}

// GatedNativeSidecars lists the native sidecars of spec that hold the next
// container until they are ready (GatesOnReady), in the order they start:
// none for the zero Layout, or a nil spec.
func (l Layout) GatedNativeSidecars(spec *v1.PodSpec) []string {
	if spec == nil || (!l.WaitReady && len(l.WaitReadyFor) == 0) {
		return nil
	}
	var gated []string
	for i := range spec.InitContainers {
		if c := &spec.InitContainers[i]; isNativeSidecar(c) && l.GatesOnReady(c.Name) {
			gated = append(gated, c.Name)
		}
	}
	return gated
}

// isNativeSidecar reports whether an init container is a native sidecar
// (restartPolicy Always).
func isNativeSidecar(c *v1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways
}
