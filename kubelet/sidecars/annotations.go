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
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// layoutAnnotations are the annotations a Layout is read from.
var layoutAnnotations = [...]string{SidecarsAnnotation, WaitReadyAnnotation}

const (
	// maxProblems is how many problems an annotationError lists; it counts
	// the others. Every problem quotes at most maxQuoted bytes of the value,
	// so an error's text is bounded whatever the value's length.
	maxProblems = 8
	// maxQuoted is how much of a value, or of one item of it, a problem
	// quotes: more than a container name (at most 63 bytes) can be.
	maxQuoted = 64
	// maxWaitReadyLen is the longest wait-ready value read as a boolean:
	// strconv.ParseBool's longest word with room for spaces around it.
	maxWaitReadyLen = 32
)

// Layout is the arrangement of a pod's containers around its sidecars, as
// the pod's annotations ask for it. The zero Layout is upstream behaviour.
type Layout struct {
	// Sidecars are the names of the annotated sidecars, entries of
	// spec.containers, in start order. Every other entry is an app container.
	Sidecars []string
	// WaitReady holds each container behind the readiness, not only the
	// start, of every native sidecar before it (wait-ready: "true").
	WaitReady bool
	// WaitReadyFor names the native sidecars that hold the next container
	// until they are ready, in the pod's order of init containers (the
	// named form of wait-ready); the other native sidecars keep upstream's
	// gate, their start. Empty when WaitReady holds them all.
	WaitReadyFor []string
}

// HasSidecars reports whether the pod has annotated sidecars.
func (l Layout) HasSidecars() bool { return len(l.Sidecars) > 0 }

// Ordered reports whether the annotations order the pod's containers at all:
// annotated sidecars, or wait-ready. The kubelet then also takes the fast
// paths that exist for such pods (a relist of the pod at once where upstream
// waits for the next periodic one); a pod that is not Ordered runs exactly as
// upstream.
func (l Layout) Ordered() bool { return l.HasSidecars() || l.WaitReady || len(l.WaitReadyFor) > 0 }

// GatesOnReady reports whether the native sidecar with this name holds the
// next container until it is ready, not only until it has started: under
// wait-ready "true", or when wait-ready names it. The caller knows name to
// be a native sidecar of the pod (WaitsOnReadiness and HoldsOthers check
// it); the zero Layout gates none, as upstream. A pod has a handful of
// native sidecars, so a scan is cheaper than a set.
func (l Layout) GatesOnReady(name string) bool {
	if l.WaitReady {
		return true
	}
	for _, s := range l.WaitReadyFor {
		if s == name {
			return true
		}
	}
	return false
}

// IsSidecar reports whether the entry of spec.containers with this name is
// an annotated sidecar. A pod has a handful of sidecars, so a scan is
// cheaper than a set.
func (l Layout) IsSidecar(name string) bool {
	for _, s := range l.Sidecars {
		if s == name {
			return true
		}
	}
	return false
}

// annotationError says what is wrong with a pod's sidecar annotations. The
// pod then runs with upstream behaviour.
type annotationError struct {
	// Problems are the first findings (at most maxProblems), each a
	// sentence that starts with the annotation's name and quotes only its
	// own item.
	Problems []string
	// More counts the findings beyond Problems.
	More int
}

func (e *annotationError) Error() string {
	text := strings.Join(e.Problems, "; ")
	if e.More > 0 {
		text += fmt.Sprintf("; and %d more", e.More)
	}
	return text
}

func (e *annotationError) add(annotation, format string, args ...any) {
	if len(e.Problems) == maxProblems {
		e.More++
		return
	}
	e.Problems = append(e.Problems, annotation+": "+fmt.Sprintf(format, args...))
}

// quote quotes s for a problem or an event, cut to maxQuoted bytes.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + fmt.Sprintf("... (%d bytes)", len(s))
}

// Decision is the sidecar layout a pod runs with. The kubelet decides it
// from the annotations the pod's sandbox is created with, which a new
// sandbox of the pod inherits, so it is the same for the pod's life
// (contract rule 19).
type Decision struct {
	// Layout is the layout decided; the zero Layout when Err is set.
	Layout Layout
	// Err is the *annotationError of malformed annotations: the pod runs
	// with upstream behaviour, and the kubelet says why once.
	Err error
	// Annotations are the sidecar annotations decided from, and only they:
	// a new sandbox of the pod is created with them, so that a restarted
	// kubelet decides the same from it.
	Annotations map[string]string
}

// HasAnnotations reports whether annotations hold a sidecar annotation. A
// pod without them costs two map lookups.
func HasAnnotations(annotations map[string]string) bool {
	for _, key := range layoutAnnotations {
		if _, ok := annotations[key]; ok {
			return true
		}
	}
	return false
}

// Decide decides the layout of pod from its sidecar annotations as
// annotations holds them: the pod's own for its first sandbox, or those its
// sandbox was created with. Its cost is linear in the length of the values:
// a sidecars value, or a wait-ready list of names, longer than any valid
// one for the pod can be is refused before it is split, container names
// are looked up in sets, and an error quotes at most maxProblems items of
// maxQuoted bytes each.
func Decide(pod *v1.Pod, annotations map[string]string) Decision {
	if pod == nil || !HasAnnotations(annotations) {
		return Decision{}
	}
	d := Decision{Annotations: map[string]string{}}
	var problems annotationError
	if value, ok := annotations[SidecarsAnnotation]; ok {
		d.Annotations[SidecarsAnnotation] = value
		d.Layout.Sidecars = parseSidecars(&pod.Spec, value, &problems)
	}
	if value, ok := annotations[WaitReadyAnnotation]; ok {
		d.Annotations[WaitReadyAnnotation] = value
		d.Layout.WaitReady, d.Layout.WaitReadyFor = parseWaitReady(&pod.Spec, value, &problems)
	}
	if len(problems.Problems) > 0 {
		d.Layout, d.Err = Layout{}, &problems
	}
	return d
}

// maxSidecarsLen is the longest sidecars value that can be valid for the
// pod: each of its containers' names once, each with a comma and a space
// on either side.
func maxSidecarsLen(spec *v1.PodSpec) int {
	n := 0
	for i := range spec.Containers {
		n += len(spec.Containers[i].Name) + 3
	}
	return n
}

func parseSidecars(spec *v1.PodSpec, value string, problems *annotationError) []string {
	if limit := maxSidecarsLen(spec); len(value) > limit {
		problems.add(SidecarsAnnotation, "%d bytes, longer than any valid value for this pod (%d: each container's name once, with a comma and a space on either side)", len(value), limit)
		return nil
	}
	if strings.TrimSpace(value) == "" {
		problems.add(SidecarsAnnotation, "names no container")
		return nil
	}
	containers := make(map[string]bool, len(spec.Containers))
	for i := range spec.Containers {
		containers[spec.Containers[i].Name] = true
	}
	initContainers := make(map[string]bool, len(spec.InitContainers))
	for i := range spec.InitContainers {
		initContainers[spec.InitContainers[i].Name] = true
	}
	var names []string
	listed := map[string]bool{}
	item := 0
	for rest := value; ; {
		item++
		raw, after, more := strings.Cut(rest, ",")
		switch name := strings.TrimSpace(raw); {
		case name == "":
			problems.add(SidecarsAnnotation, "item %d is empty", item)
		case listed[name]:
			problems.add(SidecarsAnnotation, "%s is listed twice", quote(name))
		case containers[name]:
			listed[name] = true
			names = append(names, name)
		case initContainers[name]:
			problems.add(SidecarsAnnotation, "%s is an init container; native sidecars are declared with restartPolicy: Always, not with this annotation", quote(name))
		default:
			problems.add(SidecarsAnnotation, "%s is not a container of the pod", quote(name))
		}
		if !more {
			break
		}
		rest = after
	}
	if len(names) > 0 && len(names) == len(spec.Containers) {
		problems.add(SidecarsAnnotation, "names every container; at least one app container must remain")
	}
	return names
}

// maxWaitReadyNamesLen is the longest wait-ready value that can name the
// pod's native sidecars validly: each native sidecar's name once, with a
// comma and a space on either side.
func maxWaitReadyNamesLen(spec *v1.PodSpec) int {
	n := 0
	for i := range spec.InitContainers {
		if isNativeSidecar(&spec.InitContainers[i]) {
			n += len(spec.InitContainers[i].Name) + 3
		}
	}
	return n
}

// parseWaitReady reads wait-ready: a boolean as strconv.ParseBool reads it
// (every native sidecar gates on readiness, or none), or the names of the
// native sidecars that do, comma-separated. The boolean wins: a native
// sidecar named "true", "t" or "1" is gated by the value "true" with the
// others; one named "false", "f" or "0" is named with another or not at
// all. A value without a comma is one name, looked up once whatever its
// length; a list longer than any valid one for the pod is refused before
// it is split; the names are looked up in sets.
func parseWaitReady(spec *v1.PodSpec, value string, problems *annotationError) (all bool, names []string) {
	if len(value) <= maxWaitReadyLen {
		if waitReady, err := strconv.ParseBool(strings.TrimSpace(value)); err == nil {
			return waitReady, nil
		}
	}
	list := strings.Contains(value, ",")
	if limit := max(maxWaitReadyLen, maxWaitReadyNamesLen(spec)); list && len(value) > limit {
		problems.add(WaitReadyAnnotation, "%d bytes, longer than any valid value for this pod (%d: \"true\", \"false\", or each native sidecar's name once, with a comma and a space on either side)", len(value), limit)
		return false, nil
	}
	kinds := make(map[string]containerKind, len(spec.InitContainers)+len(spec.Containers))
	for i := range spec.Containers {
		kinds[spec.Containers[i].Name] = regularContainer
	}
	for i := range spec.InitContainers {
		if isNativeSidecar(&spec.InitContainers[i]) {
			kinds[spec.InitContainers[i].Name] = nativeSidecar
		} else {
			kinds[spec.InitContainers[i].Name] = plainInitContainer
		}
	}
	listed := map[string]bool{}
	item := 0
	for rest := value; ; {
		item++
		raw, after, more := strings.Cut(rest, ",")
		switch name := strings.TrimSpace(raw); {
		case name == "" && !list:
			problems.add(WaitReadyAnnotation, "%s is not a boolean, nor a native sidecar of the pod; want \"true\", \"false\" or names of native sidecars", quote(value))
		case name == "":
			problems.add(WaitReadyAnnotation, "item %d is empty", item)
		case listed[name]:
			problems.add(WaitReadyAnnotation, "%s is listed twice", quote(name))
		case kinds[name] == nativeSidecar:
			listed[name] = true
			names = append(names, name)
		case kinds[name] == plainInitContainer:
			problems.add(WaitReadyAnnotation, "%s is an init container without restartPolicy: Always; only native sidecars wait to be ready", quote(name))
		case kinds[name] == regularContainer:
			problems.add(WaitReadyAnnotation, "%s is an entry of spec.containers; only native sidecars are named here (annotated sidecars always wait to be ready)", quote(name))
		case !list:
			problems.add(WaitReadyAnnotation, "%s is not a boolean, nor a native sidecar of the pod; want \"true\", \"false\" or names of native sidecars", quote(value))
		default:
			problems.add(WaitReadyAnnotation, "%s is not a native sidecar of the pod", quote(name))
		}
		if !more {
			break
		}
		rest = after
	}
	// In the pod's order of init containers, the order they start in.
	if len(names) > 1 {
		ordered := names[:0:0]
		for i := range spec.InitContainers {
			if listed[spec.InitContainers[i].Name] {
				ordered = append(ordered, spec.InitContainers[i].Name)
			}
		}
		names = ordered
	}
	return false, names
}

// containerKind is what a wait-ready item names.
type containerKind int

const (
	notAContainer containerKind = iota
	nativeSidecar
	plainInitContainer
	regularContainer
)

// ChangeIn says how the sidecar annotations in now differ from those the
// decision was made from, for the SidecarAnnotationChanged event: each
// changed annotation with its value then and now, each value quoted to at
// most maxQuoted bytes. It is empty when nothing changed.
func (d Decision) ChangeIn(now map[string]string) string {
	var parts []string
	for _, key := range layoutAnnotations {
		then, hadIt := d.Annotations[key]
		value, hasIt := now[key]
		switch {
		case hadIt == hasIt && then == value:
		case !hadIt:
			parts = append(parts, fmt.Sprintf("%s=%s added", key, quote(value)))
		case !hasIt:
			parts = append(parts, fmt.Sprintf("%s=%s removed", key, quote(then)))
		default:
			parts = append(parts, fmt.Sprintf("%s changed from %s to %s", key, quote(then), quote(value)))
		}
	}
	return strings.Join(parts, ", ")
}

// Unchanged reports whether now holds the sidecar annotations the decision
// was made from: four map lookups and two string comparisons.
func (d Decision) Unchanged(now map[string]string) bool {
	return sameSidecarAnnotations(d.Annotations, now)
}

// sameSidecarAnnotations reports whether a and b hold the same sidecar
// annotations, with the same values; their other annotations do not count.
func sameSidecarAnnotations(a, b map[string]string) bool {
	for _, key := range layoutAnnotations {
		then, hadIt := a[key]
		value, hasIt := b[key]
		if hadIt != hasIt || then != value {
			return false
		}
	}
	return true
}

// PodAsDecided returns the pod carrying the sidecar annotations the decision
// was made from, as a new sandbox of the pod is to be created
// (PodWithSidecarAnnotationsOf).
func (d Decision) PodAsDecided(pod *v1.Pod) *v1.Pod {
	return PodWithSidecarAnnotationsOf(pod, d.Annotations)
}

// PodWithSidecarAnnotationsOf returns pod carrying the sidecar annotations
// that from holds, and none other: pod itself when it carries them already,
// else a shallow copy with its own annotations. pod is never modified. The
// values are copied as they are, not parsed: a caller that only hands the
// pod on pays four map lookups, not Decide's parse.
func PodWithSidecarAnnotationsOf(pod *v1.Pod, from map[string]string) *v1.Pod {
	if pod == nil || sameSidecarAnnotations(from, pod.Annotations) {
		return pod
	}
	copied := *pod
	copied.Annotations = maps.Clone(pod.Annotations)
	if copied.Annotations == nil {
		copied.Annotations = map[string]string{}
	}
	for _, key := range layoutAnnotations {
		if then, ok := from[key]; ok {
			copied.Annotations[key] = then
		} else {
			delete(copied.Annotations, key)
		}
	}
	return &copied
}
