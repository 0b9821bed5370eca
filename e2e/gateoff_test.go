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

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// "gate" is the contract's "Declaring sidecars": with the gate off the kubelet behaves
// exactly as upstream. The classic workarounds for sidecar ordering on
// upstream must then work as they do there.
var _ = Describe("Feature gate off", Ordered, Serial, Label("kubelet-restart"), func() {
	BeforeAll(func(ctx SpecContext) {
		requireKubeletRestart()
		DeferCleanup(func(ctx SpecContext) {
			restartKubelet(ctx, "KUBELET_FEATURE_GATES="+os.Getenv("KUBELET_FEATURE_GATES"))
			Expect(cluster.FeatureEnabled(ctx, FeatureGate)).To(Equal(1), "%s after restoring the kubelet (kubernetes_feature_enabled)", FeatureGate)
		}, NodeTimeout(5*time.Minute))
		restartKubelet(ctx, "KUBELET_FEATURE_GATES="+FeatureGate+"=false")
		Expect(cluster.FeatureEnabled(ctx, FeatureGate)).To(Equal(0),
			"the kubelet restarted with KUBELET_FEATURE_GATES=%s=false does not report the gate off (kubernetes_feature_enabled)", FeatureGate)
	}, NodeTimeout(5*time.Minute))

	var ns string
	BeforeEach(func(ctx SpecContext) { ns = cluster.NewNamespace(ctx, PodSecurityBaseline) })

	It("[gate] a postStart hook that waits for the sidecar holds the next container, as upstream", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("classic-poststart",
			Containers(
				TestServer("proxy", Port(9000), Readiness(), Env("READY_AFTER=4s"),
					PostStart("/testserver", "wait-ready", "--timeout", "60s", "http://127.0.0.1:9000/ready")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		tl := cluster.WaitForTimeline(ctx, pod, First("app", "started"))
		expectTimeline("gate", tl, HappenInOrder(First("proxy", "started"), First("proxy", "ready"), First("proxy", "wait-ready:hook-end"), First("app", "started")))
	})

	It("[gate] a sidecar's preStop hook that waits for the app keeps it up until the app exits, as upstream", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("classic-prestop",
			Held(), TerminationGracePeriod(60),
			Containers(
				TestServer("app", Port(9001), Env("DRAIN=3s")),
				TestServer("proxy", PreStop("/testserver", "wait-down", "--timeout", "60s", "http://127.0.0.1:9001/healthz")),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		logs := cluster.FollowLogs(ctx, pod)
		cluster.DeletePod(ctx, pod)
		cluster.WaitTerminated(ctx, pod, 2*time.Minute)
		tl := logs.Wait(ctx, time.Minute)
		// Upstream runs every preStop hook at once, and the hook holds the
		// proxy's SIGTERM until the app is gone.
		expectTimeline("gate", tl, HappenBefore(First("proxy", "wait-down:hook-start"), First("app", "exiting")))
		expectTimeline("gate", tl, HappenInOrder(First("app", "exiting"), First("proxy", "wait-down:hook-end"), First("proxy", "sigterm")))
	})

	It("[gate] ignores the sidecars annotation", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("annotation-ignored",
			AnnotatedSidecars("proxy"),
			Containers(
				TestServer("proxy", Readiness(), Env("READY_AFTER=never")),
				TestServer("app"),
			)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) { ExpectRunning(g, p, "proxy", "app") })
		Consistently(ctx, func() []string {
			var reasons []string
			for _, r := range forkEventReasons {
				for _, e := range cluster.PodEvents(ctx, pod, r) {
					reasons = append(reasons, e.Reason)
				}
			}
			return reasons
		}).Should(BeEmpty(), "contract rule 19: sidecar events recorded with the gate off")
	})

	It("[gate] passes the pod to the runtime unchanged, its annotations included", func(ctx SpecContext) {
		// The app names itself after the annotation, through the downward
		// API: upstream's kubelet resolves it from the pod as it is.
		app := TestServer("app")
		fromAnnotation := v1.EnvVar{Name: "NAME", ValueFrom: &v1.EnvVarSource{
			FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + sidecars.SidecarsAnnotation + "']"}}}
		app.Env = append(app.Env, fromAnnotation)
		pod := cluster.CreatePod(ctx, ns, NewPod("annotation-passed-on",
			AnnotatedSidecars("proxy"),
			Containers(TestServer("proxy"), app)))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		Eventually(ctx, func(g Gomega) {
			logs, err := cluster.ContainerLogs(ctx, pod, "app", false)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(logs).To(ContainSubstring(" name=proxy event=started"), "contract rule 19: the app read the annotation through the downward API")
		}).WithTimeout(time.Minute).Should(Succeed())
		var events []string
		for _, r := range forkEventReasons {
			for _, e := range cluster.PodEvents(ctx, pod, r) {
				events = append(events, e.Reason+": "+e.Message)
			}
		}
		Expect(events).To(BeEmpty(), "contract rule 19: the fork's events with the gate off")
	})
})

// forkEventReasons are the reasons of every event the fork records.
var forkEventReasons = []string{
	sidecars.ReasonWaitingForSidecars, sidecars.ReasonSidecarsReady, sidecars.ReasonTerminatingSidecars,
	sidecars.ReasonInvalidSidecarAnnotation, sidecars.ReasonSidecarAnnotationChanged,
}

// contract rule 19: switching the gate with pods running restarts nothing and
// never produces a status the API server refuses. The pod is the hardest
// case for the status: restartPolicy Never, with an annotated sidecar that
// the fork restarted (rule 7), which upstream's rules would not allow.
var _ = Describe("Feature gate switched under running pods", Ordered, Serial, Label("kubelet-restart"), func() {
	BeforeAll(func(ctx SpecContext) {
		requireKubeletRestart()
		DeferCleanup(func(ctx SpecContext) {
			restartKubelet(ctx, "KUBELET_FEATURE_GATES="+os.Getenv("KUBELET_FEATURE_GATES"))
		}, NodeTimeout(5*time.Minute))
	})

	It("[gate] restarts no container and writes only statuses the API accepts, switched off and on again", func(ctx SpecContext) {
		ns := cluster.NewNamespace(ctx, PodSecurityBaseline)
		pod := cluster.CreatePod(ctx, ns, NewPod("gate-switch",
			PodRestartPolicy(v1.RestartPolicyNever), SharedVolume(),
			AnnotatedSidecars("proxy", "logger"),
			Containers(
				// The app's postStart hook makes the logger crash once.
				TestServer("app", Readiness(), MountShared(), PostStart("/testserver", "hook", "--name", "poststart", "--touch", "/shared/crash")),
				TestServer("proxy", Readiness()),
				TestServer("logger", Readiness(), MountShared(), Env("EXIT_WHEN_FILE=/shared/crash", "REMOVE_SEEN_FILE=true", "EXIT_CODE=1")),
			)))
		// The premise: the fork restarted the sidecar of a Never pod.
		var before *v1.Pod
		Eventually(ctx, func(g Gomega) {
			before = cluster.GetPod(ctx, pod)
			g.Expect(before.Status.Phase).To(Equal(v1.PodRunning))
			g.Expect(ContainerStatusOf(before, "logger").RestartCount).To(BeNumerically("==", 1))
			for _, st := range before.Status.ContainerStatuses {
				g.Expect(st.Ready).To(BeTrue(), "container %s ready", st.Name)
			}
		}).WithTimeout(2*time.Minute).Should(Succeed(), "the logger crashed once and was started again (rule 7)")
		refusedBefore, err := cluster.PodStatusRefusals(ctx)
		Expect(err).NotTo(HaveOccurred())

		unchanged := func(step string) {
			GinkgoHelper()
			Consistently(ctx, func(g Gomega) {
				now := cluster.GetPod(ctx, pod)
				g.Expect(now.Status.Phase).To(Equal(v1.PodRunning), "phase %s", step)
				for _, was := range before.Status.ContainerStatuses {
					st := ContainerStatusOf(now, was.Name)
					g.Expect(st.ContainerID).To(Equal(was.ContainerID), "container %s %s", was.Name, step)
					g.Expect(st.RestartCount).To(Equal(was.RestartCount), "restarts of %s %s", was.Name, step)
					g.Expect(st.Ready).To(BeTrue(), "container %s ready %s", was.Name, step)
				}
			}).WithTimeout(20*time.Second).WithPolling(2*time.Second).Should(Succeed(), "contract rule 19: switching the gate restarts nothing")
			refused, err := cluster.PodStatusRefusals(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(refused-refusedBefore).To(BeZero(), "contract rule 19: pod statuses the API server refused (400, 422) %s", step)
		}
		restartKubelet(ctx, "KUBELET_FEATURE_GATES="+FeatureGate+"=false")
		Expect(cluster.FeatureEnabled(ctx, FeatureGate)).To(Equal(0))
		unchanged("after the gate was switched off")
		restartKubelet(ctx, "KUBELET_FEATURE_GATES="+os.Getenv("KUBELET_FEATURE_GATES"))
		Expect(cluster.FeatureEnabled(ctx, FeatureGate)).To(Equal(1))
		unchanged("after the gate was switched on again")
	})
})
