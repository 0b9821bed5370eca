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

// Package e2e is sidecar-kubelet's end-to-end suite: ginkgo specs, one or
// more per rule of the behaviour contract (docs/contract.md), run against a real
// cluster whose node runs the patched kubelet.
//
// The specs are behind the build tag "e2e", so that `go test ./...` without
// a cluster compiles nothing here. Run them with `make e2e` (the local
// cluster of `make up`), or against any cluster:
//
//	KUBECONFIG=... go tool ginkgo -tags e2e -p ./e2e
//	KUBECONFIG=... go test -tags e2e -timeout 60m ./e2e -ginkgo.v
//
// Environment:
//
//	SIDECAR_E2E_KUBECONFIG, else KUBECONFIG   the cluster (required)
//	NODE_NAME                   the node to pin pods to (default: the one
//	                            schedulable node)
//	TESTSERVER_IMAGE            default sidecar-kubelet.local/testserver:1
//	                            (hack/images/build.sh; pulled IfNotPresent)
//	SIDECAR_E2E_KUBELET_RESTART a command that restarts the node's kubelet
//	                            and returns once it is back, honouring
//	                            KUBELET_FEATURE_GATES; without it the specs
//	                            that restart the kubelet are skipped
//
// Order is asserted from timestamps, never from sleeps: the testserver's own
// RFC3339Nano log lines (read through the pods/log API) where the order of
// events less than a second apart matters, and the containers' startedAt
// and finishedAt (1 s resolution) otherwise. A failure names the contract rule
// and shows the order seen.
package e2e
