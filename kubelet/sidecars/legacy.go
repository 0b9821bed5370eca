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

// What the series' patches used before their rebuild in final form (issue
// 27); it goes once every series under patches/ is rebuilt. New code uses
// api.go, Ready, Layout.WaitsOnReadiness, and the packages sidecarevents and
// sidecarmetrics.

import (
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// AnnotationError is annotationError, as the old patches name it.
type AnnotationError = annotationError

// StartWaitsOnProbes is Ordered.
func (l Layout) StartWaitsOnProbes() bool { return l.Ordered() }

// Decide; they go when the series is rebuilt in its final form.

// ParseAnnotations reads the sidecar layout a pod's own annotations ask
// for: Decide from pod.Annotations. A malformed annotation gives the zero
// Layout and an *annotationError.
func ParseAnnotations(pod *v1.Pod) (Layout, error) {
	if pod == nil {
		return Layout{}, nil
	}
	d := Decide(pod, pod.Annotations)
	return d.Layout, d.Err
}

// LayoutFor returns the layout the pod asks for while the kubelet's feature
// gate is on, and the zero Layout (upstream behaviour) when it is off or the
// pod has no sidecar annotations; a malformed annotation gives the zero
// Layout and its *annotationError. gateOn is asked only for pods that carry
// the annotations, so a pod without them costs two map lookups.
func LayoutFor(pod *v1.Pod, gateOn func() bool) (Layout, error) {
	if pod == nil || !HasAnnotations(pod.Annotations) || !gateOn() {
		return Layout{}, nil
	}
	return ParseAnnotations(pod)
}

// StartedWith returns the pod as the kubelet runs it: carrying the sidecar
// annotations that its sandbox was created with, which the container
// runtime keeps with the sandbox, rather than those it carries now (SPEC
// rule 19). A pod without a sandbox yet (hasSandbox false) is returned as
// it is. changed reports that the pod's annotations differ from the started
// ones; the returned pod is then a shallow copy, and pod itself is never
// modified.
func StartedWith(pod *v1.Pod, sandboxAnnotations map[string]string, hasSandbox bool) (started *v1.Pod, changed bool) {
	if pod == nil || !hasSandbox {
		return pod, false
	}
	d := decidedFrom(sandboxAnnotations)
	if d.Unchanged(pod.Annotations) {
		return pod, false
	}
	return d.PodAsDecided(pod), true
}

// DescribeChange says how the pod's sidecar annotations differ from those
// it started with, for the SidecarAnnotationChanged event.
func DescribeChange(started, now *v1.Pod) string {
	return decidedFrom(started.Annotations).ChangeIn(now.Annotations)
}

// decidedFrom is a Decision that holds only the sidecar annotations of
// annotations: what ChangeIn, Unchanged and PodAsDecided read, without the
// parse that Decide makes.
func decidedFrom(annotations map[string]string) Decision {
	d := Decision{Annotations: map[string]string{}}
	for _, key := range layoutAnnotations {
		if value, ok := annotations[key]; ok {
			d.Annotations[key] = value
		}
	}
	return d
}

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

// ProbeKind is a kind of probe whose success other containers may wait on.
type ProbeKind int

const (
	// ReadinessProbe is a container's readiness probe.
	ReadinessProbe ProbeKind = iota
	// StartupProbe is a container's startup probe.
	StartupProbe
)

const (
	// WaitedOnProbeInterval is how often the kubelet runs a readiness probe
	// that other containers wait on, besides its own period, until the
	// container's first readiness: the apps start within this of the
	// sidecar becoming ready, whatever the probe's periodSeconds (SPEC rule
	// 3).
	WaitedOnProbeInterval = 50 * time.Millisecond
	// WaitedOnProbeWindow bounds the extra runs of a container that never
	// turns ready: they happen only in the first WaitedOnProbeWindow of its
	// life, at most WaitedOnProbeWindow / WaitedOnProbeInterval of them.
	WaitedOnProbeWindow = time.Minute
	// ExtraProbeRunsPerSecond bounds the extra runs of every probe on the
	// node together, and ExtraProbeRunsBurst how many may come at once. An
	// extra run is a connection to the sidecar, so a node reboot that finds
	// every sidecar waited on must not open 20 of them a second per sidecar:
	// 200 a second keep every waiting sidecar probed 20 times a second up to
	// 10 at once, and 4 times a second (a quarter of a second apart, rule
	// 3's promise) up to 50; beyond that the extra runs thin out towards the
	// probes' own periods. The kubelet counts the runs it makes and those
	// the bound holds back (ExtraProbeRuns).
	ExtraProbeRunsPerSecond = 200
	ExtraProbeRunsBurst     = 20
)

// WaitedOn reports whether other containers of the pod wait for this probe
// of container c to succeed before they start, so that the kubelet runs it
// between its periodic runs too, until the container is first ready. That
// is a sidecar's readiness probe, for annotated sidecars, and for native
// sidecars under wait-ready.
//
// Every run counts, extra or periodic: successThreshold and
// failureThreshold count consecutive results of all runs, so an extra run
// never changes what the probe means. Hence the exceptions: exec probes
// keep their period (each run starts a process in the container), and
// startup probes are not run more often, since their failureThreshold
// gives the container failureThreshold × periodSeconds to start, and extra
// runs would shorten that. A sidecar that a startup probe alone readies is
// seen at that probe's period. Native sidecars without wait-ready keep
// upstream's probes exactly, and so does a pod without annotations (the
// zero Layout).
func (l Layout) WaitedOn(pod *v1.Pod, c *v1.Container, kind ProbeKind) bool {
	if pod == nil || c == nil || kind != ReadinessProbe {
		return false
	}
	if probe := c.ReadinessProbe; probe == nil || probe.Exec != nil {
		return false
	}
	if l.IsSidecar(c.Name) {
		return slices.ContainsFunc(pod.Spec.Containers, func(app v1.Container) bool { return app.Name == c.Name })
	}
	return l.WaitReady && slices.ContainsFunc(pod.Spec.InitContainers, func(init v1.Container) bool {
		return init.Name == c.Name && isNativeSidecar(&init)
	})
}

// ProbeResult is the last result the kubelet's prober has for a probe of a
// container.
type ProbeResult int

const (
	// ProbeUnknown: the probe has not reported yet (or the container has no
	// such probe).
	ProbeUnknown ProbeResult = iota
	// ProbeSuccess: the probe's last result was success.
	ProbeSuccess
	// ProbeFailure: the probe's last result was failure.
	ProbeFailure
)

// IsReady reports whether a sidecar is ready for the containers that wait
// on it:
//   - with a readiness probe: that probe has succeeded;
//   - else with a startup probe: that probe has succeeded;
//   - else: it is running. The kubelet runs a postStart hook inside the sync
//     that starts the container, so a container seen running by a later sync
//     has returned from its hook.
func IsReady(c *v1.Container, running bool, readiness, startup ProbeResult) bool {
	switch {
	case !running:
		return false
	case c.ReadinessProbe != nil:
		return readiness == ProbeSuccess
	case c.StartupProbe != nil:
		return startup == ProbeSuccess
	default:
		return true
	}
}

// Deadline is the deadline of the series' patches before
// terminate-ordered-pods-on-the-nodes-clock: the earlier of start plus the
// grace period and the deletionTimestamp. It goes when the series is
// rebuilt in its final form.
func Deadline(start time.Time, grace time.Duration, deletionTimestamp *time.Time) time.Time {
	deadline := start.Add(grace)
	if deletionTimestamp != nil && deletionTimestamp.Before(deadline) {
		return *deletionTimestamp
	}
	return deadline
}

// HookSeconds returns the whole seconds a preStop hook may run: what is left
// until the pod's deadline, rounded down, and never negative. It serves
// the series' patches before terminate-ordered-pods-on-the-nodes-clock,
// which waits for a hook until the deadline itself.
func HookSeconds(deadline, now time.Time) int64 {
	left := deadline.Sub(now)
	if left <= 0 {
		return 0
	}
	return int64(left / time.Second)
}
