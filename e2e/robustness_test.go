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

var _ = Describe("Kubelet restart", Serial, Label("kubelet-restart"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		requireKubeletRestart()
		ns = cluster.NewNamespace(ctx, PodSecurityBaseline)
	})

	It("[rule 15] keeps the start order across a kubelet restart in the middle of startup gating", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("restart-startup",
			AnnotatedSidecars("proxy", "logger"),
			Containers(
				TestServer("proxy", Readiness(), Env("READY_AFTER=20s")),
				TestServer("logger", Readiness(), Env("READY_AFTER=3s")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) { ExpectRunning(g, p, "proxy") })
		restarted := time.Now()
		restartKubelet(ctx)

		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		// The premise: the kubelet went down while the app was held.
		if at := mustAt("15", tl, First("proxy", "ready")); !restarted.Before(at) {
			Fail("premise: the kubelet restart began after the first sidecar turned ready; the restart must take less than 20 s")
		}
		expectTimeline("15", tl, HappenInOrder(
			First("proxy", "started"), First("proxy", "ready-served"),
			First("logger", "started"), First("logger", "ready-served"),
			First("app", "started")))
		for _, c := range []string{"proxy", "logger", "app"} {
			Expect(ContainerStatusOf(cluster.GetPod(ctx, pod), c).RestartCount).To(BeZero(), ruleMsg("15", "%s restarted across the kubelet restart", c))
		}
	})

	It("[Ready] counts a sidecar with only a startup probe as started after a kubelet restart", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("restart-startup-probe",
			AnnotatedSidecars("a", "b"),
			Containers(
				TestServer("a", StartupProbe("/healthz", 30)),
				TestServer("b", Readiness(), Env("READY_AFTER=30s")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			ExpectRunning(g, p, "a", "b")
			g.Expect(ContainerStatusOf(p, "a").Started).To(HaveValue(BeTrue()))
		})
		// The restarted kubelet refills no startup result for a container
		// that started more than 10 s before it: restart after that.
		a := ContainerStatusOf(cluster.GetPod(ctx, pod), "a").State.Running.StartedAt.Time
		time.Sleep(time.Until(a.Add(12 * time.Second)))
		restarted := time.Now()
		restartKubelet(ctx)

		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		if at := mustAt("Ready", tl, First("b", "ready-served")); !restarted.Before(at) {
			Fail("premise: the kubelet restart began after b turned ready; the restart must take less than 30 s")
		}
		expectTimeline("Ready", tl, HappenInOrder(First("a", "started"), First("b", "ready-served"), First("app", "started")))
	})

	It("[Ready] runs a sidecar's postStart hook again after a kubelet restart, and holds the app until a run returns", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("restart-poststart",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", PostStart("/testserver", "hook", "--name", "poststart", "--sleep", "20s")),
				TestServer("app"),
			)))
		// The sync that starts the proxy runs its hook, so the API shows
		// the proxy running (and its logs) only once the hook returned:
		// restart 6 s after the pod's creation, 20 s before the hook's end.
		time.Sleep(time.Until(pod.CreationTimestamp.Add(6 * time.Second)))
		restarted := time.Now()
		restartKubelet(ctx)

		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		if at := mustAt("Ready", tl, First("proxy", "poststart:hook-start")); !at.Before(restarted) {
			Fail("premise: the proxy's hook started after the kubelet restart began; the pod must start within 6 s")
		}
		if at := mustAt("Ready", tl, First("proxy", "poststart:hook-end")); !restarted.Before(at) {
			Fail("premise: the proxy's hook returned before the kubelet restart began")
		}
		// The app waits for the run the restarted kubelet started.
		expectTimeline("Ready", tl, HappenInOrder(Last("proxy", "poststart:hook-start"), Last("proxy", "poststart:hook-end"), First("app", "started")))
		if n := len(tl.All("proxy", "poststart:hook-start")); n < 2 {
			failRule("Ready", "the postStart hook the kubelet restart interrupted started %d time(s), want it run again\ntimeline seen:\n%s", n, tl)
		}
		Expect(ContainerStatusOf(cluster.GetPod(ctx, pod), "proxy").RestartCount).To(BeZero(), ruleMsg("Ready", "the sidecar restarted"))
	})

	It("[rule 15] keeps the termination order across a kubelet restart in the middle of ordered termination", func(ctx SpecContext) {
		sidecar := func(name string) v1.Container {
			return TestServer(name, Readiness(), PreStopHook("8s"), Env("DRAIN=1s"))
		}
		pod := cluster.CreatePod(ctx, ns, NewPod("restart-termination",
			Held(), TerminationGracePeriod(120),
			AnnotatedSidecars("proxy", "logger"),
			Containers(TestServer("app", PreStopHook("1s"), Env("DRAIN=1s")), sidecar("proxy"), sidecar("logger"))))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		logs := cluster.FollowLogs(ctx, pod)
		cluster.DeletePod(ctx, pod)
		// Restart while the logger, the first sidecar to stop, runs its hook.
		logs.WaitFor(ctx, First("logger", "prestop:hook-start"), time.Minute)
		restarted := time.Now()
		restartKubelet(ctx)

		p := cluster.WaitTerminated(ctx, pod, 3*time.Minute)
		tl := logs.Wait(ctx, time.Minute)
		if at := mustAt("15", tl, First("logger", "exiting")); !restarted.Before(at) {
			Fail("premise: the kubelet restart began after the logger had exited")
		}
		expectTimeline("15", tl, HappenInOrder(
			First("app", "exiting"),
			First("logger", "prestop:hook-start"), Last("logger", "sigterm"), First("logger", "exiting"),
			First("proxy", "prestop:hook-start"), First("proxy", "sigterm"), First("proxy", "exiting")))
		expectTimeline("15", StatusTimeline(p), StopInOrder("app", "logger", "proxy"))
		for _, c := range []string{"proxy", "logger", "app"} {
			if n := len(tl.All(c, "started")); n != 1 {
				failRule("15", "%s started %d times\ntimeline seen:\n%s", c, n, tl)
			}
		}
		// Rule 13: hooks are delivered at least once. The app's and the
		// proxy's, which completed before and ran after the restart, run
		// once; the logger's, which the restart interrupted 8 s short of its
		// end with more than 100 s of grace left, runs again, to its end.
		for _, c := range []string{"app", "proxy"} {
			if n := len(tl.All(c, "prestop:hook-start")); n != 1 {
				failRule("13", "%s's preStop hook started %d times across the kubelet restart, want once\ntimeline seen:\n%s", c, n, tl)
			}
		}
		starts := tl.All("logger", "prestop:hook-start")
		if len(starts) != 2 || !restarted.Before(starts[1].At) {
			failRule("13", "the logger's preStop hook, interrupted by the kubelet restart, started %d times, want twice, the second after the restart\ntimeline seen:\n%s", len(starts), tl)
		}
		expectTimeline("13", tl, HappenInOrder(Last("logger", "prestop:hook-start"), Last("logger", "prestop:hook-end"), Last("logger", "sigterm")))
	})

	It("[rule 13] keeps the pod's deadline across a kubelet restart in the middle of its termination", func(ctx SpecContext) {
		const grace = 12
		c := func(name string, opts ...ContainerOption) v1.Container {
			return TestServer(name, append([]ContainerOption{Readiness(), Env("IGNORE_SIGTERM=true")}, opts...)...)
		}
		pod := cluster.CreatePod(ctx, ns, NewPod("restart-deadline",
			Held(), TerminationGracePeriod(grace),
			AnnotatedSidecars("proxy"),
			Containers(c("app", PreStopHook("10s")), c("proxy"))))
		running := cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		exits := watchExits(ctx, running)
		if exits == nil {
			Skip("needs CONTAINER_RUNTIME_ENDPOINT for the containers' exit times")
		}
		logs := cluster.FollowLogs(ctx, pod)
		deleted := cluster.DeletePod(ctx, pod)
		// Restart 6 s into the termination, while the app's hook runs: a
		// kubelet that started the grace period over would stop the pod
		// 6 s late.
		logs.WaitFor(ctx, First("app", "prestop:hook-start"), time.Minute)
		time.Sleep(time.Until(deleted.Add(6 * time.Second)))
		restarted := time.Now()
		restartKubelet(ctx)

		var end time.Time
		for _, at := range exits.wait(time.Minute) {
			if at.After(end) {
				end = at
			}
		}
		cluster.WaitTerminated(ctx, pod, time.Minute)
		tl := logs.Wait(ctx, time.Minute)
		// Rule 13 counts the deadline from the instant the kubelet began
		// terminating the pod, which is the first thing a container sees
		// of it: the app's first preStop hook.
		began := mustAt("13", tl, First("app", "prestop:hook-start"))
		limit := grace*time.Second + 2*time.Second
		if took := end.Sub(began); took > limit+runtimeSlack {
			failRule("13", "with a kubelet restart 6 s into the termination, the last container exited %v after the termination began (%v after the deletion), want at most %v (+%v for the runtime): the deadline started over\ntimeline seen:\n%s",
				took.Round(time.Millisecond), end.Sub(deleted).Round(time.Millisecond), limit, runtimeSlack, tl)
		}
		// The app's 10 s hook was 6 s in when the kubelet stopped: delivered
		// at least once, it runs again in what is left of the deadline.
		if starts := tl.All("app", "prestop:hook-start"); len(starts) != 2 || !restarted.Before(starts[1].At) {
			failRule("13", "the app's preStop hook, interrupted by the kubelet restart with time left, started %d times, want twice, the second after the restart\ntimeline seen:\n%s", len(starts), tl)
		}
	})
})
