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

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// runtimeSlack is what the runtime adds to a measured termination: starting
// a preStop hook's process, delivering SIGKILL and reaping the container.
// On the 2-core machine with two Kubernetes builds beside the suite, SIGKILL
// to the exit time containerd records took 0.9 s (idle: under 0.3 s). A
// kubelet that broke the single deadline adds whole grace periods.
const runtimeSlack = 1500 * time.Millisecond

// observationSlack is what the API adds to a termination measured from the
// deletion: the kubelet learns of the deletion through its watch, its pod
// worker waits for a runtime status newer than its last sync (up to the
// one-second relist), it sees the exits at a later relist and writes the
// statuses, and the suite's watch sees them; more on a loaded machine. The
// runtime's view above is the precise measure.
const observationSlack = 4 * time.Second

var _ = Describe("Termination", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = newNamespace(ctx) })

	It("[rule 11] [rule 12] stops the apps first, in parallel, then the sidecars in reverse order, each preStop hook at its turn", func(ctx SpecContext) {
		app := func(name string) v1.Container { return server(name, preStopHook("2s"), env("DRAIN=1s")) }
		sidecar := func(name string) v1.Container {
			return server(name, readiness(), preStopHook("2s"), env("DRAIN=1s"))
		}
		pod := createPod(ctx, ns, newPod("delete-order",
			held(), gracePeriod(60),
			sidecarsAnnotation("proxy,logger"),
			containers(app("app1"), sidecar("proxy"), sidecar("logger"), app("app2"))))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		logs := followLogs(ctx, pod)
		deletePod(ctx, pod)
		p := waitTerminated(ctx, pod, 2*time.Minute)
		tl := logs.wait(ctx, time.Minute)

		// Rule 11: both apps' hooks run at once, each app's SIGTERM after its hook.
		tl.expectBefore("11", first("app1", "prestop:hook-start"), first("app2", "prestop:hook-end"))
		tl.expectBefore("11", first("app2", "prestop:hook-start"), first("app1", "prestop:hook-end"))
		for _, a := range []string{"app1", "app2"} {
			tl.expectOrder("11", first(a, "prestop:hook-end"), first(a, "sigterm"))
			// Sidecars keep running until every app has exited.
			for _, s := range []string{"proxy", "logger"} {
				tl.expectOrder("12", first(a, "exiting"), first(s, "prestop:hook-start"))
			}
		}
		// Rule 12: reverse annotation order, each sidecar's preStop at its turn.
		tl.expectOrder("12",
			first("logger", "prestop:hook-start"), first("logger", "prestop:hook-end"), first("logger", "sigterm"), first("logger", "exiting"),
			first("proxy", "prestop:hook-start"), first("proxy", "prestop:hook-end"), first("proxy", "sigterm"), first("proxy", "exiting"))
		expectFinishedInOrder("12", p, []string{"app1", "app2"}, []string{"logger"}, []string{"proxy"})
		expectOneEvent(ctx, "12", p, v1.EventTypeNormal, sidecars.ReasonTerminatingSidecars, "logger, proxy")
	})

	DescribeTable("[rule 13] stops the pod within its grace period plus 2 s",
		func(ctx SpecContext, grace int64, opts ...containerOpt) {
			c := func(name string, more ...containerOpt) v1.Container {
				return server(name, append(append([]containerOpt{readiness()}, opts...), more...)...)
			}
			pod := createPod(ctx, ns, newPod("deadline",
				held(), gracePeriod(grace),
				sidecarsAnnotation("proxy,logger"),
				initContainers(c("mesh", native())),
				containers(c("app"), c("proxy"), c("logger"))))
			running := waitPod(ctx, pod, 2*time.Minute, allRunning)
			exits := watchExits(ctx, running)
			logs := followLogs(ctx, pod)
			w := watchPod(ctx, pod)
			deleted := deletePod(ctx, pod)
			observed, _ := untilStopped(ctx, w, 2*time.Minute)
			p := waitTerminated(ctx, pod, time.Minute)
			tl := logs.wait(ctx, time.Minute)
			limit := time.Duration(grace)*time.Second + 2*time.Second

			// From the kubelet's start of the termination, which is the
			// first thing it does that a container sees (a SIGTERM or a
			// preStop hook), to the last container's exit: at most the
			// grace period plus 2 s, give or take the runtime's latency.
			var start time.Time
			for _, e := range tl {
				if e.Label == "sigterm" || e.Label == "prestop:hook-start" {
					start = e.At
					break
				}
			}
			if start.IsZero() {
				failRule("13", "no container logged a SIGTERM or a preStop hook\ntimeline seen:\n%s", tl)
			}
			var end time.Time
			var last, source string
			if exits != nil {
				source = "the runtime's exit times"
				for name, at := range exits.wait(time.Minute) {
					if at.After(end) {
						end, last = at, name
					}
				}
			} else {
				source = "finishedAt (1 s resolution, so a lower bound)"
				for _, st := range allStatuses(p) {
					if t := st.State.Terminated; t != nil && t.FinishedAt.After(end) {
						end, last = t.FinishedAt.Time, st.Name
					}
				}
			}
			took := end.Sub(start)
			GinkgoWriter.Printf("grace period %ds: the last container (%s) exited %v after the termination's first act (%s); "+
				"the suite saw every container stopped %v after the deletion\n", grace, last, took, source, observed.Sub(deleted))
			if took > limit+runtimeSlack {
				failRule("13", "pod with grace period %d s: the last container (%s) exited %v after the termination began (%s), want at most %v (+%v for the runtime)\ntimeline seen:\n%s",
					grace, last, took.Round(time.Millisecond), source, limit, runtimeSlack, tl)
			}
			// The same seen from the API: from the deletion to every
			// container reported stopped.
			if seen := observed.Sub(deleted); seen > limit+observationSlack {
				failRule("13", "pod with grace period %d s: every container was reported stopped %v after the deletion, want at most %v (+%v for the kubelet to see the deletion and report the exits)",
					grace, seen.Round(time.Millisecond), limit, observationSlack)
			}
		},
		Entry("containers that ignore SIGTERM", int64(6), env("IGNORE_SIGTERM=true")),
		Entry("preStop hooks longer than the grace period", int64(6), preStopHook("30s")),
	)

	It("[rule 14] does not restart a sidecar that exits during termination before its turn", func(ctx SpecContext) {
		pod := createPod(ctx, ns, newPod("exit-early",
			held(), gracePeriod(60), restartPolicy(v1.RestartPolicyAlways), sharedVolume(),
			sidecarsAnnotation("proxy,logger"),
			containers(
				// The app's preStop hook makes the logger exit, then takes 3 s.
				server("app", mountShared(), preStopHook("3s", "--touch", "/shared/stop")),
				server("proxy", readiness()),
				server("logger", readiness(), mountShared(), env("EXIT_WHEN_FILE=/shared/stop", "EXIT_CODE=0")),
			)))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		logs := followLogs(ctx, pod)
		deletePod(ctx, pod)
		p := waitTerminated(ctx, pod, 2*time.Minute)
		tl := logs.wait(ctx, time.Minute)
		// The premise: the logger exited before the app did, before its turn.
		tl.expectBefore("14 (premise)", first("logger", "exiting"), first("app", "exiting"))
		if n := len(tl.all("logger", "started")); n != 1 {
			failRule("14", "sidecar logger exited during termination and was started %d times\ntimeline seen:\n%s", n, tl)
		}
		Expect(status(p, "logger").RestartCount).To(BeZero(), ruleMsg("14", "sidecar that exited during termination restarted"))
		tl.expectOrder("12", first("app", "exiting"), first("proxy", "sigterm"))
	})

	It("[rule 12] stops annotated sidecars in reverse order, then native sidecars in reverse order; native preStop hooks start with the termination", func(ctx SpecContext) {
		sidecar := func(name string, opts ...containerOpt) v1.Container {
			return server(name, append([]containerOpt{env("DRAIN=1s")}, opts...)...)
		}
		pod := createPod(ctx, ns, newPod("mixed",
			held(), gracePeriod(60),
			sidecarsAnnotation("a1,a2"),
			initContainers(
				sidecar("n1", native(), preStopHook("0s")),
				sidecar("n2", native()),
			),
			containers(
				server("app", preStopHook("1s"), env("DRAIN=1s")),
				sidecar("a1", preStopHook("0s")),
				sidecar("a2"),
			)))
		waitPod(ctx, pod, 2*time.Minute, allRunning)
		// Startup: native sidecars (init phase), then annotated sidecars in
		// order, then the app.
		currentTimeline(ctx, pod, first("app", "started")).expectOrder("1, 2",
			first("n1", "started"), first("n2", "started"), first("a1", "started"), first("a2", "started"), first("app", "started"))

		logs := followLogs(ctx, pod)
		deletePod(ctx, pod)
		p := waitTerminated(ctx, pod, 2*time.Minute)
		tl := logs.wait(ctx, time.Minute)
		tl.expectOrder("12",
			first("app", "exiting"),
			first("a2", "sigterm"), first("a2", "exiting"),
			first("a1", "prestop:hook-start"), first("a1", "sigterm"), first("a1", "exiting"),
			first("n2", "sigterm"), first("n2", "exiting"),
			first("n1", "sigterm"), first("n1", "exiting"))
		// Native sidecars keep upstream's timing: preStop at termination start.
		tl.expectBefore("12", first("n1", "prestop:hook-start"), first("app", "exiting"))
		expectFinishedInOrder("12", p, []string{"app"}, []string{"a2"}, []string{"a1"}, []string{"n2"}, []string{"n1"})
	})
})
