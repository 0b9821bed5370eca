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

// Package results holds the records that pass from bench's measuring to
// its report, as the raw files of a run hold them (one JSON document a
// line): a pod's Sample and a way's Segment of bench run, a ProbeRate of
// bench probe-rate, a DensityRun of bench density, a ChainPod of bench
// chain and a NeverReadyRun of bench never-ready; their readers; the ways
// the pods are run in; and the figures that one record gives (a sample's
// scenarios, a run's probe rates and CPU per pod, a chain's steps, the
// never-ready windows).
//
// It is a package of its own so that measure and report depend on it and
// not on each other: what a record holds, and how a figure is taken from
// it, is defined once, for the progress lines of a measuring run and for
// the committed report alike. It talks to no cluster and writes no file.
package results
