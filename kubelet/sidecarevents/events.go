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
	"strings"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// Event is an event the kubelet records about a pod for sidecar ordering.
// The kubelet records it once per occurrence: once per Key and pod
// (Latch).
type Event struct {
	// Type is v1.EventTypeNormal or v1.EventTypeWarning.
	Type    string
	Reason  string
	Message string
	// Key tells occurrences apart: an event whose key the latch has seen for
	// the pod is a repeat of one already recorded.
	Key string
	// AppsWaited is, for SidecarsReady, how long the app containers (or,
	// behind native sidecars, the containers after them) waited for their
	// sidecars (sidecarmetrics.AppStartWaitDuration); zero when the
	// sidecars' start time is unknown.
	AppsWaited time.Duration
}

// InvalidAnnotation is the event of a pod whose sidecar annotations
// are malformed (err says how): the pod runs without sidecar ordering. Each
// distinct error is its own occurrence.
func InvalidAnnotation(err error) Event {
	return Event{
		Type:    v1.EventTypeWarning,
		Reason:  sidecars.ReasonInvalidSidecarAnnotation,
		Message: capMessage("Running the pod without sidecar ordering: " + err.Error()),
		Key:     sidecars.ReasonInvalidSidecarAnnotation + ": " + err.Error(),
	}
}

// AnnotationChanged is the event of a running pod whose sidecar annotations
// (now) differ from those its layout was decided from (d): the kubelet keeps
// the decision. Each distinct change is its own occurrence; the change is
// described with each value cut to 64 bytes, so message and key stay small.
func AnnotationChanged(d sidecars.Decision, now map[string]string) Event {
	change := d.ChangeIn(now)
	return Event{
		Type:    v1.EventTypeWarning,
		Reason:  sidecars.ReasonSidecarAnnotationChanged,
		Message: capMessage("Ignoring the change of the pod's sidecar annotations (" + change + "): they are fixed while the pod runs"),
		Key:     sidecars.ReasonSidecarAnnotationChanged + ": " + change,
	}
}

// Start are the events of a start plan p of a pod with layout l, decided at now: WaitingForSidecars
// while app containers are held, SidecarsReady in the sync that releases
// them, with how long they waited (to a tenth of a second in the message).
// A pod has one occurrence of each per sandbox.
func Start(p sidecars.StartPlan, l sidecars.Layout, now time.Time) []Event {
	var events []Event
	if len(p.Held) > 0 {
		events = append(events, Event{
			Type:    v1.EventTypeNormal,
			Reason:  sidecars.ReasonWaitingForSidecars,
			Message: capMessage("Waiting for sidecar " + p.WaitingOn + " to be ready before starting " + strings.Join(p.Held, ", ")),
			Key:     sidecars.ReasonWaitingForSidecars,
		})
	}
	if p.Released {
		e := Event{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: sidecars.ReasonSidecarsReady}
		waited := ""
		if !p.SidecarsStartedAt.IsZero() {
			e.AppsWaited = now.Sub(p.SidecarsStartedAt)
			waited = " after " + e.AppsWaited.Round(100*time.Millisecond).String()
		}
		e.Message = capMessage("Sidecars " + strings.Join(l.Sidecars, ", ") + " are ready" + waited + "; starting the app containers")
		events = append(events, e)
	}
	return events
}

// The keys of the start events of native sidecars (NativeGate): apart
// from the annotated sidecars' (Start), so that a pod with both records
// each wait once.
const (
	nativeWaitingKey = sidecars.ReasonWaitingForSidecars + " (native sidecars)"
	nativeReadyKey   = sidecars.ReasonSidecarsReady + " (native sidecars)"
)

// NativeGate returns the start events of a native sidecar that holds the
// next container until it is ready (sidecars.Layout.GatesOnReady), in a
// sync that finds it the newest of the pod's init containers, before the
// pod's containers have started:
//   - not ready: WaitingForSidecars, naming it and next (the next init
//     container, or the pod's containers);
//   - ready, and the last of gated (the pod's native sidecars that gate on
//     readiness, in order): SidecarsReady, with how long next waited since
//     firstStarted (the first of gated's start; zero when unknown), which
//     is also the wait histogram's. A ready sidecar with another gating one
//     after it lets the next container start without an event: the
//     containers after the last one still wait.
func NativeGate(sidecar string, ready bool, next, gated []string, firstStarted, now time.Time) []Event {
	if !ready {
		return []Event{{
			Type:    v1.EventTypeNormal,
			Reason:  sidecars.ReasonWaitingForSidecars,
			Message: capMessage("Waiting for sidecar " + sidecar + " to be ready before starting " + strings.Join(next, ", ")),
			Key:     nativeWaitingKey,
		}}
	}
	if len(gated) == 0 || gated[len(gated)-1] != sidecar {
		return nil
	}
	e := Event{Type: v1.EventTypeNormal, Reason: sidecars.ReasonSidecarsReady, Key: nativeReadyKey}
	waited := ""
	if !firstStarted.IsZero() && now.After(firstStarted) {
		e.AppsWaited = now.Sub(firstStarted)
		waited = " after " + e.AppsWaited.Round(100*time.Millisecond).String()
	}
	e.Message = capMessage("Sidecars " + strings.Join(gated, ", ") + " are ready" + waited + "; starting " + strings.Join(next, ", "))
	return []Event{e}
}

// StartKeys are the keys of the start events (Start, NativeGate), which
// occur again when the pod starts anew in a new sandbox.
var StartKeys = []string{sidecars.ReasonWaitingForSidecars, sidecars.ReasonSidecarsReady, nativeWaitingKey, nativeReadyKey}

// TerminationKeys are the keys of the termination events (Terminating),
// which occur again in the pod's next termination.
var TerminationKeys = []string{sidecars.ReasonTerminatingSidecars}

// Terminating is the event of a pod whose app containers have exited
// while its sidecars still run: they stop in stopOrder. A pod has one per
// termination.
func Terminating(stopOrder []string) Event {
	return Event{
		Type:    v1.EventTypeNormal,
		Reason:  sidecars.ReasonTerminatingSidecars,
		Message: capMessage("App containers have exited; stopping sidecars in order: " + strings.Join(stopOrder, ", ")),
		Key:     sidecars.ReasonTerminatingSidecars,
	}
}

// capMessage cuts an event's message to sidecars.MaxEventMessage bytes, on a rune
// boundary, ending it with "..." when cut.
func capMessage(message string) string {
	if len(message) <= sidecars.MaxEventMessage {
		return message
	}
	cut := sidecars.MaxEventMessage - len("...")
	for cut > 0 && !utf8.RuneStart(message[cut]) {
		cut--
	}
	return message[:cut] + "..."
}
