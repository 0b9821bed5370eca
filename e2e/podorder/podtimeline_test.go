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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega/types"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The objects below are made up in the shape the API returns them: they
// test how the package reads them, not what a kubelet writes.

func TestStatusTimeline(t *testing.T) {
	mt := func(offset string) metav1.Time { return metav1.NewTime(at(offset)) }
	pod := &v1.Pod{Status: v1.PodStatus{
		InitContainerStatuses: []v1.ContainerStatus{{
			Name:  "init",
			State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: mt("0s"), FinishedAt: mt("1s")}},
		}},
		ContainerStatuses: []v1.ContainerStatus{
			{
				Name:                 "proxy",
				State:                v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: mt("5s")}},
				LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{StartedAt: mt("2s"), FinishedAt: mt("4s")}},
			},
			{Name: "app", State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "SidecarsNotReady"}}},
		},
	}}
	ev := func(offset, container, label, field string) TimelineEntry {
		return TimelineEntry{At: at(offset), Container: container, Label: label, Source: SourceStatus, Line: field, Resolution: time.Second}
	}
	want := Timeline{
		ev("0s", "init", EventStarted, "state.terminated.startedAt"),
		ev("1s", "init", EventExiting, "state.terminated.finishedAt"),
		ev("2s", "proxy", EventStarted, "lastState.terminated.startedAt"),
		ev("4s", "proxy", EventExiting, "lastState.terminated.finishedAt"),
		ev("5s", "proxy", EventStarted, "state.running.startedAt"),
	}
	if diff := cmp.Diff(want, StatusTimeline(pod)); diff != "" {
		t.Errorf("StatusTimeline (-want +got):\n%s", diff)
	}
}

// deletedPod is pod web (UID "uid-web"), sidecar proxy and app, as its
// API objects read after its deletion: app stopped first, then proxy.
func deletedPod() *v1.Pod {
	mt := func(offset string) metav1.Time { return metav1.NewTime(at(offset)) }
	terminated := func(name, started, finished string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, Image: "registry.example/" + name + ":1", State: v1.ContainerState{
			Terminated: &v1.ContainerStateTerminated{StartedAt: mt(started), FinishedAt: mt(finished)}}}
	}
	condition := func(t v1.PodConditionType, s v1.ConditionStatus, offset string) v1.PodCondition {
		return v1.PodCondition{Type: t, Status: s, LastTransitionTime: mt(offset)}
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "uid-web"},
		Spec: v1.PodSpec{Containers: []v1.Container{
			{Name: "app", Image: "registry.example/app:1"},
			{Name: "proxy", Image: DefaultImage},
		}},
		Status: v1.PodStatus{
			Conditions: []v1.PodCondition{
				condition(v1.PodScheduled, v1.ConditionTrue, "0s"), // the scheduler's: left out
				condition(v1.PodInitialized, v1.ConditionTrue, "0s"),
				condition(v1.ContainersReady, v1.ConditionFalse, "10s"),
				condition(v1.PodReady, v1.ConditionFalse, "10s"),
				condition(v1.PodReadyToStartContainers, v1.ConditionFalse, "14s"),
			},
			ContainerStatuses: []v1.ContainerStatus{terminated("app", "2s", "11s"), terminated("proxy", "0s", "13s")},
		},
	}
}

// kubeletEvent is an event of the kubelet about the pod (container "") or
// one of its containers, first recorded at the offset: named as client-go's
// recorder names it, with firstTimestamp truncated to the second as the
// API returns it.
func kubeletEvent(offset, container, reason, message string) v1.Event {
	e := v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web." + strconv.FormatInt(at(offset).UnixNano(), 16), Namespace: "ns"},
		InvolvedObject: v1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "web", UID: "uid-web"},
		Reason:         reason,
		Message:        message,
		Source:         v1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: metav1.NewTime(at(offset).Truncate(time.Second)),
		LastTimestamp:  metav1.NewTime(at(offset).Truncate(time.Second)),
		Count:          1,
		Type:           v1.EventTypeNormal,
	}
	if container != "" {
		e.InvolvedObject.FieldPath = "spec.containers{" + container + "}"
	}
	return e
}

func deletedPodEvents() []v1.Event {
	unhealthy := kubeletEvent("0.5s", "proxy", "Unhealthy", "Readiness probe failed")
	unhealthy.Count, unhealthy.LastTimestamp = 3, metav1.NewTime(at("1s"))
	renamed := kubeletEvent("2.7s", "app", "Pulled", "Container image already present")
	renamed.Name = "web.pulled" // not client-go's making: firstTimestamp, to the second
	// As an events.k8s.io recorder writes them: eventTime and a series.
	series := kubeletEvent("3.25s", "app", "BackOff", "Back-off restarting")
	series.FirstTimestamp, series.LastTimestamp, series.Count = metav1.Time{}, metav1.Time{}, 0
	series.Source, series.ReportingController = v1.EventSource{}, "kubelet"
	series.EventTime = metav1.NewMicroTime(at("3.25s"))
	series.Series = &v1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(at("4.5s"))}
	scheduled := kubeletEvent("0s", "", "Scheduled", "assigned ns/web to node-1")
	scheduled.Source = v1.EventSource{Component: "default-scheduler"}
	otherPod := kubeletEvent("1s", "app", "Started", "Container started")
	otherPod.InvolvedObject.UID = "uid-web-before"
	return []v1.Event{
		kubeletEvent("0.0005s", "proxy", "Created", "Container created"),
		kubeletEvent("0.0201s", "proxy", "Started", "Container started"),
		unhealthy,
		kubeletEvent("1.9s", "", "SidecarsReady", "sidecars ready"),
		kubeletEvent("2.01s", "app", "Created", "Container created"),
		kubeletEvent("2.05s", "app", "Started", "Container started"),
		renamed,
		series,
		kubeletEvent("10.0001s", "app", "Killing", "Stopping container app"),
		kubeletEvent("12.0002s", "proxy", "Killing", "Stopping container proxy"),
		scheduled,
		otherPod,
	}
}

func TestPodTimeline(t *testing.T) {
	entry := func(offset, container, label string, source Source, line string, resolution time.Duration) TimelineEntry {
		return TimelineEntry{At: at(offset), Container: container, Label: label, Source: source, Line: line, Resolution: resolution}
	}
	event := func(offset, container, reason, line string, resolution time.Duration) TimelineEntry {
		return entry(offset, container, KubeletEvent(reason), SourceKubeletEvent, line, resolution)
	}
	status := func(offset, container, label, field string) TimelineEntry {
		return entry(offset, container, label, SourceStatus, field, time.Second)
	}
	condition := func(offset string, c v1.PodConditionType, s v1.ConditionStatus) TimelineEntry {
		return entry(offset, WholePod, ConditionTransition(c, s), SourceCondition, "conditions["+string(c)+"].lastTransitionTime", time.Second)
	}
	want := Timeline{
		status("0s", "proxy", EventStarted, "state.terminated.startedAt"),
		condition("0s", v1.PodInitialized, v1.ConditionTrue),
		event("0.0005s", "proxy", "Created", "metadata.name: Container created", 0),
		event("0.0201s", "proxy", "Started", "metadata.name: Container started", 0),
		event("0.5s", "proxy", "Unhealthy", "metadata.name: Readiness probe failed", 0),
		event("1s", "proxy", "Unhealthy", "lastTimestamp: Readiness probe failed", time.Second),
		event("1.9s", WholePod, "SidecarsReady", "metadata.name: sidecars ready", 0),
		status("2s", "app", EventStarted, "state.terminated.startedAt"),
		event("2s", "app", "Pulled", "firstTimestamp: Container image already present", time.Second),
		event("2.01s", "app", "Created", "metadata.name: Container created", 0),
		event("2.05s", "app", "Started", "metadata.name: Container started", 0),
		event("3.25s", "app", "BackOff", "eventTime: Back-off restarting", time.Microsecond),
		event("4.5s", "app", "BackOff", "series.lastObservedTime: Back-off restarting", time.Microsecond),
		condition("10s", v1.ContainersReady, v1.ConditionFalse),
		condition("10s", v1.PodReady, v1.ConditionFalse),
		event("10.0001s", "app", "Killing", "metadata.name: Stopping container app", 0),
		status("11s", "app", EventExiting, "state.terminated.finishedAt"),
		event("12.0002s", "proxy", "Killing", "metadata.name: Stopping container proxy", 0),
		status("13s", "proxy", EventExiting, "state.terminated.finishedAt"),
		condition("14s", v1.PodReadyToStartContainers, v1.ConditionFalse),
	}
	// Entries of the same time keep their sources' order: statuses,
	// conditions, events.
	if diff := cmp.Diff(want, PodTimeline(deletedPod(), deletedPodEvents())); diff != "" {
		t.Errorf("PodTimeline (-want +got):\n%s", diff)
	}
}

// TestPodTimelineMatchers: the matchers on a timeline of the API alone,
// as for any image.
func TestPodTimelineMatchers(t *testing.T) {
	tl := PodTimeline(deletedPod(), deletedPodEvents())
	for _, tc := range []struct {
		matcher types.GomegaMatcher
		want    bool
	}{
		{StartInOrder("proxy", "app"), true},
		{StopInOrder("app", "proxy"), true},
		{StopInReverseOrder("proxy", "app"), true},
		// app's exit, to the second (11 s), ends before proxy's Killing
		// at 12.0002 s.
		{HappenInOrder(First("app", KubeletEvent("Killing")), Last("app", EventExiting), First("proxy", KubeletEvent("Killing"))), true},
		{HappenInOrder(First(WholePod, KubeletEvent("SidecarsReady")), First("app", KubeletEvent("Started"))), true},
		{HappenBefore(First("proxy", KubeletEvent("Started")), First("app", KubeletEvent("Created"))), true},
		{HappenInOrder(First(WholePod, ConditionTransition(v1.PodInitialized, v1.ConditionTrue)), First("app", KubeletEvent("Created"))), true},
		// Ready=False in the second 10 s, app's Killing at 10.0001 s.
		{HappenInOrder(First(WholePod, ConditionTransition(v1.PodReady, v1.ConditionFalse)), First("app", KubeletEvent("Killing"))), false},
		// app's start, to the second (2 s), and its Created event at
		// 2.01 s: the second cannot tell which came first.
		{HappenInOrder(First("app", KubeletEvent("Created")), First("app", EventStarted)), false},
	} {
		got, err := tc.matcher.Match(tl)
		if err != nil || got != tc.want {
			t.Errorf("Match = %v, %v; want %v; message:\n%s", got, err, tc.want, tc.matcher.FailureMessage(tl))
		}
	}
}

func TestRefine(t *testing.T) {
	api := PodTimeline(deletedPod(), deletedPodEvents())
	lines := ParseLogs("proxy", strings.Join([]string{
		line("0.0101s", "proxy", "started"), line("1.8s", "proxy", "ready-served"), line("12.9s", "proxy", "exiting"),
	}, "\n"))
	tl := Refine(api, lines)
	for _, tc := range []struct {
		point  Point
		source Source
		n      int
	}{
		{First("proxy", EventStarted), SourceTestServer, 1}, // the line, not the status's second
		{First("proxy", EventExiting), SourceTestServer, 1},
		{First("proxy", EventReadyServed), SourceTestServer, 1},
		{First("proxy", KubeletEvent("Killing")), SourceKubeletEvent, 1}, // what the lines do not give stays
		{First("app", EventStarted), SourceStatus, 1},                    // no lines of app
	} {
		e, ok := tl.Entry(tc.point)
		if n := len(tl.All(tc.point.Container, tc.point.Label)); !ok || e.Source != tc.source || n != tc.n {
			t.Errorf("%s: %+v, %d entries; want one from the %s", tc.point, e, n, tc.source)
		}
	}
	if len(tl) != len(api)+1 {
		t.Errorf("Refine: %d entries, want %d (the API's, with two lines in place of two and one more)", len(tl), len(api)+1)
	}
}

func TestWithTestServerLines(t *testing.T) {
	pod := deletedPod()
	// proxy runs the test image, but none of its lines were read yet: the
	// status's seconds do not stand in for them.
	tl := withTestServerLines(PodTimeline(pod, deletedPodEvents()), nil, runsImage(pod, DefaultImage))
	if got := tl.All("proxy", EventStarted); len(got) != 0 {
		t.Errorf("a test server's start from its status: %+v", got)
	}
	if _, ok := tl.Entry(First("proxy", KubeletEvent("Killing"))); !ok {
		t.Errorf("a test server's kubelet events left out")
	}
	if e, ok := tl.Entry(First("app", EventStarted)); !ok || e.Source != SourceStatus {
		t.Errorf("the start of a container of another image: %+v, %v", e, ok)
	}
	if runsImage(pod, DefaultImage)("nosuch") {
		t.Errorf("runsImage of a container the pod lacks")
	}
}

func TestNameTime(t *testing.T) {
	e := kubeletEvent("1.25s", "app", "Started", "")
	for _, tc := range []struct {
		name   string
		mutate func(*v1.Event)
		want   time.Time
		wantOK bool
	}{
		{"client-go's name", func(*v1.Event) {}, at("1.25s"), true},
		{"another object's name", func(e *v1.Event) { e.InvolvedObject.Name = "api" }, time.Time{}, false},
		{"not hex", func(e *v1.Event) { e.Name = "web.started" }, time.Time{}, false},
		{"outside firstTimestamp's second", func(e *v1.Event) { e.FirstTimestamp = metav1.NewTime(at("2s")) }, time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e
			tc.mutate(&e)
			got, ok := nameTime(&e)
			if !got.Equal(tc.want) || ok != tc.wantOK {
				t.Errorf("nameTime = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestEventsOf(t *testing.T) {
	native := kubeletEvent("1s", "", "Unhealthy", "Readiness probe failed")
	native.InvolvedObject.FieldPath = "spec.initContainers{proxy}"
	evs := []v1.Event{
		kubeletEvent("0.5s", "app", "Unhealthy", "Readiness probe failed: connection refused"),
		kubeletEvent("0.7s", "", "SidecarsReady", "Sidecars proxy are ready"),
		native,
		kubeletEvent("2s", "app", "Unhealthy", "Readiness probe failed: 503"),
	}
	names := func(evs []v1.Event) []string {
		var n []string
		for _, e := range evs {
			n = append(n, e.Message)
		}
		return n
	}
	for _, tc := range []struct {
		container string
		want      []string
	}{
		{"app", []string{"Readiness probe failed: connection refused", "Readiness probe failed: 503"}},
		{"proxy", []string{"Readiness probe failed"}},
		{WholePod, []string{"Sidecars proxy are ready"}},
		{"other", nil},
	} {
		if diff := cmp.Diff(tc.want, names(EventsOf(evs, tc.container))); diff != "" {
			t.Errorf("EventsOf(%q) (-want +got):\n%s", tc.container, diff)
		}
	}
}
