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
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
)

// StatusTimeline is what the pod status says of its containers' lives, for
// any image: each container's startedAt (EventStarted) and finishedAt
// (EventExiting), of its current state and of its last termination, to the
// second (SourceStatus).
func StatusTimeline(p *v1.Pod) Timeline {
	var tl Timeline
	add := func(name, field string, t time.Time, label string) {
		if !t.IsZero() {
			tl = append(tl, TimelineEntry{At: t, Container: name, Label: label, Source: SourceStatus, Line: field, Resolution: time.Second})
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

// kubeletConditions are the pod conditions the kubelet sets, on the node's
// clock; PodScheduled is the scheduler's.
var kubeletConditions = []v1.PodConditionType{v1.PodReadyToStartContainers, v1.PodInitialized, v1.ContainersReady, v1.PodReady}

// PodTimeline is what the API says of the pod, for any image: the
// container statuses (StatusTimeline), the last transition of each pod
// condition the kubelet sets (ConditionTransition), and the kubelet's
// events of the pod and its containers (KubeletEvent) among events, which
// may hold others. The Source constants say what each gives and how
// precisely. Refine it with the test server's lines (Cluster.Timeline does).
func PodTimeline(p *v1.Pod, events []v1.Event) Timeline {
	tl := StatusTimeline(p)
	for _, c := range p.Status.Conditions {
		for _, kc := range kubeletConditions {
			if c.Type == kc && !c.LastTransitionTime.IsZero() {
				tl = append(tl, TimelineEntry{At: c.LastTransitionTime.Time, Container: WholePod,
					Label: ConditionTransition(c.Type, c.Status), Source: SourceCondition,
					Line: "conditions[" + string(c.Type) + "].lastTransitionTime", Resolution: time.Second})
			}
		}
	}
	for i := range events {
		e := &events[i]
		if (e.Source.Component == "kubelet" || e.ReportingController == "kubelet") &&
			e.InvolvedObject.Kind == "Pod" && (p.UID == "" || e.InvolvedObject.UID == p.UID) {
			tl = append(tl, kubeletEventEntries(e)...)
		}
	}
	return tl.sorted()
}

// EventContainer is the container a kubelet event is about (its
// involvedObject's fieldPath: spec.containers{app},
// spec.initContainers{proxy}), or WholePod.
func EventContainer(e *v1.Event) string {
	if path := e.InvolvedObject.FieldPath; strings.HasSuffix(path, "}") {
		if i := strings.IndexByte(path, '{'); i >= 0 {
			return path[i+1 : len(path)-1]
		}
	}
	return WholePod
}

// EventsOf are the events about one container (EventContainer).
func EventsOf(evs []v1.Event, container string) []v1.Event {
	var of []v1.Event
	for _, e := range evs {
		if EventContainer(&e) == container {
			of = append(of, e)
		}
	}
	return of
}

// kubeletEventEntries are the event's first occurrence and, if it
// happened more than once, its last.
func kubeletEventEntries(e *v1.Event) []TimelineEntry {
	container := EventContainer(e)
	entry := func(at time.Time, field string, resolution time.Duration) TimelineEntry {
		return TimelineEntry{At: at, Container: container, Label: KubeletEvent(e.Reason), Source: SourceKubeletEvent,
			Line: field + ": " + e.Message, Resolution: resolution}
	}
	var entries []TimelineEntry
	switch {
	case !e.EventTime.IsZero():
		entries = append(entries, entry(e.EventTime.Time, "eventTime", time.Microsecond))
	case !e.FirstTimestamp.IsZero():
		if at, ok := nameTime(e); ok {
			entries = append(entries, entry(at, "metadata.name", 0))
		} else {
			entries = append(entries, entry(e.FirstTimestamp.Time, "firstTimestamp", time.Second))
		}
	default:
		return nil
	}
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		entries = append(entries, entry(e.Series.LastObservedTime.Time, "series.lastObservedTime", time.Microsecond))
	case e.Count > 1 && !e.LastTimestamp.IsZero():
		entries = append(entries, entry(e.LastTimestamp.Time, "lastTimestamp", time.Second))
	}
	return entries
}

// nameTime is the time of the event's first occurrence that client-go's
// recorder writes into its name ("<object>.<Unix nanoseconds, hex>"), if
// the name has one that falls in the second of firstTimestamp: a name of
// another making cannot pass for a time.
func nameTime(e *v1.Event) (time.Time, bool) {
	hex, ok := strings.CutPrefix(e.Name, e.InvolvedObject.Name+".")
	if !ok {
		return time.Time{}, false
	}
	nanos, err := strconv.ParseInt(hex, 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	at := time.Unix(0, nanos)
	if !at.Truncate(time.Second).Equal(e.FirstTimestamp.Time) {
		return time.Time{}, false
	}
	return at, true
}
