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
	"context"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// The kubelet's side of rule 16, in namespaces the admission policy skips
// (AdmissionPolicyLabel=skip): where the policy is installed it refuses
// these pods at create (admission_test.go), and these specs check the
// kubelet of clusters without it.
var _ = Describe("Malformed annotations", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		ns = cluster.NewNamespaceLabelled(ctx, PodSecurityBaseline, map[string]string{AdmissionPolicyLabel: AdmissionPolicySkip})
	})

	DescribeTable("[rule 16] record one Warning InvalidSidecarAnnotation and run the pod as upstream",
		func(ctx SpecContext, annotations map[string]string, wantMessage string) {
			pod := cluster.CreatePod(ctx, ns, malformedPod(annotations))
			cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
				g.Expect(p.Status.Phase).To(Equal(v1.PodRunning))
				ExpectRunning(g, p, "proxy", "app")
			})
			expectOneEvent(ctx, "16", pod, v1.EventTypeWarning, sidecars.ReasonInvalidSidecarAnnotation, wantMessage)
			Expect(cluster.PodEvents(ctx, pod, sidecars.ReasonWaitingForSidecars)).To(BeEmpty(), ruleMsg("16", "a pod with a malformed annotation waited for sidecars"))
		},
		malformedEntries,
	)

	// A value of n unknown names once cost the kubelet about 2n² bytes per
	// parse: 64 KiB took it from 106 MiB to 4.5 GiB, 256 KiB had it killed
	// for memory at every restart. The bound below is far above the
	// kubelet's own swings and far below what the quadratic parse took.
	It("[rule 16] reads an annotation as long as the API accepts at little cost to the kubelet", func(ctx SpecContext) {
		const maxGrowth = 64 << 20
		before := kubeletResidentBytes(ctx)
		// The API server accepts 256 KiB of annotations in all, keys included.
		value := strings.Repeat("nosuch,", (256<<10-len(sidecars.SidecarsAnnotation)-1024)/len("nosuch,"))
		pod := NewPod("long-annotation", Containers(TestServer("proxy"), TestServer("app")))
		pod.Annotations[sidecars.SidecarsAnnotation] = value
		pod = cluster.CreatePod(ctx, ns, pod)
		cluster.WaitPod(ctx, pod, 2*time.Minute, func(g Gomega, p *v1.Pod) {
			g.Expect(p.Status.Phase).To(Equal(v1.PodRunning))
			ExpectRunning(g, p, "proxy", "app")
		})
		e := expectOneEvent(ctx, "16", pod, v1.EventTypeWarning, sidecars.ReasonInvalidSidecarAnnotation, "longer than any valid value")
		Expect(len(e.Message)).To(BeNumerically("<=", sidecars.MaxEventMessage), ruleMsg("16", "the event's message is %d bytes", len(e.Message)))
		after := kubeletResidentBytes(ctx)
		GinkgoWriter.Printf("kubelet resident memory: %d MiB before, %d MiB after a pod with a %d KiB annotation\n", before>>20, after>>20, len(value)>>10)
		Expect(after-before).To(BeNumerically("<", maxGrowth), ruleMsg("16", "the kubelet grew from %d MiB to %d MiB", before>>20, after>>20))
	})
})

// malformedPod is the pod of the malformed annotations' specs, with these
// annotations: the init container setup, the sidecar proxy that is never
// ready, and the app.
func malformedPod(annotations map[string]string) *v1.Pod {
	pod := NewPod("malformed",
		InitContainers(TestServer("setup", Env("EXIT_AFTER=500ms"))),
		Containers(
			// Were the annotation obeyed, the app would wait for ever.
			TestServer("proxy", Readiness(), Env("READY_AFTER=never")),
			TestServer("app"),
		))
	for k, v := range annotations {
		pod.Annotations[k] = v
	}
	return pod
}

// malformedEntries are the malformed annotations of malformedPod that the
// kubelet reports (annotations_test.go) and the admission policy refuses
// (admission_test.go): each with what the message must say.
var malformedEntries = []TableEntry{
	Entry("unknown container", map[string]string{sidecars.SidecarsAnnotation: "proxy,nosuch"}, `"nosuch" is not a container of the pod`),
	Entry("duplicate", map[string]string{sidecars.SidecarsAnnotation: "proxy,proxy"}, `"proxy" is listed twice`),
	Entry("empty item", map[string]string{sidecars.SidecarsAnnotation: "proxy,,"}, "is empty"),
	Entry("empty value", map[string]string{sidecars.SidecarsAnnotation: " "}, "names no container"),
	Entry("init container", map[string]string{sidecars.SidecarsAnnotation: "setup"}, `"setup" is an init container`),
	Entry("every container", map[string]string{sidecars.SidecarsAnnotation: "proxy,app"}, "names every container"),
	Entry("wait-ready not a boolean", map[string]string{sidecars.SidecarsAnnotation: "proxy", sidecars.WaitReadyAnnotation: "yes"}, "not a boolean"),
}

// kubeletResidentBytes reads the kubelet's process_resident_memory_bytes.
func kubeletResidentBytes(ctx context.Context) int64 {
	GinkgoHelper()
	metrics, err := cluster.KubeletGet(ctx, "/metrics")
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(metrics), "\n") {
		if value, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			bytes, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			Expect(err).NotTo(HaveOccurred())
			return int64(bytes)
		}
	}
	Fail("the kubelet's metrics have no process_resident_memory_bytes")
	return 0
}
