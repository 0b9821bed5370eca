//go:build e2e

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

package e2e

import (
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// The rule "wait-ready" is the optional annotation of SPEC "Declaring
// sidecars".
var _ = Describe("Native sidecars", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = newNamespace(ctx) })

	It("[wait-ready] with sidecar-kubelet.io/wait-ready, hold the next init container and the apps until a native sidecar is ready", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("wait-ready",
			annotation(sidecars.WaitReadyAnnotation, "true"),
			initContainers(
				server("mesh", native(), readiness(), env("READY_AFTER=4s")),
				server("agent", native()),
			),
			containers(server("app"))))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		tl := currentTimeline(ctx, pod, first("app", "started"))
		tl.expectOrder("wait-ready", first("mesh", "ready-served"), first("agent", "started"), first("app", "started"))
	})

	It("[rule 1] [wait-ready] without the annotation, start the next container once a native sidecar has started, as upstream", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("no-wait-ready",
			initContainers(server("mesh", native(), readiness(), env("READY_AFTER=10s"))),
			containers(server("app"))))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		tl := currentTimeline(ctx, pod, first("mesh", "ready-served"), first("app", "started"))
		tl.expectOrder("1", first("mesh", "started"), first("app", "started"))
		tl.expectBefore("1", first("app", "started"), first("mesh", "ready-served"))
	})
})
