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
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

const gate = "SidecarContainerOrdering"

// "gate" is SPEC "Declaring sidecars": with the gate off the kubelet behaves
// exactly as upstream. The classic workarounds for sidecar ordering on
// upstream must then work as they do there.
var _ = Describe("Feature gate off", Ordered, Serial, Label("kubelet-restart"), func() {
	BeforeAll(func(ctx SpecContext) {
		requireKubeletRestart()
		DeferCleanup(func(ctx SpecContext) {
			restartKubelet(ctx, "KUBELET_FEATURE_GATES="+os.Getenv("KUBELET_FEATURE_GATES"))
			Expect(featureEnabled(ctx, gate)).To(Equal(1), "%s after restoring the kubelet (kubernetes_feature_enabled)", gate)
		}, NodeTimeout(5*time.Minute))
		restartKubelet(ctx, "KUBELET_FEATURE_GATES="+gate+"=false")
		Expect(featureEnabled(ctx, gate)).To(Equal(0),
			"the kubelet restarted with KUBELET_FEATURE_GATES=%s=false does not report the gate off (kubernetes_feature_enabled)", gate)
	}, NodeTimeout(5*time.Minute))

	var ns string
	BeforeEach(func(ctx SpecContext) { ns = newNamespace(ctx) })

	It("[gate] a postStart hook that waits for the sidecar holds the next container, as upstream", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("classic-poststart",
			containers(
				server("proxy", port(9000), readiness(), env("READY_AFTER=4s"),
					postStart("/testserver", "wait-ready", "--timeout", "60s", "http://127.0.0.1:9000/ready")),
				server("app"),
			)))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		tl := currentTimeline(ctx, pod, first("app", "started"))
		tl.expectOrder("gate", first("proxy", "started"), first("proxy", "ready"), first("proxy", "wait-ready:hook-end"), first("app", "started"))
	})

	It("[gate] a sidecar's preStop hook that waits for the app keeps it up until the app exits, as upstream", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("classic-prestop",
			held(), gracePeriod(60),
			containers(
				server("app", port(9001), env("DRAIN=3s")),
				server("proxy", preStop("/testserver", "wait-down", "--timeout", "60s", "http://127.0.0.1:9001/healthz")),
			)))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		logs := followLogs(ctx, pod)
		deletePod(ctx, pod)
		waitTerminated(ctx, pod, 2*time.Minute)
		tl := logs.wait(ctx, time.Minute)
		// Upstream runs every preStop hook at once, and the hook holds the
		// proxy's SIGTERM until the app is gone.
		tl.expectBefore("gate", first("proxy", "wait-down:hook-start"), first("app", "exiting"))
		tl.expectOrder("gate", first("app", "exiting"), first("proxy", "wait-down:hook-end"), first("proxy", "sigterm"))
	})

	It("[gate] ignores the sidecars annotation", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("annotation-ignored",
			sidecarsAnnotation("proxy"),
			containers(
				server("proxy", readiness(), env("READY_AFTER=never")),
				server("app"),
			)))
		waitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) { expectRunning(g, p, "proxy", "app") })
		Consistently(ctx, func() []string {
			var reasons []string
			for _, r := range []string{sidecars.ReasonWaitingForSidecars, sidecars.ReasonSidecarsReady, sidecars.ReasonInvalidSidecarAnnotation} {
				for _, e := range podEvents(ctx, pod, r) {
					reasons = append(reasons, e.Reason)
				}
			}
			return reasons
		}).Should(BeEmpty(), "SPEC gate: sidecar events recorded with the gate off")
	})
})
