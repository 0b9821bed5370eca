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

// Package sidecars holds the decisions behind sidecar-kubelet's sidecar
// semantics, apart from the kubelet that acts on them:
//
//   - which containers of a pod are sidecars (Decide: the Layout, from the
//     annotations the pod's sandbox is created with, with precise errors,
//     in time and memory linear in the annotations' length; the kubelet
//     decides from the sandbox's annotations, which a new sandbox of the
//     pod inherits, so the Decision is the same for the pod's life);
//   - when a sidecar is ready for the containers that wait on it (Ready),
//     which native sidecars gate on readiness (Layout.GatesOnReady), and
//     which probes they wait on (Layout.WaitsOnReadiness, WaitsOnStartup)
//     and which extra runs of them count (ExtraRunCounts);
//   - which containers may start in a sync, which wait and on whom, and
//     whether the pod's app containers are done (Layout.PlanStart);
//   - the order in which a pod's containers stop (Layout.TerminationOrder)
//     and the pod's one deadline on clocks that do not step (Deadline, and
//     its record on the node's boot clock: FormatDeadline, DeadlineLeft).
//
// It keeps no state, records nothing and measures nothing: the events'
// texts and the memory that keeps them to one per occurrence are in
// kubelet/sidecarevents, the metrics in kubelet/sidecarmetrics. Its inputs
// are the Kubernetes API types and what the kubelet hands it (one mirror
// type, ContainerStatus, for the runtime's view of a container), so that
// every rule is tested here with table tests. api.go is the contract with
// pod authors: the annotations, and the reasons the kubelet shows.
package sidecars
