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

// The fork's contract with pod authors and their tests: the annotations it
// reads, the reasons it shows in pod statuses and events, and the bound of
// its event messages (docs/contract.md).

// Annotations of a pod that ask for sidecar ordering.
const (
	// SidecarsAnnotation names the entries of spec.containers that are
	// sidecars, comma-separated, in start order.
	SidecarsAnnotation = "sidecar-kubelet.io/sidecars"
	// WaitReadyAnnotation asks that native sidecars (init containers with
	// restartPolicy Always) be ready, not only started, before the next
	// container starts: "true" for every native sidecar, or the names of
	// those that gate on readiness, comma-separated ("proxy,vault-agent");
	// the others keep upstream's gate, their start.
	WaitReadyAnnotation = "sidecar-kubelet.io/wait-ready"
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

// MaxEventMessage is the longest message of the fork's events, in bytes
// (contract rule 16).
const MaxEventMessage = 1024
