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

// The matchers below take a Timeline (Cluster.Timeline or WaitForTimeline
// for any image, LogTimeline or a LogFollower's for the test server's
// lines alone), or a pod, a *v1.Pod or v1.Pod, whose StatusTimeline they
// read (any image; to the second). An order holds only where the times
// prove it (NotAfter): two times of the API in the same second fail an
// order check, so leave a second between what the API must order, or use
// the test server. A timeline without an entry a matcher needs is an
// error, which Eventually retries.

// HappenInOrder succeeds if each point happened at or before the next.
//
//	Expect(tl).To(HappenInOrder(First("proxy", EventReadyServed), First("app", EventStarted)))
func HappenInOrder(points ...Point) types.GomegaMatcher {
	names := make([]string, len(points))
	for i, p := range points {
		names[i] = p.String()
	}
	return &timelineMatcher{subject: strings.Join(names, ", "), verb: "happen in this order", pairs: consecutive(points)}
}

// HappenBefore succeeds if a happened strictly before b.
func HappenBefore(a, b Point) types.GomegaMatcher {
	return &timelineMatcher{subject: a.String(), verb: "happen before " + b.String(), pairs: []pair{{a: a, b: b, strict: true}}}
}

// StartInOrder succeeds if the containers started in this order, each (its
// first start) at or before the next.
//
//	Expect(podorder.StatusTimeline(pod)).To(podorder.StartInOrder("init", "proxy", "app"))
func StartInOrder(containers ...string) types.GomegaMatcher {
	return containerOrder("start in the order "+strings.Join(containers, ", "), containers, First, EventStarted)
}

// StopInOrder succeeds if the containers stopped in this order, each (its
// last exit) at or before the next.
func StopInOrder(containers ...string) types.GomegaMatcher {
	return containerOrder("stop in the order "+strings.Join(containers, ", "), containers, Last, EventExiting)
}

// StopInReverseOrder succeeds if the containers, given in their start order
// (that of the sidecars annotation), stopped in the reverse order: the last
// one first.
//
//	Expect(tl).To(StopInReverseOrder("proxy", "logger")) // logger exited, then proxy
func StopInReverseOrder(containers ...string) types.GomegaMatcher {
	rev := slices.Clone(containers)
	slices.Reverse(rev)
	return containerOrder("stop in the reverse of the order "+strings.Join(containers, ", "), rev, Last, EventExiting)
}

// StopInStages succeeds if every container of each stage stopped (its last
// exit) at or before every container of the next stage: apps in parallel,
// then the sidecars one at a time.
//
//	Expect(pod).To(StopInStages([]string{"app1", "app2"}, []string{"logger"}, []string{"proxy"}))
func StopInStages(stages ...[]string) types.GomegaMatcher {
	var names []string
	var pairs []pair
	for i, stage := range stages {
		names = append(names, "["+strings.Join(stage, " ")+"]")
		if i+1 < len(stages) {
			for _, a := range stage {
				for _, b := range stages[i+1] {
					pairs = append(pairs, pair{a: Last(a, EventExiting), b: Last(b, EventExiting)})
				}
			}
		}
	}
	return &timelineMatcher{subject: "the containers", verb: "stop in the stages " + strings.Join(names, ", "), pairs: pairs}
}

// StartAfterReady succeeds if the container started (first) at or after
// each sidecar was first seen ready by the kubelet: the first readiness
// probe the test server answered 200 (EventReadyServed). It needs the test
// server's lines: the API has no time of a container's readiness.
//
//	Expect(tl).To(StartAfterReady("app", "proxy", "logger"))
func StartAfterReady(container string, sidecars ...string) types.GomegaMatcher {
	var pairs []pair
	for _, s := range sidecars {
		pairs = append(pairs, pair{a: First(s, EventReadyServed), b: First(container, EventStarted)})
	}
	return &timelineMatcher{subject: container, verb: "start after " + strings.Join(sidecars, ", ") + " turned ready", pairs: pairs}
}

func containerOrder(verb string, containers []string, which func(container, label string) Point, label string) types.GomegaMatcher {
	points := make([]Point, len(containers))
	for i, c := range containers {
		points[i] = which(c, label)
	}
	return &timelineMatcher{subject: "the containers", verb: verb, pairs: consecutive(points)}
}

// pair is one order a matcher checks: a at or before b, or with strict
// strictly before.
type pair struct {
	a, b   Point
	strict bool
}

func consecutive(points []Point) []pair {
	var pairs []pair
	for i := 0; i+1 < len(points); i++ {
		pairs = append(pairs, pair{a: points[i], b: points[i+1]})
	}
	return pairs
}

// timelineMatcher is a gomega matcher of the orders of a timeline's
// entries: "want <subject> to <verb>". Its messages name the entries and
// their times: the order that failed, or, negated, every order that held.
type timelineMatcher struct {
	subject, verb string
	pairs         []pair

	timeline Timeline
	failed   string   // the pair that failed
	held     []string // the pairs, each as it held
}

func (m *timelineMatcher) Match(actual any) (bool, error) {
	tl, err := asTimeline(actual)
	if err != nil {
		return false, err
	}
	m.timeline, m.failed, m.held = tl, "", nil
	for _, p := range m.pairs {
		a, err := tl.MustEntry(p.a)
		if err != nil {
			return false, err
		}
		b, err := tl.MustEntry(p.b)
		if err != nil {
			return false, err
		}
		ok := NotAfter(a, b)
		if p.strict {
			ok = Before(a, b)
		}
		if !ok {
			m.failed = violation(p, a, b)
			return false, nil
		}
		m.held = append(m.held, held(p, a, b))
	}
	return true, nil
}

func (m *timelineMatcher) FailureMessage(any) string {
	return fmt.Sprintf("want %s to %s:\n  %s\ntimeline seen:\n%s", m.subject, m.verb, m.failed, m.timeline)
}

func (m *timelineMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("want %s not to %s, but:\n  %s\ntimeline seen:\n%s", m.subject, m.verb, strings.Join(m.held, "\n  "), m.timeline)
}

// violation says how the entries of the pair fail its order.
func violation(p pair, a, b TimelineEntry) string {
	relation := "at or before"
	if p.strict {
		relation = "before"
	}
	s := fmt.Sprintf("want %s (%s) %s %s (%s)", p.a, stamp(a), relation, p.b, stamp(b))
	switch {
	case a.Resolution == 0 && b.Resolution == 0 && a.At.Equal(b.At):
		return s + ", but they came at the same instant"
	case a.At.After(b.At) && !b.At.Add(b.Resolution).After(a.At):
		return s + fmt.Sprintf(", but it came %v later", a.At.Sub(b.At))
	default:
		// Each happened somewhere within its resolution after its time.
		coarse := a
		if b.Resolution > a.Resolution {
			coarse = b
		}
		return s + fmt.Sprintf(", but the %s's time, to the %s, cannot tell", coarse.Source, unit(coarse.Resolution))
	}
}

// held says how the entries of the pair hold its order.
func held(p pair, a, b TimelineEntry) string {
	switch {
	case a.At.Equal(b.At):
		return fmt.Sprintf("%s (%s) came at the same instant as %s (%s)", p.a, stamp(a), p.b, stamp(b))
	case a.Resolution > 0 || b.Resolution > 0:
		return fmt.Sprintf("%s (%s) came before %s (%s)", p.a, stamp(a), p.b, stamp(b))
	default:
		return fmt.Sprintf("%s (%s) came %v before %s (%s)", p.a, stamp(a), b.At.Sub(a.At), p.b, stamp(b))
	}
}

// stamp is the entry's time as precise as its source, and the source if it
// is not the test server.
func stamp(e TimelineEntry) string {
	s := e.At.UTC().Format("15:04:05.000000")
	if e.Resolution >= time.Second {
		s = e.At.UTC().Format("15:04:05")
	}
	if e.Source != SourceTestServer {
		s += ", " + string(e.Source)
	}
	return s
}

func unit(resolution time.Duration) string {
	switch resolution {
	case time.Second:
		return "second"
	case time.Microsecond:
		return "microsecond"
	}
	return resolution.String()
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
