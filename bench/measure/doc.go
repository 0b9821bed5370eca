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

// Package measure runs bench's pods on the local cluster and records what
// it sees: bench run, probe-rate, density, chain and never-ready, one
// Command each. It watches the pods through the API server, reads their
// containers' times from the node's CRI runtime and the test server's log
// lines, scrapes the kubelet's own endpoints and reads its log, and takes
// CPU times from /proc and the cluster's cgroups; every record (package
// results) is appended to a JSON-lines file.
//
// It is apart from the report so that everything that needs a cluster,
// and the Kubernetes client libraries, is in one place: a run's report is
// written again from its raw files (BENCH_REPORT_FROM) by code that
// imports none of it.
package measure
