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
	"maps"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

const (
	// SidecarsAnnotation names the entries of spec.containers that are
	// sidecars, comma-separated, in start order.
	SidecarsAnnotation = "sidecar-kubelet.io/sidecars"
	// WaitReadyAnnotation, when "true", asks that native sidecars (init
	// containers with restartPolicy Always) be ready, not only started,
	// before the next container starts.
	WaitReadyAnnotation = "sidecar-kubelet.io/wait-ready"
)

// layoutAnnotations are the annotations a Layout is read from.
var layoutAnnotations = [...]string{SidecarsAnnotation, WaitReadyAnnotation}

// Layout is the arrangement of a pod's containers around its sidecars, as
// the pod's annotations ask for it. The zero Layout is upstream behaviour.
type Layout struct {
	// Sidecars are the names of the annotated sidecars, entries of
	// spec.containers, in start order. Every other entry is an app container.
	Sidecars []string
	// WaitReady holds each container behind the readiness, not only the
	// start, of the native sidecars before it.
	WaitReady bool
}

// HasSidecars reports whether the pod has annotated sidecars.
func (l Layout) HasSidecars() bool { return len(l.Sidecars) > 0 }

// StartWaitsOnProbes reports whether a container of the pod may wait for
// another's probe to succeed before it starts: the app containers wait for
// the annotated sidecars, and with wait-ready each container waits for the
// readiness of the native sidecars before it. Upstream waits on probes only
// for native sidecars' startup probes, and a zero Layout keeps that as is.
// Every ordering the annotations ask for is a wait on probes.
func (l Layout) StartWaitsOnProbes() bool { return l.Ordered() }

// Ordered reports whether the annotations order the pod's containers at all:
// annotated sidecars, or wait-ready. The kubelet then also takes the fast
// paths that exist for such pods (a relist of the pod at once where upstream
// waits for the next periodic one); a pod that is not Ordered runs exactly as
// upstream.
func (l Layout) Ordered() bool { return l.HasSidecars() || l.WaitReady }

// IsSidecar reports whether the entry of spec.containers with this name is
// an annotated sidecar.
func (l Layout) IsSidecar(name string) bool { return slices.Contains(l.Sidecars, name) }

// AnnotationError says what is wrong with a pod's sidecar annotations. The
// pod then runs with upstream behaviour.
type AnnotationError struct {
	// Problems are the findings, each a sentence naming the annotation.
	Problems []string
}

func (e *AnnotationError) Error() string { return strings.Join(e.Problems, "; ") }

// ParseAnnotations reads the sidecar layout a pod asks for. A pod without
// the annotations gets the zero Layout at the cost of two map lookups. A
// malformed annotation gives the zero Layout and an *AnnotationError that
// names every problem found.
func ParseAnnotations(pod *v1.Pod) (Layout, error) {
	if pod == nil || len(pod.Annotations) == 0 {
		return Layout{}, nil
	}
	sidecarsValue, hasSidecars := pod.Annotations[SidecarsAnnotation]
	waitReadyValue, hasWaitReady := pod.Annotations[WaitReadyAnnotation]
	if !hasSidecars && !hasWaitReady {
		return Layout{}, nil
	}

	var layout Layout
	var problems []string
	if hasSidecars {
		var p []string
		layout.Sidecars, p = parseSidecars(pod, sidecarsValue)
		problems = append(problems, p...)
	}
	if hasWaitReady {
		waitReady, err := strconv.ParseBool(strings.TrimSpace(waitReadyValue))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s=%q: not a boolean, want \"true\" or \"false\"", WaitReadyAnnotation, waitReadyValue))
		}
		layout.WaitReady = waitReady
	}
	if len(problems) > 0 {
		return Layout{}, &AnnotationError{Problems: problems}
	}
	return layout, nil
}

func parseSidecars(pod *v1.Pod, value string) ([]string, []string) {
	var problems []string
	problem := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s=%q: ", SidecarsAnnotation, value)+fmt.Sprintf(format, args...))
	}

	if strings.TrimSpace(value) == "" {
		problem("names no container")
		return nil, problems
	}
	var names []string
	for i, item := range strings.Split(value, ",") {
		name := strings.TrimSpace(item)
		switch {
		case name == "":
			problem("item %d is empty", i+1)
		case slices.Contains(names, name):
			problem("%q is listed twice", name)
		case hasContainer(pod.Spec.Containers, name):
			names = append(names, name)
		case hasContainer(pod.Spec.InitContainers, name):
			problem("%q is an init container; native sidecars are declared with restartPolicy: Always, not with this annotation", name)
		default:
			problem("%q is not a container of the pod", name)
		}
	}
	if len(names) > 0 && len(names) == len(pod.Spec.Containers) {
		problem("names every container; at least one app container must remain")
	}
	return names, problems
}

func hasContainer(containers []v1.Container, name string) bool {
	return slices.ContainsFunc(containers, func(c v1.Container) bool { return c.Name == name })
}

// LayoutFor returns the layout the pod asks for while the kubelet's feature
// gate is on, and the zero Layout (upstream behaviour) when it is off or the
// pod has no sidecar annotations; a malformed annotation gives the zero
// Layout and its *AnnotationError. gateOn is asked only for pods that carry
// the annotations, so a pod without them costs two map lookups.
func LayoutFor(pod *v1.Pod, gateOn func() bool) (Layout, error) {
	if pod == nil || !hasAnnotations(pod) || !gateOn() {
		return Layout{}, nil
	}
	return ParseAnnotations(pod)
}

func hasAnnotations(pod *v1.Pod) bool {
	for _, key := range layoutAnnotations {
		if _, ok := pod.Annotations[key]; ok {
			return true
		}
	}
	return false
}

// StartedWith returns the pod as the kubelet runs it: carrying the sidecar
// annotations that its sandbox was created with, which the container
// runtime keeps with the sandbox, rather than those it carries now. Which
// containers are sidecars, and wait-ready, are fixed for a running pod
// (SPEC rule 19): a later change of the annotations changes nothing, and a
// restarted kubelet reads the same values from the runtime. A pod without a
// sandbox yet (hasSandbox false) is returned as it is.
//
// changed reports that the pod's annotations differ from the started ones;
// the returned pod is then a shallow copy with its own annotations, and pod
// itself is never modified. A pod without sidecar annotations, now or when
// it started, costs four map lookups.
func StartedWith(pod *v1.Pod, sandboxAnnotations map[string]string, hasSandbox bool) (started *v1.Pod, changed bool) {
	if pod == nil || !hasSandbox {
		return pod, false
	}
	for _, key := range layoutAnnotations {
		now, inPod := pod.Annotations[key]
		then, inSandbox := sandboxAnnotations[key]
		changed = changed || inPod != inSandbox || now != then
	}
	if !changed {
		return pod, false
	}
	copied := *pod
	copied.Annotations = maps.Clone(pod.Annotations)
	if copied.Annotations == nil {
		copied.Annotations = map[string]string{}
	}
	for _, key := range layoutAnnotations {
		if then, inSandbox := sandboxAnnotations[key]; inSandbox {
			copied.Annotations[key] = then
		} else {
			delete(copied.Annotations, key)
		}
	}
	return &copied, true
}

// DescribeChange says how the pod's sidecar annotations differ from those
// it started with, for the SidecarAnnotationChanged event: each changed
// annotation with its value then and now.
func DescribeChange(started, now *v1.Pod) string {
	var parts []string
	for _, key := range layoutAnnotations {
		then, hadIt := started.Annotations[key]
		value, hasIt := now.Annotations[key]
		switch {
		case hadIt == hasIt && then == value:
		case !hadIt:
			parts = append(parts, fmt.Sprintf("%s=%q added", key, value))
		case !hasIt:
			parts = append(parts, fmt.Sprintf("%s=%q removed", key, then))
		default:
			parts = append(parts, fmt.Sprintf("%s changed from %q to %q", key, then, value))
		}
	}
	return strings.Join(parts, ", ")
}
