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

// Package podorder asserts the order in which a pod's containers start and
// stop on a node running sidecar-kubelet, from a ginkgo suite: sidecar-kubelet's
// own e2e suite (e2e/) and yours.
//
// It has four parts:
//
//   - pod builders: NewPod with Containers, InitContainers,
//     AnnotatedSidecars, WaitReady, Held, ...; TestServer containers of the
//     test image (e2e/images/testserver) with Env, Readiness, Native,
//     PreStopHook, ... Cluster.CreatePod pins the pod to the cluster's node
//     and fills in the image.
//   - timelines: what happened to a pod and its containers, in time order
//     (TimelineEntry), for any image: Cluster.Timeline and
//     Cluster.WaitForTimeline read what the API says (PodTimeline: the
//     container statuses' startedAt and finishedAt and the kubelet's
//     conditions, to the second; the kubelet's events, Created, Started,
//     Killing, ..., to the nanosecond where their names say so), refined
//     by the test server's RFC3339Nano log lines where a container runs
//     the test image (its readiness, signals and hooks, to the
//     nanosecond). LogTimeline and Cluster.FollowLogs, for a pod being
//     deleted, read the lines alone. Each entry says its Source and
//     Resolution; an order holds only where the times prove it.
//   - gomega matchers of a Timeline or a pod: StartInOrder, StopInOrder,
//     StopInReverseOrder, StopInStages, StartAfterReady, HappenInOrder,
//     HappenBefore. A failure names the entries that broke the order and
//     their times, a negated one those that kept it; both show the whole
//     timeline.
//   - cluster helpers for any cluster: Connect (kubeconfig, a Ready
//     schedulable node, the test image present on it, checked by running it
//     with imagePullPolicy Never), Cluster.NewNamespace with Pod Security
//     labels (NewNamespaceLabelled with more, e.g. AdmissionPolicyLabel),
//     waits and watches of pods, events, and the kubelet's feature gate
//     (Cluster.FeatureEnabled).
//
// A suite of your own:
//
//	import (
//		. "github.com/onsi/ginkgo/v2"
//		. "github.com/onsi/gomega"
//		po "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
//	)
//
//	var cluster *po.Cluster
//
//	var _ = BeforeSuite(func(ctx SpecContext) {
//		cluster = po.Connect(ctx, po.Options{}) // $KUBECONFIG, any Ready node
//	})
//
//	var _ = It("starts the proxy before the app", func(ctx SpecContext) {
//		ns := cluster.NewNamespace(ctx, po.PodSecurityBaseline)
//		pod := cluster.CreatePod(ctx, ns, po.NewPod("demo",
//			po.AnnotatedSidecars("proxy"),
//			po.Containers(
//				po.TestServer("app"),
//				po.TestServer("proxy", po.Readiness(), po.Env("READY_AFTER=2s")),
//			)))
//		cluster.WaitPod(ctx, pod, 2*time.Minute, po.AllRunning)
//		tl := cluster.WaitForTimeline(ctx, pod, po.First("app", po.EventStarted))
//		Expect(tl).To(po.StartInOrder("proxy", "app"))
//		Expect(tl).To(po.StartAfterReady("app", "proxy"))
//	})
//
// With images of your own (Options.SkipImageCheck, and an Image in each
// container, which CreatePod leaves as it is), the timeline is the API's:
// starts and exits to the second, the kubelet's events to the nanosecond.
//
//	tl := cluster.WaitForTimeline(ctx, pod, po.First("app", po.KubeletEvent("Created")))
//	Expect(tl).To(po.HappenInOrder(po.First("proxy", po.KubeletEvent("Started")), po.First("app", po.KubeletEvent("Created"))))
//	pod = cluster.WaitTerminated(ctx, pod, time.Minute) // a Held pod, deleted
//	Expect(cluster.Timeline(ctx, pod)).To(po.StopInOrder("app", "proxy")) // exits a second apart or more
//
// The helpers fail the running spec through ginkgo and gomega; the
// timelines and matchers need neither a cluster nor ginkgo.
package podorder
