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

package sidecarevents

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

func TestEvents(t *testing.T) {
	t0 := time.Date(2026, time.March, 4, 10, 0, 0, 0, time.UTC)
	layout := sidecars.Layout{Sidecars: []string{"proxy", "logger"}}
	started := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{sidecars.SidecarsAnnotation: "proxy"}}}
	now := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{sidecars.SidecarsAnnotation: "proxy,logger"}}}

	testCases := []struct {
		name string
		got  []Event
		want []Event
	}{
		{
			name: "apps held: WaitingForSidecars names the sidecar and the apps",
			got:  Start(sidecars.StartPlan{Held: []string{"app", "worker"}, WaitingOn: "proxy"}, layout, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonWaitingForSidecars, Key: sidecars.ReasonWaitingForSidecars,
				Message: "Waiting for sidecar proxy to be ready before starting app, worker"}},
		},
		{
			name: "apps released: SidecarsReady says how long they waited, to a tenth of a second",
			got:  Start(sidecars.StartPlan{Start: []string{"app"}, Released: true, SidecarsStartedAt: t0}, layout, t0.Add(1234*time.Millisecond)),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: sidecars.ReasonSidecarsReady, AppsWaited: 1234 * time.Millisecond,
				Message: "Sidecars proxy, logger are ready after 1.2s; starting the app containers"}},
		},
		{
			name: "apps released, the sidecars' start unknown: no wait in the message",
			got:  Start(sidecars.StartPlan{Start: []string{"app"}, Released: true}, layout, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: sidecars.ReasonSidecarsReady,
				Message: "Sidecars proxy, logger are ready; starting the app containers"}},
		},
		{
			name: "a sidecar starts, nobody held: no event",
			got:  Start(sidecars.StartPlan{Start: []string{"proxy"}}, layout, t0),
		},
		{
			name: "a native sidecar holds the next init container: WaitingForSidecars names both",
			got:  NativeGate("proxy", false, []string{"migrate"}, []string{"proxy", "vault-agent"}, t0, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonWaitingForSidecars, Key: "WaitingForSidecars (native sidecars)",
				Message: "Waiting for sidecar proxy to be ready before starting migrate"}},
		},
		{
			name: "a native sidecar ready, another gating one after it: no event",
			got:  NativeGate("proxy", true, []string{"migrate"}, []string{"proxy", "vault-agent"}, t0, t0.Add(time.Second)),
		},
		{
			name: "the last gating native sidecar ready: SidecarsReady names them all, and the wait since the first one started",
			got:  NativeGate("vault-agent", true, []string{"app", "worker"}, []string{"proxy", "vault-agent"}, t0, t0.Add(2345*time.Millisecond)),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: "SidecarsReady (native sidecars)", AppsWaited: 2345 * time.Millisecond,
				Message: "Sidecars proxy, vault-agent are ready after 2.3s; starting app, worker"}},
		},
		{
			name: "the last gating native sidecar ready, the first one's start unknown: no wait",
			got:  NativeGate("proxy", true, []string{"app"}, []string{"proxy"}, time.Time{}, t0),
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: "SidecarsReady (native sidecars)",
				Message: "Sidecars proxy are ready; starting app"}},
		},
		{
			name: "malformed annotations: a Warning per distinct error",
			got:  []Event{InvalidAnnotation(errors.New(`container "nope" does not exist`))},
			want: []Event{{Type: v1.EventTypeWarning, Reason: sidecars.ReasonInvalidSidecarAnnotation,
				Message: `Running the pod without sidecar ordering: container "nope" does not exist`,
				Key:     `InvalidSidecarAnnotation: container "nope" does not exist`}},
		},
		{
			name: "changed annotations: a Warning per distinct change",
			got:  []Event{AnnotationChanged(sidecars.Decide(started, started.Annotations), now.Annotations)},
			want: []Event{{Type: v1.EventTypeWarning, Reason: sidecars.ReasonSidecarAnnotationChanged,
				Message: `Ignoring the change of the pod's sidecar annotations (` + sidecars.SidecarsAnnotation + ` changed from "proxy" to "proxy,logger"): they are fixed while the pod runs`,
				Key:     sidecars.ReasonSidecarAnnotationChanged + `: ` + sidecars.SidecarsAnnotation + ` changed from "proxy" to "proxy,logger"`}},
		},
		{
			name: "termination: the sidecars' stop order",
			got:  []Event{Terminating([]string{"logger", "proxy"})},
			want: []Event{{Type: v1.EventTypeNormal, Reason: sidecars.ReasonTerminatingSidecars, Key: sidecars.ReasonTerminatingSidecars,
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

// TestMessagesAreBounded checks contract rule 16's bound on the events' messages
// whatever the pod's author wrote: an error or a change of any length gives
// a message of at most MaxEventMessage bytes, cut on a rune boundary.
func TestMessagesAreBounded(t *testing.T) {
	long := strings.Repeat("é", 3000) // two bytes each: a cut must not split one
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}}}
	for name, e := range map[string]Event{
		"invalid":      InvalidAnnotation(errors.New(long)),
		"changed":      AnnotationChanged(sidecars.Decide(pod, map[string]string{sidecars.SidecarsAnnotation: "proxy"}), map[string]string{sidecars.SidecarsAnnotation: long}),
		"terminating":  Terminating([]string{long, long}),
		"waiting":      Start(sidecars.StartPlan{Held: []string{long, long}, WaitingOn: long}, sidecars.Layout{}, time.Time{})[0],
		"ready":        Start(sidecars.StartPlan{Released: true}, sidecars.Layout{Sidecars: []string{long, long}}, time.Time{})[0],
		"native wait":  NativeGate(long, false, []string{long, long}, []string{long}, time.Time{}, time.Time{})[0],
		"native ready": NativeGate(long, true, []string{long, long}, []string{long, long}, time.Time{}, time.Time{})[0],
	} {
		if len(e.Message) > sidecars.MaxEventMessage {
			t.Errorf("%s: message of %d bytes, more than %d", name, len(e.Message), sidecars.MaxEventMessage)
		}
		if !utf8.ValidString(e.Message) {
			t.Errorf("%s: the cut split a rune", name)
		}
	}
}
