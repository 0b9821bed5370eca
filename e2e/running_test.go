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

var _ = Describe("Running", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = cluster.NewNamespace(ctx, PodSecurityBaseline) })

	// expectSidecarRestartedAlone waits for the sidecar to have been
	// restarted and to run again, and checks that the app ran on untouched.
	expectSidecarRestartedAlone := func(ctx SpecContext, pod *v1.Pod, why string) {
		GinkgoHelper()
		p := cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		appID := ContainerStatusOf(p, "app").ContainerID
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			st := ContainerStatusOf(p, "proxy")
			g.Expect(st.RestartCount).To(BeNumerically(">=", 1), ruleMsg("7", "sidecar not restarted after %s", why))
			g.Expect(st.State.Running).NotTo(BeNil(), ruleMsg("7", "restarted sidecar not seen running (restartCount %d)", st.RestartCount))
		})
		p = cluster.GetPod(ctx, pod)
		app := ContainerStatusOf(p, "app")
		Expect(app.RestartCount).To(BeZero(), ruleMsg("7", "app restarted when its sidecar was (%s)", DescribeStatus(*app)))
		Expect(app.ContainerID).To(Equal(appID), ruleMsg("7", "app container replaced when its sidecar was restarted"))
		Expect(app.State.Running).NotTo(BeNil(), ruleMsg("7", "app not running: %s", DescribeStatus(*app)))
		Expect(p.Status.Phase).To(Equal(v1.PodRunning))
		tl := cluster.LogTimeline(ctx, p)
		if n := len(tl.All("app", "started")); n != 1 {
			failRule("7", "want the app started once, saw %d starts\ntimeline seen:\n%s", n, tl)
		}
	}

	It("[rule 7] restarts a sidecar that exits (code 0) while the apps run, under restartPolicy Never, and only it", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("sidecar-exits",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("EXIT_AFTER=6s", "EXIT_CODE=0")),
				TestServer("app"),
			)))
		expectSidecarRestartedAlone(ctx, pod, "it exited")
	})

	It("[rule 7] lets a sidecar's liveness probe restart it alone", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("sidecar-liveness",
			AnnotatedSidecars("proxy"),
			PodRestartPolicy(v1.RestartPolicyNever),
			Containers(
				TestServer("proxy", Readiness(), Liveness(), Env("UNHEALTHY_AFTER=6s")),
				TestServer("app"),
			)))
		expectSidecarRestartedAlone(ctx, pod, "its liveness probe failed")
	})
})
