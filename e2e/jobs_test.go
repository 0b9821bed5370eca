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
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
)

// Jobs: how the Job controller's podFailurePolicy sees a pod whose annotated
// sidecars the kubelet stopped (docs/jobs.md). The pod phase comes from the
// app alone (rule 10), but the sidecars' exit codes stay in the pod's
// containerStatuses, and an onExitCodes rule without containerName checks
// every container's non-zero exit code.
var _ = Describe("Jobs", func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = cluster.NewNamespace(ctx, PodSecurityBaseline) })

	// How the kubelet's stop ends the sidecar: 143 after SIGTERM (the
	// testserver's TERM_EXIT_CODE=143, as a process killed by SIGTERM; its
	// default, 0, would be invisible to onExitCodes), or 137 when it ignores
	// SIGTERM and the runtime kills it once the pod's 2 s grace period has
	// passed.
	const (
		sigterm = int32(143)
		sigkill = int32(137)
	)
	// What the Job does: fail at once through the rule, or retry the pod
	// (backoffLimit 1: a second pod) and fail through backoffLimit.
	const (
		failJob = batchv1.JobReasonPodFailurePolicy
		retry   = batchv1.JobReasonBackoffLimitExceeded
	)

	// jobTemplate is the pod template: an app exiting 3 after 1 s beside an
	// annotated sidecar "proxy" that the kubelet stops when the app is done.
	jobTemplate := func(sidecarExit int32) v1.PodTemplateSpec {
		proxy := TestServer("proxy", Readiness(), Env("TERM_EXIT_CODE=143"))
		grace := int64(30)
		if sidecarExit == sigkill {
			proxy = TestServer("proxy", Readiness(), Env("IGNORE_SIGTERM=true"))
			grace = 2
		}
		pod := NewPod("job",
			AnnotatedSidecars("proxy"),
			TerminationGracePeriod(grace),
			Containers(proxy, TestServer("app", Env("EXIT_AFTER=1s", "EXIT_CODE=3"))))
		cluster.CompletePodSpec(&pod.Spec)
		return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: pod.Annotations}, Spec: pod.Spec}
	}

	// createJob runs the template as a Job with one podFailurePolicy rule.
	createJob := func(ctx SpecContext, template v1.PodTemplateSpec, backoffLimit int32, rule batchv1.PodFailurePolicyRule) *batchv1.Job {
		GinkgoHelper()
		job, err := cluster.Client.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "job"},
			Spec: batchv1.JobSpec{
				BackoffLimit:     ptr.To(backoffLimit),
				PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{rule}},
				Template:         template,
			},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		return job
	}

	// jobPods lists the Job's pods and describes them.
	jobPods := func(ctx SpecContext, job *batchv1.Job) ([]v1.Pod, string) {
		GinkgoHelper()
		pods, err := cluster.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + job.Name})
		Expect(err).NotTo(HaveOccurred())
		var seen []string
		for i := range pods.Items {
			p := &pods.Items[i]
			seen = append(seen, fmt.Sprintf("pod %s phase %s", p.Name, p.Status.Phase), DescribeStatuses(p))
		}
		return pods.Items, strings.Join(seen, "\n")
	}

	// expectFailedPod checks a finished pod of the Job: Failed, the app's 3
	// and the sidecar's exit code in its statuses, nothing restarted.
	expectFailedPod := func(p *v1.Pod, sidecarExit int32) {
		GinkgoHelper()
		Expect(p.Status.Phase).To(Equal(v1.PodFailed), ruleMsg("10", "pod %s: phase of a pod whose app exited 3", p.Name))
		app, sidecar := ContainerStatusOf(p, "app"), ContainerStatusOf(p, "proxy")
		Expect(app.State.Terminated).NotTo(BeNil(), ruleMsg("10", "pod %s: %s", p.Name, DescribeStatus(*app)))
		Expect(app.State.Terminated.ExitCode).To(Equal(int32(3)), ruleMsg("10", "pod %s: the app's exit code", p.Name))
		Expect(sidecar.State.Terminated).NotTo(BeNil(), ruleMsg("10", "pod %s: sidecar not stopped: %s", p.Name, DescribeStatus(*sidecar)))
		Expect(sidecar.State.Terminated.ExitCode).To(Equal(sidecarExit), ruleMsg("10", "pod %s: the sidecar's exit code: %s", p.Name, DescribeStatus(*sidecar)))
		Expect(sidecar.RestartCount).To(BeZero(), ruleMsg("10", "pod %s: sidecar restarted", p.Name))
	}

	// trueConditions describes the Job's true conditions.
	trueConditions := func(j *batchv1.Job) []string {
		var conds []string
		for _, c := range j.Status.Conditions {
			if c.Status == v1.ConditionTrue {
				conds = append(conds, fmt.Sprintf("%s (%s: %s)", c.Type, c.Reason, c.Message))
			}
		}
		return conds
	}

	DescribeTable("[rule 10] podFailurePolicy onExitCodes rules without containerName see the sidecar's exit code; with containerName: app they see the app's",
		func(ctx SpecContext, sidecarExit int32, containerName string, op batchv1.PodFailurePolicyOnExitCodesOperator, values []int32, want string) {
			onExitCodes := &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: values}
			if containerName != "" {
				onExitCodes.ContainerName = ptr.To(containerName)
			}
			job := createJob(ctx, jobTemplate(sidecarExit), 1, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: onExitCodes})
			started := time.Now()

			var failed *batchv1.JobCondition
			Eventually(ctx, func(g Gomega) {
				j, err := cluster.Client.BatchV1().Jobs(ns).Get(ctx, job.Name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				job, failed = j, nil
				for i, c := range j.Status.Conditions {
					if c.Type == batchv1.JobFailed && c.Status == v1.ConditionTrue {
						failed = &j.Status.Conditions[i]
					}
				}
				g.Expect(trueConditions(j)).NotTo(ContainElement(HavePrefix(string(batchv1.JobComplete))), "a Job whose app exits 3 completed")
				g.Expect(failed).NotTo(BeNil(), "Job not Failed yet (is kube-controller-manager running?)")
			}).WithTimeout(2*time.Minute).Should(Succeed(), func() string {
				return fmt.Sprintf("contract rule 10: want the Job Failed with reason %s; conditions seen: %v", want, trueConditions(job))
			})
			GinkgoWriter.Printf("Job Failed after %v: %s: %s\n", time.Since(started).Round(time.Second), failed.Reason, failed.Message)

			pods, seen := jobPods(ctx, job)
			GinkgoWriter.Printf("the Job's pods:\n%s\n", seen)
			Expect(failed.Reason).To(Equal(want), ruleMsg("10", "the Job's Failed condition: %s: %s; its pods:\n%s", failed.Reason, failed.Message, seen))
			wantPods := 1
			if want == retry {
				wantPods = 2
			}
			Expect(pods).To(HaveLen(wantPods), ruleMsg("10", "want %d pods (backoffLimit 1), saw:\n%s", wantPods, seen))
			Expect(job.Status.Failed).To(BeEquivalentTo(wantPods), ruleMsg("10", "the Job's status.failed"))
			for i := range pods {
				expectFailedPod(&pods[i], sidecarExit)
			}
			if want == failJob {
				// The rule matched the sidecar, not the app.
				Expect(failed.Message).To(Equal(fmt.Sprintf("Container proxy for pod %s/%s failed with exit code %d matching FailJob rule at index 0",
					ns, pods[0].Name, sidecarExit)), ruleMsg("10", "the Job's Failed message"))
			}
		},
		Entry("In [143] without containerName: the sidecar's 143 fails the Job after its first pod",
			sigterm, "", batchv1.PodFailurePolicyOnExitCodesOpIn, []int32{143}, failJob),
		Entry("In [143] with containerName app: no match, the Job retries and fails through backoffLimit",
			sigterm, "app", batchv1.PodFailurePolicyOnExitCodesOpIn, []int32{143}, retry),
		Entry("NotIn [0, 3] without containerName: the sidecar's 137 (SIGKILL) fails the Job, though the app exited the retryable 3",
			sigkill, "", batchv1.PodFailurePolicyOnExitCodesOpNotIn, []int32{0, 3}, failJob),
		Entry("NotIn [0, 3] with containerName app: the app's 3 is retryable, the Job retries and fails through backoffLimit",
			sigkill, "app", batchv1.PodFailurePolicyOnExitCodesOpNotIn, []int32{0, 3}, retry),
	)

	It("[rule 10] podFailurePolicy Ignore In [143] without containerName ignores every failed pod: the Job retries past backoffLimit 0", func(ctx SpecContext) {
		job := createJob(ctx, jobTemplate(sigterm), 0, batchv1.PodFailurePolicyRule{
			Action:      batchv1.PodFailurePolicyActionIgnore,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{143}},
		})
		var pods []v1.Pod
		var seen string
		Eventually(ctx, func() []v1.Pod {
			pods, seen = jobPods(ctx, job)
			return pods
		}).WithTimeout(time.Minute).Should(HaveLen(2), func() string {
			return "contract rule 10: want a second pod of a Job with backoffLimit 0 whose failed pod the Ignore rule matched; pods seen:\n" + seen
		})
		GinkgoWriter.Printf("the Job's pods:\n%s\n", seen)
		j, err := cluster.Client.BatchV1().Jobs(ns).Get(ctx, job.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(trueConditions(j)).To(BeEmpty(), ruleMsg("10", "the Job's conditions once its second pod exists"))
		Expect(j.Status.Failed).To(BeZero(), ruleMsg("10", "the Job's status.failed: the ignored failure counted"))
		// The older pod has failed, through its app's 3; the Ignore rule
		// matched its sidecar's 143.
		first := &pods[0]
		if pods[1].CreationTimestamp.Before(&first.CreationTimestamp) {
			first = &pods[1]
		}
		expectFailedPod(first, sigterm)
	})
})
