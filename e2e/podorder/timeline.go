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
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// The labels of what a timeline's entries say happened. The test server
// logs each as "<RFC3339Nano> name=<container> event=<label>"; its hooks
// log "hook-start" and "hook-end", which a timeline labels
// "<hook name>:hook-start" and "<hook name>:hook-end" (HookStart, HookEnd).
// StatusTimeline labels a container's startedAt EventStarted and its
// finishedAt EventExiting.
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
	// last); from the pod status, the container's finishedAt.
	EventExiting = "exiting"
)

// HookStart is the label of the start of a test server hook (`testserver
// hook --name name`); PreStopHook's name is "prestop".
func HookStart(name string) string { return name + ":hook-start" }

// HookEnd is the label of the end of a test server hook.
func HookEnd(name string) string { return name + ":hook-end" }

// TimelineEntry is one moment of a container's life in a Timeline.
type TimelineEntry struct {
	At        time.Time
	Container string
	// Label is what happened: one of the Event constants, another line of
	// the test server ("crashing", "draining", ...), or "<hook>:<event>" for
	// a hook's lines (HookStart, HookEnd).
	Label string
	// Line is the log line, or for an entry of the pod status the field it
	// comes from.
	Line string
	// Resolution is how precise At is: 0 for the test server's lines
	// (nanoseconds), time.Second for the pod status's times, which the API
	// truncates to the second. An order is only taken as shown when the
	// times prove it: see Timeline.NotAfter.
	Resolution time.Duration
}

// Timeline is the entries of a pod's containers, in time order.
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
		tl = append(tl, TimelineEntry{At: at, Container: container, Label: label, Line: line})
	}
	return tl.sorted()
}

// StatusTimeline is what the pod status says of its containers' lives, for
// any image: each container's startedAt (EventStarted) and finishedAt
// (EventExiting), of its current state and of its last termination, to the
// second (Resolution).
func StatusTimeline(p *v1.Pod) Timeline {
	var tl Timeline
	add := func(name, field string, t time.Time, label string) {
		if !t.IsZero() {
			tl = append(tl, TimelineEntry{At: t, Container: name, Label: label, Line: field, Resolution: time.Second})
		}
	}
	for _, st := range AllStatuses(p) {
		if t := st.LastTerminationState.Terminated; t != nil {
			add(st.Name, "lastState.terminated.startedAt", t.StartedAt.Time, EventStarted)
			add(st.Name, "lastState.terminated.finishedAt", t.FinishedAt.Time, EventExiting)
		}
		if r := st.State.Running; r != nil {
			add(st.Name, "state.running.startedAt", r.StartedAt.Time, EventStarted)
		}
		if t := st.State.Terminated; t != nil {
			add(st.Name, "state.terminated.startedAt", t.StartedAt.Time, EventStarted)
			add(st.Name, "state.terminated.finishedAt", t.FinishedAt.Time, EventExiting)
		}
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

func (tl Timeline) sorted() Timeline {
	sort.SliceStable(tl, func(i, j int) bool { return tl[i].At.Before(tl[j].At) })
	return tl
}

// String is the timeline a line an entry: time, container, label; times of
// the pod status (to the second) are marked so.
func (tl Timeline) String() string {
	var b strings.Builder
	for _, e := range tl {
		at := e.At.UTC().Format("15:04:05.000000")
		label := e.Label
		if e.Resolution >= time.Second {
			at = e.At.UTC().Format("15:04:05") + "       "
			label += " (" + e.Line + ")"
		}
		fmt.Fprintf(&b, "%s  %-10s %s\n", at, e.Container, label)
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
	return fmt.Sprintf("%s %s %q", p.Container, which, p.Label)
}

// Entry is the entry the point names, if the timeline has it.
func (tl Timeline) Entry(p Point) (TimelineEntry, bool) {
	evs := tl.All(p.Container, p.Label)
	if len(evs) == 0 {
		return TimelineEntry{}, false
	}
	if p.Last {
		return evs[len(evs)-1], true
	}
	return evs[0], true
}

// At is when the point happened, if the timeline has it.
func (tl Timeline) At(p Point) (time.Time, bool) {
	e, ok := tl.Entry(p)
	return e.At, ok
}

// NotAfter tells whether the times prove that a happened at or before b:
// a's time plus its resolution is at or before b's time. Between two log
// lines that is a <= b; between two times of the pod status, both truncated
// to the second, a's second before b's: the same second cannot tell.
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
	msg := fmt.Sprintf("no %q event of container %s in the timeline", e.Point.Label, e.Point.Container)
	if e.Point.Label == EventReady || e.Point.Label == EventReadyServed || strings.Contains(e.Point.Label, ":hook-") {
		fromStatus := len(e.Timeline) > 0
		for _, ev := range e.Timeline {
			fromStatus = fromStatus && ev.Resolution > 0
		}
		if fromStatus {
			msg += " (the pod status records no readiness or hook times: read the test server's logs, LogTimeline)"
		}
	}
	return msg + "\ntimeline seen:\n" + e.Timeline.String()
}

// MustEntry is the entry the point names, or a *MissingError.
func (tl Timeline) MustEntry(p Point) (TimelineEntry, error) {
	e, ok := tl.Entry(p)
	if !ok {
		return TimelineEntry{}, &MissingError{Point: p, Timeline: tl}
	}
	return e, nil
}
