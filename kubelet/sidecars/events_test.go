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
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestEventLatch(t *testing.T) {
	type call struct {
		forget bool     // Forget(pod) instead of First(pod, key)
		keys   []string // ForgetKeys(pod, keys...) instead
		pod    types.UID
		key    string
	}
	first := func(pod types.UID, key string) call { return call{pod: pod, key: key} }
	forget := func(pod types.UID) call { return call{forget: true, pod: pod} }
	forgetKeys := func(pod types.UID, keys ...string) call { return call{keys: keys, pod: pod} }

	testCases := []struct {
		name  string
		calls []call
		// want has one entry per First call: what it returned.
		want []bool
	}{
		{
			name:  "first time for a key",
			calls: []call{first("pod-1", ReasonWaitingForSidecars)},
			want:  []bool{true},
		},
		{
			name: "same pod and key again",
			calls: []call{
				first("pod-1", ReasonWaitingForSidecars),
				first("pod-1", ReasonWaitingForSidecars),
				first("pod-1", ReasonWaitingForSidecars),
			},
			want: []bool{true, false, false},
		},
		{
			name: "other key of the same pod is independent",
			calls: []call{
				first("pod-1", ReasonWaitingForSidecars),
				first("pod-1", ReasonSidecarsReady),
				first("pod-1", ReasonWaitingForSidecars+"/b"),
				first("pod-1", ReasonSidecarsReady),
			},
			want: []bool{true, true, true, false},
		},
		{
			name: "same key of another pod is independent",
			calls: []call{
				first("pod-1", ReasonTerminatingSidecars),
				first("pod-2", ReasonTerminatingSidecars),
				first("pod-2", ReasonTerminatingSidecars),
				first("pod-1", ReasonTerminatingSidecars),
			},
			want: []bool{true, true, false, false},
		},
		{
			name: "Forget resets the pod",
			calls: []call{
				first("pod-1", ReasonInvalidSidecarAnnotation),
				first("pod-1", ReasonSidecarsReady),
				forget("pod-1"),
				first("pod-1", ReasonInvalidSidecarAnnotation),
				first("pod-1", ReasonInvalidSidecarAnnotation),
				first("pod-1", ReasonSidecarsReady),
			},
			want: []bool{true, true, true, false, true},
		},
		{
			name: "Forget leaves other pods alone",
			calls: []call{
				first("pod-1", ReasonSidecarsReady),
				first("pod-2", ReasonSidecarsReady),
				forget("pod-1"),
				first("pod-2", ReasonSidecarsReady),
				first("pod-1", ReasonSidecarsReady),
			},
			want: []bool{true, true, false, true},
		},
		{
			name: "Forget of an unknown pod, and on the zero value",
			calls: []call{
				forget("pod-1"),
				first("pod-1", ReasonSidecarsReady),
				forget("pod-2"),
				first("pod-1", ReasonSidecarsReady),
			},
			want: []bool{true, false},
		},
		{
			name: "ForgetKeys resets those keys of the pod only",
			calls: []call{
				first("pod-1", ReasonSidecarsReady),
				first("pod-1", ReasonWaitingForSidecars),
				first("pod-1", ReasonInvalidSidecarAnnotation),
				first("pod-2", ReasonSidecarsReady),
				forgetKeys("pod-1", ReasonSidecarsReady, ReasonWaitingForSidecars),
				first("pod-1", ReasonSidecarsReady),
				first("pod-1", ReasonWaitingForSidecars),
				first("pod-1", ReasonInvalidSidecarAnnotation),
				first("pod-2", ReasonSidecarsReady),
			},
			want: []bool{true, true, true, true, true, true, false, false},
		},
		{
			name: "ForgetKeys of an unknown pod or key",
			calls: []call{
				forgetKeys("pod-1", ReasonSidecarsReady),
				first("pod-1", ReasonSidecarsReady),
				forgetKeys("pod-1", "nope"),
				first("pod-1", ReasonSidecarsReady),
			},
			want: []bool{true, false},
		},
		{
			name: "empty key and empty UID are keys like any other",
			calls: []call{
				first("", ""),
				first("", ""),
				first("pod-1", ""),
			},
			want: []bool{true, false, true},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var latch EventLatch // the zero value is ready to use
			var got []bool
			for _, c := range tc.calls {
				if c.forget {
					latch.Forget(c.pod)
					continue
				}
				if c.keys != nil {
					latch.ForgetKeys(c.pod, c.keys...)
					continue
				}
				got = append(got, latch.First(c.pod, c.key))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("First() results mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventLatchConcurrent(t *testing.T) {
	const goroutines = 64
	var latch EventLatch
	var firsts, otherPodFirsts atomic.Int32
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range goroutines {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			if latch.First("pod-1", ReasonWaitingForSidecars) {
				firsts.Add(1)
			}
			// Traffic on other pods and Forget of them meanwhile must not
			// disturb pod-1.
			if latch.First("pod-2", ReasonSidecarsReady) {
				otherPodFirsts.Add(1)
			}
			if i%2 == 0 {
				latch.Forget("pod-3")
			} else {
				latch.First("pod-3", ReasonSidecarsReady)
			}
		}()
	}
	start.Done()
	done.Wait()

	if got := firsts.Load(); got != 1 {
		t.Errorf("First() returned true in %d of %d goroutines for the same pod and key, want exactly 1", got, goroutines)
	}
	if got := otherPodFirsts.Load(); got != 1 {
		t.Errorf("First() returned true in %d of %d goroutines for another pod, want exactly 1", got, goroutines)
	}
	if latch.First("pod-1", ReasonWaitingForSidecars) {
		t.Errorf("First() returned true after the concurrent calls, want false")
	}
}

func TestEvents(t *testing.T) {
	t0 := time.Date(2026, time.March, 4, 10, 0, 0, 0, time.UTC)
	layout := Layout{Sidecars: []string{"proxy", "logger"}}
	started := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{SidecarsAnnotation: "proxy"}}}
	now := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{SidecarsAnnotation: "proxy,logger"}}}

	testCases := []struct {
		name string
		got  []Event
		want []Event
	}{
		{
			name: "apps held: WaitingForSidecars names the sidecar and the apps",
			got:  StartPlan{Held: []string{"app", "worker"}, WaitingOn: "proxy"}.Events(layout, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: ReasonWaitingForSidecars, Key: ReasonWaitingForSidecars,
				Message: "Waiting for sidecar proxy to be ready before starting app, worker"}},
		},
		{
			name: "apps released: SidecarsReady says how long they waited, to a tenth of a second",
			got:  StartPlan{Start: []string{"app"}, Released: true, SidecarsStartedAt: t0}.Events(layout, t0.Add(1234*time.Millisecond)),
			want: []Event{{Type: v1.EventTypeNormal, Reason: ReasonSidecarsReady, Key: ReasonSidecarsReady, AppsWaited: 1234 * time.Millisecond,
				Message: "Sidecars proxy, logger are ready after 1.2s; starting the app containers"}},
		},
		{
			name: "apps released, the sidecars' start unknown: no wait in the message",
			got:  StartPlan{Start: []string{"app"}, Released: true}.Events(layout, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: ReasonSidecarsReady, Key: ReasonSidecarsReady,
				Message: "Sidecars proxy, logger are ready; starting the app containers"}},
		},
		{
			name: "a sidecar starts, nobody held: no event",
			got:  StartPlan{Start: []string{"proxy"}}.Events(layout, t0),
		},
		{
			name: "malformed annotations: a Warning per distinct error",
			got:  []Event{InvalidAnnotationEvent(errors.New(`container "nope" does not exist`))},
			want: []Event{{Type: v1.EventTypeWarning, Reason: ReasonInvalidSidecarAnnotation,
				Message: `Running the pod without sidecar ordering: container "nope" does not exist`,
				Key:     `InvalidSidecarAnnotation: container "nope" does not exist`}},
		},
		{
			name: "changed annotations: a Warning per distinct change",
			got:  []Event{AnnotationChangedEvent(started, now)},
			want: []Event{{Type: v1.EventTypeWarning, Reason: ReasonSidecarAnnotationChanged,
				Message: `Ignoring the change of the pod's sidecar annotations (` + SidecarsAnnotation + ` changed from "proxy" to "proxy,logger"): they are fixed while the pod runs`,
				Key:     ReasonSidecarAnnotationChanged + `: ` + SidecarsAnnotation + ` changed from "proxy" to "proxy,logger"`}},
		},
		{
			name: "termination: the sidecars' stop order",
			got:  []Event{TerminatingEvent([]string{"logger", "proxy"})},
			want: []Event{{Type: v1.EventTypeNormal, Reason: ReasonTerminatingSidecars, Key: ReasonTerminatingSidecars,
				Message: "App containers have exited; stopping sidecars in order: logger, proxy"}},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
