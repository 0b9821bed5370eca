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
)

var _ = Describe("Kubelet restart", Serial, Label("kubelet-restart"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		requireKubeletRestart()
		ns = newNamespace(ctx)
	})

	It("[rule 15] keeps the start order across a kubelet restart in the middle of startup gating", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("restart-startup",
			sidecarsAnnotation("proxy,logger"),
			containers(
				server("proxy", readiness(), env("READY_AFTER=20s")),
				server("logger", readiness(), env("READY_AFTER=3s")),
				server("app"),
			)))
		waitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) { expectRunning(g, p, "proxy") })
		restarted := time.Now()
		restartKubelet(ctx)

		waitPod(ctx, pod, 2*time.Minute, allRunning)
		tl := currentTimeline(ctx, pod, first("app", "started"))
		// The premise: the kubelet went down while the app was held.
		if at := tl.mustAt("15", first("proxy", "ready")); !restarted.Before(at) {
			Fail("premise: the kubelet restart began after the first sidecar turned ready; the restart must take less than 20 s")
		}
		tl.expectOrder("15",
			first("proxy", "started"), first("proxy", "ready-served"),
			first("logger", "started"), first("logger", "ready-served"),
			first("app", "started"))
		for _, c := range []string{"proxy", "logger", "app"} {
			Expect(status(getPod(ctx, pod), c).RestartCount).To(BeZero(), ruleMsg("15", "%s restarted across the kubelet restart", c))
		}
	})

	It("[rule 15] keeps the termination order across a kubelet restart in the middle of ordered termination", func(ctx SpecContext) {
		sidecar := func(name string) v1.Container {
			return server(name, readiness(), preStopHook("8s"), env("DRAIN=1s"))
		}
		pod := createPod(ctx, ns, newPod("restart-termination",
			held(), gracePeriod(120),
			sidecarsAnnotation("proxy,logger"),
			containers(server("app", preStopHook("1s"), env("DRAIN=1s")), sidecar("proxy"), sidecar("logger"))))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		logs := followLogs(ctx, pod)
		deletePod(ctx, pod)
		// Restart while the logger, the first sidecar to stop, runs its hook.
		logs.waitFor(ctx, first("logger", "prestop:hook-start"), time.Minute)
		restarted := time.Now()
		restartKubelet(ctx)

		p := waitTerminated(ctx, pod, 3*time.Minute)
		tl := logs.wait(ctx, time.Minute)
		if at := tl.mustAt("15", first("logger", "exiting")); !restarted.Before(at) {
			Fail("premise: the kubelet restart began after the logger had exited")
		}
		tl.expectOrder("15",
			first("app", "exiting"),
			first("logger", "prestop:hook-start"), last("logger", "sigterm"), first("logger", "exiting"),
			first("proxy", "prestop:hook-start"), first("proxy", "sigterm"), first("proxy", "exiting"))
		expectFinishedInOrder("15", p, []string{"app"}, []string{"logger"}, []string{"proxy"})
		for _, c := range []string{"proxy", "logger", "app"} {
			if n := len(tl.all(c, "started")); n != 1 {
				failRule("15", "%s started %d times\ntimeline seen:\n%s", c, n, tl)
			}
			// Rule 13: each preStop hook runs at most once, restart or not.
			if n := len(tl.all(c, "prestop:hook-start")); n != 1 {
				failRule("13", "%s's preStop hook started %d times across the kubelet restart\ntimeline seen:\n%s", c, n, tl)
			}
		}
	})

	It("[rule 13] keeps the pod's deadline across a kubelet restart in the middle of its termination", func(ctx SpecContext) {
		const grace = 12
		c := func(name string, opts ...containerOpt) v1.Container {
			return server(name, append([]containerOpt{readiness(), env("IGNORE_SIGTERM=true")}, opts...)...)
		}
		pod := createPod(ctx, ns, newPod("restart-deadline",
			held(), gracePeriod(grace),
			sidecarsAnnotation("proxy"),
			containers(c("app", preStopHook("10s")), c("proxy"))))
		running := waitPod(ctx, pod, 2*time.Minute, allRunning)
		exits := watchExits(ctx, running)
		if exits == nil {
			Skip("needs CONTAINER_RUNTIME_ENDPOINT for the containers' exit times")
		}
		logs := followLogs(ctx, pod)
		deleted := deletePod(ctx, pod)
		// Restart 6 s into the termination, while the app's hook runs: a
		// kubelet that started the grace period over would stop the pod
		// 6 s late.
		logs.waitFor(ctx, first("app", "prestop:hook-start"), time.Minute)
		time.Sleep(time.Until(deleted.Add(6 * time.Second)))
		restartKubelet(ctx)

		var end time.Time
		for _, at := range exits.wait(time.Minute) {
			if at.After(end) {
				end = at
			}
		}
		waitTerminated(ctx, pod, time.Minute)
		tl := logs.wait(ctx, time.Minute)
		limit := grace*time.Second + 2*time.Second
		if took := end.Sub(deleted); took > limit+runtimeSlack {
			failRule("13", "with a kubelet restart 6 s into the termination, the last container exited %v after the deletion, want at most %v (+%v for the runtime): the deadline started over\ntimeline seen:\n%s",
				took.Round(time.Millisecond), limit, runtimeSlack, tl)
		}
		if n := len(tl.all("app", "prestop:hook-start")); n != 1 {
			failRule("13", "the app's preStop hook started %d times across the kubelet restart\ntimeline seen:\n%s", n, tl)
		}
	})
})
