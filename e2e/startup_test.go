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
	"regexp"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// appStartBound is how soon after its last sidecar's probe succeeded an app
// container must start (rule 3: the probe result triggers the sync). A
// polling loop would take the pod worker's resync, 10 s or more; creating
// and starting a container takes about 0.1 s here.
const appStartBound = 3 * time.Second

// readyToStartBound is how soon after a sidecar actually turned ready the
// kubelet must begin the next container (its Pulled event, the first step
// of the start, before the runtime's create and start), with the readiness
// probe's default period of 10 s (rule 3: the kubelet notices the
// readiness promptly, whatever the period). The fork probes a waited-on
// sidecar every 50 ms until it is ready and syncs on the result. A kubelet
// that waited for the probe's period would take up to 10 s, one that
// waited for the next relist up to 1 s (more than this bound 60% of the
// time, at least once in three steps in 94% of runs). The runtime's create
// and start come after, and are not the kubelet's: they took 86 to 143 ms
// on the machine where the bound was first set, 140 to 400 ms on another,
// where the whole step of an exec probe's chain took 680 ms in a full run
// of the suite. The contract's quarter of a second, start included, is
// measured by make bench; this bound leaves room for a loaded CI machine.
//
// The specs that bound a latency carry Serial and the label "latency": they
// run alone, after the parallel ones, since the other ginkgo processes
// starting pods on the same node measure the machine, not the kubelet (on 2
// cores, with a compiler running too, a step took 870 ms). On a cluster too
// busy for latency bounds, LABEL_FILTER='!latency' leaves them out.
const readyToStartBound = 500 * time.Millisecond

var _ = Describe("Startup", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = cluster.NewNamespace(ctx, PodSecurityBaseline) })

	It("[rule 1] [rule 2] runs init containers, then starts annotated sidecars one at a time in annotation order, each once the previous is ready", func(ctx SpecContext) {
		// Spec order differs from annotation order: the annotation decides.
		pod := cluster.CreatePod(ctx, ns, NewPod("start-order",
			AnnotatedSidecars("first", "second"),
			InitContainers(TestServer("init", Env("EXIT_AFTER=1s"))),
			Containers(
				TestServer("app"),
				TestServer("second", Readiness(), Env("READY_AFTER=2s")),
				TestServer("first", Readiness(), Env("READY_AFTER=2s")),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		expectTimeline("1", tl, HappenInOrder(First("init", "exiting"), First("first", "started")))
		expectTimeline("2", tl, HappenInOrder(
			First("first", "started"), First("first", "ready-served"),
			First("second", "started"), First("second", "ready-served"),
			First("app", "started")))
		e := expectOneEvent(ctx, "4", pod, v1.EventTypeNormal, sidecars.ReasonSidecarsReady, "first, second")
		expectReportedWait(tl, e, First("first", "started"), First("second", "ready-served"), First("app", "started"))
	})

	It("[rule 3] starts the app containers once every sidecar is ready, promptly after the probe succeeds", Serial, Label("latency"), func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("readiness-gate",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("READY_AFTER=5s")),
				TestServer("app"),
				TestServer("worker"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"), First("worker", "started"))
		for _, app := range []string{"app", "worker"} {
			expectTimeline("3", tl, StartAfterReady(app, "proxy"))
			ready, started := mustAt("3", tl, First("proxy", "ready-served")), mustAt("3", tl, First(app, "started"))
			if d := started.Sub(ready); d > appStartBound {
				failRule("3", "%s started %v after the sidecar's probe first succeeded, want within %v (triggered by the probe result, not by polling)\ntimeline seen:\n%s",
					app, d, appStartBound, tl)
			}
		}
		p := cluster.GetPod(ctx, pod)
		Expect(ContainerStatusOf(p, "app").State.Running.StartedAt.Time).To(BeTemporally(">=", ContainerStatusOf(p, "proxy").State.Running.StartedAt.Time),
			ruleMsg("3", "app startedAt before the sidecar's"))
	})

	DescribeTable("[rule 3] notices the sidecars' readiness promptly, whatever the probe's period", Serial, Label("latency"),
		func(ctx SpecContext, probe func(port int) ContainerOption, slack time.Duration) {
			sidecar := func(name string, port int) v1.Container {
				c := TestServer(name, Port(port), probe(port))
				if !slices.ContainsFunc(c.Env, func(e v1.EnvVar) bool { return e.Name == "READY_AFTER" }) {
					Env("READY_AFTER=700ms")(&c)
				}
				return c
			}
			// The kubelet may run a probe only once its initialDelaySeconds
			// are over, counted from the container's startedAt in its status
			// (whole seconds, as the API has it: the kubelet's first run
			// came 2 ms after that plus the delay, up to a second before the
			// test server's own "started" plus the delay). Each step counts
			// from the sidecar's readiness or from then, whichever is later.
			var probeDelay time.Duration
			probed := sidecar("s", 9081)
			for _, probe := range []*v1.Probe{probed.StartupProbe, probed.ReadinessProbe} {
				if probe != nil {
					probeDelay = max(probeDelay, time.Duration(probe.InitialDelaySeconds)*time.Second)
				}
			}
			pod := cluster.CreatePod(ctx, ns, NewPod("default-period",
				AnnotatedSidecars("s1", "s2", "s3"),
				Containers(sidecar("s1", 9081), sidecar("s2", 9082), sidecar("s3", 9083), TestServer("app"))))
			cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
			tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
			// Three steps, each from a sidecar actually turning ready to the
			// kubelet's start of the next container: a kubelet that waited
			// for the probe's period would take seconds; one that waited for
			// the next relist (1 s) instead of syncing on the probe result
			// would exceed the bound in at least one step of three in most
			// runs.
			bound, waitsFor := readyToStartBound+slack, "the probe's period or the next relist"
			if !relistsOnDemand {
				// Without on-demand relists the sync waits for the next periodic
				// one: measured 1.06 to 1.34 s on v1.35 here. Two periods of
				// room keep the bound far below the probe's 10 s.
				bound, waitsFor = bound+2*relistPeriod, "the probe's period (this release has no on-demand relist)"
			}
			p := cluster.GetPod(ctx, pod)
			for _, step := range [][2]string{{"s1", "s2"}, {"s2", "s3"}, {"s3", "app"}} {
				ready := mustAt("3", tl, First(step[0], "ready"))
				starting, started := mustAt("3", tl, First(step[1], "kubelet:Pulled")), mustAt("3", tl, First(step[1], "started"))
				if mayRun := ContainerStatusOf(p, step[0]).State.Running.StartedAt.Add(probeDelay); mayRun.After(ready) {
					ready = mayRun
				}
				d := starting.Sub(ready)
				if d < 0 || d > bound {
					failRule("3", "the kubelet began %s %v after %s turned ready (probes every 10 s), want within %v: the kubelet must notice the readiness at once, not at %s\ntimeline seen:\n%s",
						step[1], d, step[0], bound, waitsFor, tl)
				}
				GinkgoWriter.Printf("the kubelet began %s %v after %s turned ready (probe period 10 s); it started %v after\n", step[1], d, step[0], started.Sub(ready))
			}
		},
		Entry("HTTP readiness probes", func(int) ContainerOption {
			return func(c *v1.Container) {
				c.ReadinessProbe = HTTPProbe("/ready", 3)
				c.ReadinessProbe.PeriodSeconds = 10
			}
		}, time.Duration(0)),
		// An exec probe's extra runs come every 100 ms, one at a time, each
		// a process in the container (50 to 100 ms here): the readiness is
		// seen up to one run later than an HTTP probe's. (Until the exec
		// runs were bounded at their cost they came every 250 ms and at
		// most a quarter of the time, and this slack was 350 ms.)
		Entry("exec readiness probes", func(port int) ContainerOption {
			return func(c *v1.Container) {
				ExecReadiness(port)(c)
				c.ReadinessProbe.PeriodSeconds = 10
			}
		}, 150*time.Millisecond),
		// A sidecar that a startup probe alone readies (the contract's
		// "Ready"): that probe runs more often too, its failed extra runs
		// not counted, so failureThreshold 3 still gives it 30 s to start.
		Entry("HTTP startup probes, no readiness probe", func(int) ContainerOption {
			return func(c *v1.Container) {
				c.StartupProbe = HTTPProbe("/ready", 3)
				c.StartupProbe.PeriodSeconds = 10
			}
		}, time.Duration(0)),
		// A readiness probe behind a startup probe runs only once the
		// startup probe has succeeded: both are waited on.
		Entry("HTTP startup and readiness probes", func(int) ContainerOption {
			return func(c *v1.Container) {
				c.StartupProbe = HTTPProbe("/ready", 3)
				c.StartupProbe.PeriodSeconds = 10
				c.ReadinessProbe = HTTPProbe("/ready", 3)
				c.ReadinessProbe.PeriodSeconds = 10
			}
		}, time.Duration(0)),
		// A probe's initialDelaySeconds hold it back: its first run comes as
		// they end, and its extra runs back off from then, not from the
		// container's start. Before, 10 s into the container's life they
		// came once a second.
		Entry("HTTP readiness probes with initialDelaySeconds 10", func(int) ContainerOption {
			return func(c *v1.Container) {
				c.ReadinessProbe = HTTPProbe("/ready", 3)
				c.ReadinessProbe.PeriodSeconds = 10
				c.ReadinessProbe.InitialDelaySeconds = 10
			}
		}, time.Duration(0)),
		// A readiness probe behind a startup probe that takes 10 s (held
		// back by its initialDelaySeconds: /healthz always answers 200),
		// the sidecar ready 0.7 s after that: the readiness probe's extra
		// runs back off from its first run, not from the container's start.
		Entry("HTTP readiness probes behind a startup probe that succeeds after 10 s", func(int) ContainerOption {
			return func(c *v1.Container) {
				c.StartupProbe = HTTPProbe("/healthz", 3)
				c.StartupProbe.PeriodSeconds = 10
				c.StartupProbe.InitialDelaySeconds = 10
				c.ReadinessProbe = HTTPProbe("/ready", 3)
				c.ReadinessProbe.PeriodSeconds = 10
				Env("READY_AFTER=10700ms")(c)
			}
		}, time.Duration(0)),
	)

	It("[rule 4] keeps the apps waiting for a never-ready sidecar, with waiting reason SidecarsNotReady and one WaitingForSidecars event", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("never-ready",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("READY_AFTER=never")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			ExpectRunning(g, p, "proxy")
			st := ContainerStatusOf(p, "app")
			g.Expect(st).NotTo(BeNil())
			g.Expect(st.State.Waiting).NotTo(BeNil(), ruleMsg("4", "app is not waiting"))
			g.Expect(st.State.Waiting.Reason).To(Equal(sidecars.WaitingReasonSidecarsNotReady), ruleMsg("4", "app's waiting reason"))
		})
		expectOneEvent(ctx, "4", pod, v1.EventTypeNormal, sidecars.ReasonWaitingForSidecars, "proxy", "app")
		Consistently(ctx, func(g Gomega) {
			st := ContainerStatusOf(cluster.GetPod(ctx, pod), "app")
			g.Expect(st.State.Running).To(BeNil(), ruleMsg("3", "app started though its sidecar never became ready"))
			g.Expect(st.State.Waiting.Reason).To(Equal(sidecars.WaitingReasonSidecarsNotReady), ruleMsg("4", "app's waiting reason"))
		}).Should(Succeed())
		Expect(cluster.PodEvents(ctx, pod, sidecars.ReasonSidecarsReady)).To(BeEmpty(), ruleMsg("4", "SidecarsReady recorded for a sidecar that never became ready"))
	})

	It("[rule 5] restarts a sidecar that crashes before it is ready, under restartPolicy Never, and keeps the apps waiting", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("crash-before-ready",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("CRASH_AFTER=3s")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			st := ContainerStatusOf(p, "proxy")
			g.Expect(st).NotTo(BeNil())
			g.Expect(st.RestartCount).To(BeNumerically(">=", 1), ruleMsg("5", "crashed sidecar not restarted under restartPolicy Never"))
			g.Expect(st.State.Running).NotTo(BeNil(), ruleMsg("5", "restarted sidecar not seen running (restartCount %d)", st.RestartCount))
		})
		Consistently(ctx, func(g Gomega) {
			p := cluster.GetPod(ctx, pod)
			g.Expect(p.Status.Phase).NotTo(BeElementOf(v1.PodFailed, v1.PodSucceeded), ruleMsg("5", "pod ended though its sidecar is restarted"))
			st := ContainerStatusOf(p, "app")
			g.Expect(st.State.Running).To(BeNil(), ruleMsg("5", "app started while its sidecar crash-loops"))
			g.Expect(st.State.Terminated).To(BeNil(), ruleMsg("5", "app ran while its sidecar crash-loops"))
			g.Expect(st.LastTerminationState.Terminated).To(BeNil(), ruleMsg("5", "app ran while its sidecar crash-loops"))
			g.Expect(st.State.Waiting.Reason).To(Equal(sidecars.WaitingReasonSidecarsNotReady), ruleMsg("4", "app's waiting reason"))
		}).Should(Succeed())
		last := ContainerStatusOf(cluster.GetPod(ctx, pod), "proxy").LastTerminationState.Terminated
		Expect(last).NotTo(BeNil())
		Expect(last.ExitCode).To(Equal(int32(1)), "the sidecar's last exit should be its crash")
	})

	It("[rule 6] [rule 8] does not stop or restart the apps when a sidecar turns not ready, and the pod turns not ready", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("unready-later",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("READY_AFTER=1s", "NOT_READY_AFTER=12s")),
				TestServer("app"),
			)))
		p := cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			AllRunning(g, p)
			PodReady(g, p)
		})
		appID := ContainerStatusOf(p, "app").ContainerID
		cluster.WaitPod(ctx, pod, time.Minute, func(g Gomega, p *v1.Pod) {
			g.Expect(ContainerStatusOf(p, "proxy").Ready).To(BeFalse())
			g.Expect(IsPodReady(p)).To(BeFalse(), ruleMsg("8", "pod still Ready though its sidecar is not"))
		})
		Consistently(ctx, func(g Gomega) {
			p := cluster.GetPod(ctx, pod)
			for _, c := range []string{"app", "proxy"} {
				st := ContainerStatusOf(p, c)
				g.Expect(st.State.Running).NotTo(BeNil(), ruleMsg("6", "%s stopped after the sidecar turned not ready", c))
				g.Expect(st.RestartCount).To(BeZero(), ruleMsg("6", "%s restarted after the sidecar turned not ready", c))
			}
			g.Expect(ContainerStatusOf(p, "app").ContainerID).To(Equal(appID), ruleMsg("6", "app replaced"))
		}).Should(Succeed())
	})
})

// reportedWait finds the wait that the SidecarsReady event reports.
var reportedWait = regexp.MustCompile(`are ready after ([^;]+);`)

// expectReportedWait checks the wait that the SidecarsReady event reports
// (from the first sidecar's start, as the runtime recorded it, to the apps'
// release) against the timeline: at least from the first sidecar's start to
// the last one's readiness, at most to the app's start, plus a second for
// the runtime's start of a container before its process logs, and the
// event's rounding to 100 ms.
func expectReportedWait(tl Timeline, e v1.Event, firstStarted, lastReady, appStarted Point) {
	GinkgoHelper()
	m := reportedWait.FindStringSubmatch(e.Message)
	if m == nil {
		failRule("4", "want the SidecarsReady event to say how long the apps waited (\"are ready after <duration>;\"), saw %q", e.Message)
	}
	waited, err := time.ParseDuration(m[1])
	if err != nil {
		failRule("4", "the SidecarsReady event's wait %q is not a duration: %v", m[1], err)
	}
	start := mustAt("4", tl, firstStarted)
	low := mustAt("4", tl, lastReady).Sub(start) - 50*time.Millisecond
	high := mustAt("4", tl, appStarted).Sub(start) + time.Second
	if waited < low || waited > high {
		failRule("4", "the SidecarsReady event says the apps waited %v, want between %v and %v\ntimeline seen:\n%s", waited, low, high, tl)
	}
}
