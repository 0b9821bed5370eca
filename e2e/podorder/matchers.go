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
	"strings"
	"time"

	"github.com/onsi/gomega/types"
	v1 "k8s.io/api/core/v1"
)

// The matchers below take a Timeline (the test server's log lines, from
// LogTimeline, WaitForTimeline or a LogFollower: nanoseconds), or a pod, a
// *v1.Pod or v1.Pod, whose StatusTimeline they read (any image; to the
// second). An order holds only where the times prove it (NotAfter): two
// times of the pod status in the same second fail an order check, so leave
// a second between what the status must order, or use the test server.
// A timeline without an entry a matcher needs is an error, which Eventually
// retries.

// HappenInOrder succeeds if each point happened at or before the next.
//
//	Expect(tl).To(HappenInOrder(First("proxy", EventReadyServed), First("app", EventStarted)))
func HappenInOrder(points ...Point) types.GomegaMatcher {
	names := make([]string, len(points))
	for i, p := range points {
		names[i] = p.String()
	}
	return &timelineMatcher{
		description: "happen in the order " + strings.Join(names, ", "),
		check: func(tl Timeline) (string, error) {
			return inOrder(tl, points, NotAfter, "at or before")
		},
	}
}

// HappenBefore succeeds if a happened strictly before b.
func HappenBefore(a, b Point) types.GomegaMatcher {
	return &timelineMatcher{
		description: fmt.Sprintf("happen in the order %s, %s", a, b),
		check: func(tl Timeline) (string, error) {
			return inOrder(tl, []Point{a, b}, Before, "before")
		},
	}
}

// StartInOrder succeeds if the containers started in this order, each (its
// first start) at or before the next.
//
//	Expect(podorder.StatusTimeline(pod)).To(podorder.StartInOrder("init", "proxy", "app"))
func StartInOrder(containers ...string) types.GomegaMatcher {
	return containerOrder("start in the order "+strings.Join(containers, ", "), containers, EventStarted, false)
}

// StopInOrder succeeds if the containers stopped in this order, each (its
// last exit) at or before the next.
func StopInOrder(containers ...string) types.GomegaMatcher {
	return containerOrder("stop in the order "+strings.Join(containers, ", "), containers, EventExiting, true)
}

// StopInReverseOrder succeeds if the containers, given in their start order
// (that of the sidecars annotation), stopped in the reverse order: the last
// one first.
//
//	Expect(tl).To(StopInReverseOrder("proxy", "logger")) // logger exited, then proxy
func StopInReverseOrder(containers ...string) types.GomegaMatcher {
	rev := slices.Clone(containers)
	slices.Reverse(rev)
	return containerOrder("stop in the reverse of the order "+strings.Join(containers, ", "), rev, EventExiting, true)
}

// StopInStages succeeds if every container of each stage stopped (its last
// exit) at or before every container of the next stage: apps in parallel,
// then the sidecars one at a time.
//
//	Expect(pod).To(StopInStages([]string{"app1", "app2"}, []string{"logger"}, []string{"proxy"}))
func StopInStages(stages ...[]string) types.GomegaMatcher {
	var names []string
	for _, s := range stages {
		names = append(names, "["+strings.Join(s, " ")+"]")
	}
	desc := "stop in the stages " + strings.Join(names, ", ")
	return &timelineMatcher{
		description: desc,
		check: func(tl Timeline) (string, error) {
			for i := 0; i+1 < len(stages); i++ {
				for _, a := range stages[i] {
					for _, b := range stages[i+1] {
						v, err := inOrder(tl, []Point{Last(a, EventExiting), Last(b, EventExiting)}, NotAfter, "at or before")
						if err != nil || v != "" {
							return headed("want the containers to "+desc, v), err
						}
					}
				}
			}
			return "", nil
		},
	}
}

// StartAfterReady succeeds if the container started (first) at or after
// each sidecar was first seen ready by the kubelet: the first readiness
// probe the test server answered 200 (EventReadyServed). It needs the test
// server's timeline: the pod status has no readiness times.
//
//	Expect(tl).To(StartAfterReady("app", "proxy", "logger"))
func StartAfterReady(container string, sidecars ...string) types.GomegaMatcher {
	desc := fmt.Sprintf("start %s after %s ready", container, strings.Join(sidecars, ", "))
	return &timelineMatcher{
		description: desc,
		check: func(tl Timeline) (string, error) {
			for _, s := range sidecars {
				v, err := inOrder(tl, []Point{First(s, EventReadyServed), First(container, EventStarted)}, NotAfter, "at or before")
				if err != nil || v != "" {
					return headed("want "+desc, v), err
				}
			}
			return "", nil
		},
	}
}

func containerOrder(desc string, containers []string, label string, last bool) types.GomegaMatcher {
	points := make([]Point, len(containers))
	for i, c := range containers {
		points[i] = Point{Container: c, Label: label, Last: last}
	}
	return &timelineMatcher{
		description: desc,
		check: func(tl Timeline) (string, error) {
			v, err := inOrder(tl, points, NotAfter, "at or before")
			return headed("want the containers to "+desc, v), err
		},
	}
}

func headed(header, violation string) string {
	if violation == "" {
		return ""
	}
	return header + ":\n  " + violation
}

// inOrder checks that each point happened before the next, as ok says; it
// returns what went wrong, or an error when an entry is missing.
func inOrder(tl Timeline, points []Point, ok func(a, b TimelineEntry) bool, relation string) (string, error) {
	for i := 0; i+1 < len(points); i++ {
		a, err := tl.MustEntry(points[i])
		if err != nil {
			return "", err
		}
		b, err := tl.MustEntry(points[i+1])
		if err != nil {
			return "", err
		}
		if !ok(a, b) {
			return violation(points[i], a, relation, points[i+1], b), nil
		}
	}
	return "", nil
}

func violation(pa Point, a TimelineEntry, relation string, pb Point, b TimelineEntry) string {
	s := fmt.Sprintf("want %s (%s) %s %s (%s)", pa, stamp(a), relation, pb, stamp(b))
	switch {
	case a.At.After(b.At):
		return s + fmt.Sprintf(", but it came %v later", a.At.Sub(b.At))
	case a.Resolution > 0 || b.Resolution > 0:
		return s + ", but the pod status's times, to the second, cannot tell"
	default:
		return s + ", but they came at the same instant"
	}
}

func stamp(e TimelineEntry) string {
	if e.Resolution >= time.Second {
		return e.At.UTC().Format("15:04:05") + ", pod status"
	}
	return e.At.UTC().Format("15:04:05.000000")
}

// timelineMatcher is a gomega matcher of a timeline: check returns what is
// wrong ("" if nothing), or an error when the timeline lacks an entry.
type timelineMatcher struct {
	description string
	check       func(Timeline) (string, error)

	timeline Timeline
	wrong    string
}

func (m *timelineMatcher) Match(actual any) (bool, error) {
	tl, err := asTimeline(actual)
	if err != nil {
		return false, err
	}
	m.timeline = tl
	m.wrong, err = m.check(tl)
	if err != nil {
		return false, err
	}
	return m.wrong == "", nil
}

func (m *timelineMatcher) FailureMessage(any) string {
	return m.wrong + "\ntimeline seen:\n" + m.timeline.String()
}

func (m *timelineMatcher) NegatedFailureMessage(any) string {
	return "want the containers not to " + m.description + ", but they did\ntimeline seen:\n" + m.timeline.String()
}

func asTimeline(actual any) (Timeline, error) {
	switch a := actual.(type) {
	case Timeline:
		return a, nil
	case []TimelineEntry:
		return Timeline(a), nil
	case *v1.Pod:
		if a == nil {
			return nil, fmt.Errorf("want a timeline or a pod, got a nil *v1.Pod")
		}
		return StatusTimeline(a), nil
	case v1.Pod:
		return StatusTimeline(&a), nil
	}
	return nil, fmt.Errorf("want a podorder.Timeline, *v1.Pod or v1.Pod, got %T", actual)
}
