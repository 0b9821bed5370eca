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
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarevents"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// admissionPolicyName names both the ValidatingAdmissionPolicy and its
// binding in deploy/sidecar-annotation-policy.yaml.
const admissionPolicyName = "sidecar-annotations.sidecar-kubelet.io"

// The API server's side of rule 16: the admission policy, which make up
// and make kind-up install. On a cluster without it these specs skip.
var _ = Describe("Admission policy", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		ns = cluster.NewNamespace(ctx, PodSecurityBaseline)
		requireAdmissionPolicy(ctx, ns)
	})

	DescribeTable("[rule 16] refuses a malformed annotation at create with the kubelet's message; the pod is never created",
		func(ctx SpecContext, annotations map[string]string, wantMessage string) {
			pod := completedPod(malformedPod(annotations))
			problems := sidecars.Decide(pod, pod.Annotations).Err
			Expect(problems).To(HaveOccurred(), "the kubelet accepts these annotations: not a case of this table")
			_, err := cluster.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
			expectRefused(err, problems.Error())
			Expect(err.Error()).To(ContainSubstring(wantMessage), ruleMsg("16", "the refusal does not say what is wrong"))

			// Admission comes before storage: nothing of the pod is kept.
			// (Reads from etcd; a watch could say so too, but on a quiet
			// cluster the API server's watch cache of pods lags etcd and
			// refuses a watch from now with "Too large resource version".)
			_, err = cluster.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), ruleMsg("16", "the refused pod %s exists: get says %v", pod.Name, err))
			pods, err := cluster.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(pods.Items).To(BeEmpty(), ruleMsg("16", "the namespace of the refused pod has pods"))
		},
		append(slices.Clone(malformedEntries),
			// The API accepts 256 KiB of annotations in all, keys included;
			// the kubelet's side is annotations_test.go's long-value spec.
			Entry("longer than any valid value", map[string]string{
				sidecars.SidecarsAnnotation: strings.Repeat("nosuch,", (256<<10-len(sidecars.SidecarsAnnotation)-1024)/len("nosuch,")),
			}, "longer than any valid value for this pod"),
		),
	)

	It("[rule 16] admits a pod whose annotations are valid, and the kubelet orders its sidecars", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("valid",
			AnnotatedSidecars("proxy"), WaitReady(),
			Containers(TestServer("app"), TestServer("proxy", Readiness(), Env("READY_AFTER=1s")))))
		cluster.WaitPod(ctx, pod, 2*time.Minute, AllRunning)
		expectOneEvent(ctx, "16", pod, v1.EventTypeNormal, sidecars.ReasonSidecarsReady)
		Expect(cluster.PodEvents(ctx, pod, sidecars.ReasonInvalidSidecarAnnotation)).To(BeEmpty(),
			ruleMsg("16", "the kubelet found the annotations of an admitted pod malformed"))
	})

	It("[rule 16] refuses an update that makes the annotation malformed, and admits one that leaves it as it is", func(ctx SpecContext) {
		pod := cluster.CreatePod(ctx, ns, NewPod("updated",
			AnnotatedSidecars("proxy"),
			Containers(TestServer("app"), TestServer("proxy"))))

		By("changing the annotation to name a container the pod does not have")
		changed := pod.DeepCopy()
		changed.Annotations[sidecars.SidecarsAnnotation] = "proxy,nosuch"
		problems := sidecars.Decide(changed, changed.Annotations).Err
		Expect(problems).To(HaveOccurred())
		_, err := cluster.Client.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.MergePatchType,
			[]byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:"proxy,nosuch"}}}`, sidecars.SidecarsAnnotation)), metav1.PatchOptions{})
		expectRefused(err, problems.Error())
		Expect(cluster.GetPod(ctx, pod).Annotations).To(HaveKeyWithValue(sidecars.SidecarsAnnotation, "proxy"),
			ruleMsg("16", "the refused update changed the pod"))

		By("changing a label, the annotation left as it is")
		cluster.PatchPod(ctx, pod, map[string]any{"metadata": map[string]any{"labels": map[string]string{"e2e-updated": "yes"}}})
	})

	// The kubelet's event and the policy's refusal, of one pod with four
	// problems (an empty item, a repeat, an init container, wait-ready; the
	// value within the 14 bytes the pod allows): the event is the refusal's
	// text after the kubelet's words.
	It("[rule 16] refuses with the very text of the kubelet's InvalidSidecarAnnotation event", func(ctx SpecContext) {
		annotations := map[string]string{
			sidecars.SidecarsAnnotation:  "app,,app,setup",
			sidecars.WaitReadyAnnotation: "maybe",
		}
		problems := sidecars.Decide(completedPod(malformedPod(annotations)), annotations).Err
		Expect(problems).To(HaveOccurred())
		Expect(strings.Count(problems.Error(), "sidecar-kubelet.io/")).To(Equal(4), "want four problems, the kubelet finds: %v", problems)
		_, err := cluster.Client.CoreV1().Pods(ns).Create(ctx, completedPod(malformedPod(annotations)), metav1.CreateOptions{})
		expectRefused(err, problems.Error())
		_, refusal, _ := strings.Cut(err.Error(), "denied request: ")

		skipped := cluster.NewNamespaceLabelled(ctx, PodSecurityBaseline, map[string]string{AdmissionPolicyLabel: AdmissionPolicySkip})
		pod := cluster.CreatePod(ctx, skipped, malformedPod(annotations))
		event := expectOneEvent(ctx, "16", pod, v1.EventTypeWarning, sidecars.ReasonInvalidSidecarAnnotation)
		Expect(event.Message).To(Equal(sidecarevents.InvalidAnnotation(errors.New(refusal)).Message),
			ruleMsg("16", "the kubelet's event and the policy's refusal differ"))
	})
})

// requireAdmissionPolicy skips the spec when the cluster lacks the policy
// or its binding, and waits until the API server enforces them: a
// server-side dry run of a malformed pod in ns is refused.
func requireAdmissionPolicy(ctx context.Context, ns string) {
	GinkgoHelper()
	admission := cluster.Client.AdmissionregistrationV1()
	_, err := admission.ValidatingAdmissionPolicies().Get(ctx, admissionPolicyName, metav1.GetOptions{})
	if err == nil {
		_, err = admission.ValidatingAdmissionPolicyBindings().Get(ctx, admissionPolicyName, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		Skip("the cluster has no admission policy " + admissionPolicyName + ": kubectl apply -f deploy/sidecar-annotation-policy.yaml " +
			"(make up and make kind-up apply it)")
	}
	Expect(err).NotTo(HaveOccurred())
	probe := completedPod(NewPod("policy-probe", AnnotatedSidecars("nosuch"), Containers(TestServer("app"))))
	Eventually(ctx, func() error {
		_, err := cluster.Client.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), admissionPolicyName) {
			return fmt.Errorf("a dry run of a pod whose annotation names no container of it was not refused by the policy: %v", err)
		}
		return nil
	}).WithTimeout(30*time.Second).Should(Succeed(), "the admission policy %s is installed but not enforced", admissionPolicyName)
}

// expectRefused checks that err is the policy's refusal of a request:
// 422 Invalid, naming the policy, with the kubelet's text.
func expectRefused(err error, kubeletText string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), ruleMsg("16", "the request was admitted; the kubelet would report: %s", kubeletText))
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), ruleMsg("16", "the refusal is not 422 Invalid: %v", err))
	Expect(err.Error()).To(HaveSuffix("ValidatingAdmissionPolicy '"+admissionPolicyName+"' with binding '"+admissionPolicyName+"' denied request: "+kubeletText),
		ruleMsg("16", "the refusal is not the policy's with the kubelet's text"))
}

// completedPod is the pod with its spec completed for the cluster's node
// and test image, as CreatePod completes it.
func completedPod(pod *v1.Pod) *v1.Pod {
	cluster.CompletePodSpec(&pod.Spec)
	return pod
}
