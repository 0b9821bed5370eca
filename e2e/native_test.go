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
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
)

// The rule "wait-ready" is the optional annotation of the contract's "Declaring
// sidecars".
var _ = Describe("Native sidecars", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = cluster.NewNamespace(ctx, PodSecurityBaseline) })

	It("[wait-ready] with sidecar-kubelet.io/wait-ready, hold the next init container and the apps until a native sidecar is ready", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("wait-ready",
			WaitReady(),
			InitContainers(
				TestServer("mesh", Native(), Readiness(), Env("READY_AFTER=4s")),
				TestServer("agent", Native()),
			),
			Containers(TestServer("app"))))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		expectTimeline("wait-ready", tl, HappenInOrder(First("mesh", "ready-served"), First("agent", "started"), First("app", "started")))
	})

	It("[wait-ready] keep the pod's Initialized condition False while the native sidecar its apps wait for has started but is not ready", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("initialized",
			WaitReady(),
			InitContainers(TestServer("mesh", Native(), Readiness(), Env("READY_AFTER=8s"))),
			Containers(TestServer("app"))))
		// Upstream counts a native sidecar as initialized once it has
		// started; under wait-ready the apps wait for it to be ready, and
		// so does the condition.
		p := cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) { ExpectRunning(g, p, "mesh") })
		mesh := ContainerStatusOf(p, "mesh")
		Expect(mesh.Ready).To(BeFalse(), "mesh is ready already, 8 s after its start: %s", DescribeStatus(*mesh))
		Expect(ConditionOf(p, v1.PodInitialized)).To(Equal(v1.ConditionFalse), "Initialized while mesh is not ready: %s", DescribeStatus(*mesh))
		p = cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		Expect(ConditionOf(p, v1.PodInitialized)).To(Equal(v1.ConditionTrue), "Initialized once mesh is ready and the app runs")
	})

	It("[rule 1] [wait-ready] without the annotation, start the next container once a native sidecar has started, as upstream", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("no-wait-ready",
			InitContainers(TestServer("mesh", Native(), Readiness(), Env("READY_AFTER=10s"))),
			Containers(TestServer("app"))))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("mesh", "ready-served"), First("app", "started"))
		expectTimeline("1", tl, HappenInOrder(First("mesh", "started"), First("app", "started")))
		expectTimeline("1", tl, HappenBefore(First("app", "started"), First("mesh", "ready-served")))
	})
})
