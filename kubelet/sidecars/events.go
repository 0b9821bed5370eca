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
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event reasons the kubelet records for sidecar ordering.
const (
	// ReasonWaitingForSidecars (Normal): app containers wait for a sidecar to
	// be ready.
	ReasonWaitingForSidecars = "WaitingForSidecars"
	// ReasonSidecarsReady (Normal): every sidecar is ready; app containers
	// start.
	ReasonSidecarsReady = "SidecarsReady"
	// ReasonTerminatingSidecars (Normal): the app containers have exited; the
	// sidecars stop in reverse order.
	ReasonTerminatingSidecars = "TerminatingSidecars"
	// ReasonInvalidSidecarAnnotation (Warning): the annotations are
	// malformed; the pod runs with upstream behaviour.
	ReasonInvalidSidecarAnnotation = "InvalidSidecarAnnotation"
	// ReasonSidecarAnnotationChanged (Warning): the sidecar annotations of a
	// running pod changed; the kubelet keeps those the pod started with.
	ReasonSidecarAnnotationChanged = "SidecarAnnotationChanged"

	// WaitingReasonSidecarsNotReady is the waiting reason of app containers
	// held for their sidecars, shown in the pod status.
	WaitingReasonSidecarsNotReady = "SidecarsNotReady"
	// WaitingReasonSidecarRestarting is the waiting reason of an annotated
	// sidecar that exited and that the kubelet restarts whatever the pod's
	// restartPolicy, until the restart (or its crash-loop back-off) shows.
	WaitingReasonSidecarRestarting = "SidecarRestarting"
)

// EventLatch remembers which events were recorded for which pod, so that each
// is recorded once per occurrence rather than once per sync. It is the one
// piece of memory the fork keeps, and it only saves duplicate events: a
// restarted kubelet may record an event again, but decides nothing from it.
// The zero value is ready to use.
type EventLatch struct {
	mu   sync.Mutex
	seen map[types.UID]map[string]struct{}
}

// First reports whether key is new for the pod, and remembers it.
func (l *EventLatch) First(pod types.UID, key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[types.UID]map[string]struct{}{}
	}
	keys := l.seen[pod]
	if keys == nil {
		keys = map[string]struct{}{}
		l.seen[pod] = keys
	}
	if _, ok := keys[key]; ok {
		return false
	}
	keys[key] = struct{}{}
	return true
}

// Forget drops what is remembered of the pod; its next occurrences are
// recorded again.
func (l *EventLatch) Forget(pod types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.seen, pod)
}

// ForgetKeys drops the given keys of the pod, so that those events are
// recorded again at their next occurrence: the start events of a pod whose
// sandbox is recreated, which starts its sidecars and apps anew.
func (l *EventLatch) ForgetKeys(pod types.UID, keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, key := range keys {
		delete(l.seen[pod], key)
	}
}

// Event is an event the kubelet records about a pod for sidecar ordering.
// The kubelet records it once per occurrence: once per Key and pod
// (EventLatch).
type Event struct {
	// Type is v1.EventTypeNormal or v1.EventTypeWarning.
	Type    string
	Reason  string
	Message string
	// Key tells occurrences apart: an event whose key the latch has seen for
	// the pod is a repeat of one already recorded.
	Key string
	// AppsWaited is, for SidecarsReady, how long the app containers waited
	// for their sidecars (the AppStartWaitDuration metric); zero when the
	// sidecars' start time is unknown.
	AppsWaited time.Duration
}

// InvalidAnnotationEvent is the event of a pod whose sidecar annotations
// are malformed (err says how): the pod runs without sidecar ordering. Each
// distinct error is its own occurrence.
func InvalidAnnotationEvent(err error) Event {
	return Event{
		Type:    v1.EventTypeWarning,
		Reason:  ReasonInvalidSidecarAnnotation,
		Message: capMessage("Running the pod without sidecar ordering: " + err.Error()),
		Key:     ReasonInvalidSidecarAnnotation + ": " + err.Error(),
	}
}

// ChangedEvent is the event of a running pod whose sidecar annotations
// (now) differ from those its layout was decided from: the kubelet keeps
// the decision. Each distinct change is its own occurrence; the change is
// described with each value cut to 64 bytes, so message and key stay small.
func (d Decision) ChangedEvent(now map[string]string) Event {
	change := d.ChangeIn(now)
	return Event{
		Type:    v1.EventTypeWarning,
		Reason:  ReasonSidecarAnnotationChanged,
		Message: capMessage("Ignoring the change of the pod's sidecar annotations (" + change + "): they are fixed while the pod runs"),
		Key:     ReasonSidecarAnnotationChanged + ": " + change,
	}
}

// AnnotationChangedEvent is ChangedEvent for a pod as it started and as it
// is now.
func AnnotationChangedEvent(started, now *v1.Pod) Event {
	return decidedFrom(started.Annotations).ChangedEvent(now.Annotations)
}

// Events are the events of the plan, decided at now: WaitingForSidecars
// while app containers are held, SidecarsReady in the sync that releases
// them, with how long they waited (to a tenth of a second in the message).
// A pod has one occurrence of each per sandbox.
func (p StartPlan) Events(l Layout, now time.Time) []Event {
	var events []Event
	if len(p.Held) > 0 {
		events = append(events, Event{
			Type:    v1.EventTypeNormal,
			Reason:  ReasonWaitingForSidecars,
			Message: "Waiting for sidecar " + p.WaitingOn + " to be ready before starting " + strings.Join(p.Held, ", "),
			Key:     ReasonWaitingForSidecars,
		})
	}
	if p.Released {
		e := Event{Type: v1.EventTypeNormal, Reason: ReasonSidecarsReady, Key: ReasonSidecarsReady}
		waited := ""
		if !p.SidecarsStartedAt.IsZero() {
			e.AppsWaited = now.Sub(p.SidecarsStartedAt)
			waited = " after " + e.AppsWaited.Round(100*time.Millisecond).String()
		}
		e.Message = "Sidecars " + strings.Join(l.Sidecars, ", ") + " are ready" + waited + "; starting the app containers"
		events = append(events, e)
	}
	return events
}

// StartEventKeys are the keys of the start events (StartPlan.Events), which
// occur again when the pod starts anew in a new sandbox.
var StartEventKeys = []string{ReasonWaitingForSidecars, ReasonSidecarsReady}

// TerminatingEvent is the event of a pod whose app containers have exited
// while its sidecars still run: they stop in stopOrder. A pod has one per
// termination.
func TerminatingEvent(stopOrder []string) Event {
	return Event{
		Type:    v1.EventTypeNormal,
		Reason:  ReasonTerminatingSidecars,
		Message: "App containers have exited; stopping sidecars in order: " + strings.Join(stopOrder, ", "),
		Key:     ReasonTerminatingSidecars,
	}
}

// capMessage cuts an event's message to MaxEventMessage bytes, on a rune
// boundary, ending it with "..." when cut.
func capMessage(message string) string {
	if len(message) <= MaxEventMessage {
		return message
	}
	cut := MaxEventMessage - len("...")
	for cut > 0 && !utf8.RuneStart(message[cut]) {
		cut--
	}
	return message[:cut] + "..."
}
