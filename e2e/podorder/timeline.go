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

package podorder

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// The labels of what a timeline's entries say happened to a container.
// The test server logs each as "<RFC3339Nano> name=<container>
// event=<label>"; its hooks log "hook-start" and "hook-end", which a
// timeline labels "<hook name>:hook-start" and "<hook name>:hook-end"
// (HookStart, HookEnd). The container statuses give EventStarted and
// EventExiting for any image; the kubelet's events and the pod's
// conditions have labels of their own (KubeletEvent, ConditionTransition).
const (
	// EventStarted: the container's process started.
	EventStarted = "started"
	// EventReady: the test server turned ready (its READY_AFTER passed);
	// the kubelet learns of it at the next probe (EventReadyServed).
	EventReady = "ready"
	// EventReadyServed: the first readiness probe the test server answered
	// 200, that is when the kubelet's probe succeeded.
	EventReadyServed = "ready-served"
	// EventNotReady: the test server turned not ready (NOT_READY_AFTER).
	EventNotReady = "not-ready"
	// EventSIGTERM: the container received SIGTERM.
	EventSIGTERM = "sigterm"
	// EventExiting: the container's process exits (the test server logs it
	// last); from the container status, its finishedAt.
	EventExiting = "exiting"
)

// HookStart is the label of the start of a test server hook (`testserver
// hook --name name`); PreStopHook's name is "prestop".
func HookStart(name string) string { return name + ":hook-start" }

// HookEnd is the label of the end of a test server hook.
func HookEnd(name string) string { return name + ":hook-end" }

// KubeletEvent is the label of the kubelet's events with the reason:
// "Created", "Started", "Killing" (the kubelet set out to stop the
// container: before its preStop hook, and where stopping is ordered,
// possibly before the container's turn), "Unhealthy", or sidecar-kubelet's
// "SidecarsReady", "TerminatingSidecars", ... They say when the kubelet
// acted, not when the container did: a process starts before its Started
// event.
func KubeletEvent(reason string) string { return kubeletEventPrefix + reason }

// ConditionTransition is the label of the pod's condition turning to the
// status (its lastTransitionTime), an entry of WholePod.
func ConditionTransition(condition v1.PodConditionType, status v1.ConditionStatus) string {
	return conditionPrefix + string(condition) + "=" + string(status)
}

// The prefixes of the labels of the API's entries, beside EventStarted
// and EventExiting.
const (
	kubeletEventPrefix = "kubelet:"
	conditionPrefix    = "condition:"
)

// WholePod is the Container of the entries about the pod rather than one
// of its containers: its conditions, and the kubelet's events of the pod.
const WholePod = ""

// Source is where a timeline entry comes from. Every source is the node's
// clock: the kubelet's, the runtime's and the containers' are the same.
type Source string

const (
	// SourceTestServer: a line the test server (e2e/images/testserver)
	// logged, to the nanosecond: its start, readiness, signals, hooks and
	// exit. Only containers of the test image have them.
	SourceTestServer Source = "test server"
	// SourceStatus: a container status's startedAt or finishedAt, for any
	// image, to the second (the API keeps whole seconds); only the current
	// instance's and the previous one's (lastState).
	SourceStatus Source = "container status"
	// SourceCondition: the lastTransitionTime of one of the pod conditions
	// the kubelet sets (PodReadyToStartContainers, Initialized,
	// ContainersReady, Ready), to the second; only its last transition.
	SourceCondition Source = "pod condition"
	// SourceKubeletEvent: an event the kubelet recorded for the pod or one
	// of its containers (KubeletEvent), at the time it acted. Its
	// recorder, client-go's record package, writes firstTimestamp and
	// lastTimestamp, whole seconds, no eventTime, and names the event
	// "<pod>.<Unix nanoseconds, hex>" of its first occurrence: where that
	// time falls in firstTimestamp's second, it gives the first occurrence
	// to the nanosecond. Of a repeated event (count) the last occurrence
	// is to the second and those between are lost. The recorder also
	// combines a pod's events of a reason beyond ten with other messages
	// within ten minutes, and drops its events beyond a burst of 25 of a
	// type (then one in five minutes); the API server deletes events after
	// its --event-ttl (an hour by default). So an event may be missing;
	// the times of those there hold. An eventTime or a series, as an
	// events.k8s.io recorder writes them, is read to the microsecond.
	SourceKubeletEvent Source = "kubelet event"
)

// TimelineEntry is one moment of a container's (or the pod's) life in a
// Timeline.
type TimelineEntry struct {
	At time.Time
	// Container is the container's name, or WholePod.
	Container string
	// Label is what happened: one of the Event constants, another line of
	// the test server ("crashing", "draining", ...), "<hook>:<event>" for
	// a hook's lines (HookStart, HookEnd), KubeletEvent(reason), or
	// ConditionTransition(condition, status).
	Label  string
	Source Source
	// Line is the test server's line, or for the API's entries the field
	// the time comes from (and an event's message).
	Line string
	// Resolution is how precise At is: 0 for nanoseconds (the test
	// server's lines, an event's name), time.Microsecond for an event's
	// eventTime, time.Second for the API's other times, which it truncates
	// to the second. An order is only taken as shown when the times prove
	// it: see NotAfter.
	Resolution time.Duration
}

// Timeline is the entries of a pod and its containers, in time order.
type Timeline []TimelineEntry

// ParseLogs reads the test server's lines from one container's log, in
// time order; other lines are skipped.
func ParseLogs(container, logs string) Timeline {
	var tl Timeline
	for _, line := range strings.Split(logs, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[1], "name=") || !strings.HasPrefix(f[2], "event=") {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil {
			continue
		}
		label := strings.TrimPrefix(f[2], "event=")
		if strings.HasPrefix(label, "hook-") {
			label = strings.TrimPrefix(f[1], "name=") + ":" + label
		}
		tl = append(tl, TimelineEntry{At: at, Container: container, Label: label, Source: SourceTestServer, Line: line})
	}
	return tl.sorted()
}

// Merge is the entries of the timelines, in time order.
func Merge(tls ...Timeline) Timeline {
	var tl Timeline
	for _, t := range tls {
		tl = append(tl, t...)
	}
	return tl.sorted()
}

// Refine is tl with finer's entries in place of tl's of the same container
// and label: a container's test server lines (LogTimeline) refine what the
// API says of it (PodTimeline) from the second to the nanosecond, and
// leave what the lines do not give.
func Refine(tl, finer Timeline) Timeline {
	type key struct{ container, label string }
	refined := map[key]bool{}
	for _, e := range finer {
		refined[key{e.Container, e.Label}] = true
	}
	kept := slices.DeleteFunc(slices.Clone(tl), func(e TimelineEntry) bool { return refined[key{e.Container, e.Label}] })
	return Merge(kept, finer)
}

func (tl Timeline) sorted() Timeline {
	sort.SliceStable(tl, func(i, j int) bool { return tl[i].At.Before(tl[j].At) })
	return tl
}

// String is the timeline a line an entry: time (to the microsecond, or
// to the second where that is all the source gives), container, label,
// and for the API's entries where the time comes from.
func (tl Timeline) String() string {
	var b strings.Builder
	for _, e := range tl {
		at := e.At.UTC().Format("15:04:05.000000")
		if e.Resolution >= time.Second {
			at = e.At.UTC().Format("15:04:05") + "       "
		}
		container := e.Container
		if container == WholePod {
			container = "(pod)"
		}
		label := e.Label
		if e.Source != SourceTestServer {
			label += " (" + e.Line + ")"
		}
		fmt.Fprintf(&b, "%s  %-10s %s\n", at, container, label)
	}
	return b.String()
}

// All is the entries of the container with the label, in time order.
func (tl Timeline) All(container, label string) []TimelineEntry {
	var out []TimelineEntry
	for _, e := range tl {
		if e.Container == container && e.Label == label {
			out = append(out, e)
		}
	}
	return out
}

// Point names an entry of a timeline: the first (or last) entry of a
// container with a label.
type Point struct {
	Container, Label string
	Last             bool
}

// First is the container's first entry with the label.
func First(container, label string) Point { return Point{container, label, false} }

// Last is the container's last entry with the label.
func Last(container, label string) Point { return Point{container, label, true} }

func (p Point) String() string {
	which := "first"
	if p.Last {
		which = "last"
	}
	container := p.Container
	if container == WholePod {
		container = "(pod)"
	}
	return fmt.Sprintf("%s %s %q", container, which, p.Label)
}

// Entry is the entry the point names, if the timeline has it.
func (tl Timeline) Entry(p Point) (TimelineEntry, bool) {
	entries := tl.All(p.Container, p.Label)
	if len(entries) == 0 {
		return TimelineEntry{}, false
	}
	if p.Last {
		return entries[len(entries)-1], true
	}
	return entries[0], true
}

// At is when the point happened, if the timeline has it.
func (tl Timeline) At(p Point) (time.Time, bool) {
	e, ok := tl.Entry(p)
	return e.At, ok
}

// NotAfter tells whether the times prove that a happened at or before b:
// a's time plus its resolution is at or before b's time. Between two log
// lines that is a <= b; between two times of the API, both truncated to
// the second, a's second before b's: the same second cannot tell.
func NotAfter(a, b TimelineEntry) bool {
	return !a.At.Add(a.Resolution).After(b.At)
}

// Before tells whether the times prove that a happened strictly before b.
func Before(a, b TimelineEntry) bool {
	if a.Resolution == 0 && b.Resolution == 0 {
		return a.At.Before(b.At)
	}
	return NotAfter(a, b)
}

// MissingError says that a timeline lacks an entry a check needs.
type MissingError struct {
	Point    Point
	Timeline Timeline
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("no %s in the timeline", e.Point)
	if !fromAPI(e.Point.Label) && !slices.ContainsFunc(e.Timeline, func(te TimelineEntry) bool {
		return te.Container == e.Point.Container && te.Source == SourceTestServer
	}) {
		msg += fmt.Sprintf(" (only the test server's lines give %q, and the timeline has none of %s: is it a container of the test image, and were its logs read?)", e.Point.Label, e.Point.Container)
	}
	return msg + "\ntimeline seen:\n" + e.Timeline.String()
}

// fromAPI tells whether the API gives entries with the label, whatever the
// image.
func fromAPI(label string) bool {
	return label == EventStarted || label == EventExiting ||
		strings.HasPrefix(label, kubeletEventPrefix) || strings.HasPrefix(label, conditionPrefix)
}

// MustEntry is the entry the point names, or a *MissingError.
func (tl Timeline) MustEntry(p Point) (TimelineEntry, error) {
	e, ok := tl.Entry(p)
	if !ok {
		return TimelineEntry{}, &MissingError{Point: p, Timeline: tl}
	}
	return e, nil
}
