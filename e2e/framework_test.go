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
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
)

// The suite's helpers beyond those of e2e/podorder: failures that name the
// contract's rule, and the kubelet's restart.

// ---------------------------------------------------------------------------
// Failures that name the rule.

// failRule fails the spec with a message that starts with the contract rule.
func failRule(rule, format string, args ...any) {
	GinkgoHelper()
	Fail(fmt.Sprintf("contract rule %s: ", rule) + fmt.Sprintf(format, args...))
}

// ruleMsg is an optional description for gomega assertions about a rule.
func ruleMsg(rule, format string, args ...any) func() string {
	return func() string { return fmt.Sprintf("contract rule %s: ", rule) + fmt.Sprintf(format, args...) }
}

// expectTimeline checks the timeline with a podorder matcher; a failure
// starts with the contract rule.
func expectTimeline(rule string, tl Timeline, m OmegaMatcher) {
	GinkgoHelper()
	Expect(tl).To(m, "contract rule %s:", rule)
}

// mustAt is when the point happened; the spec fails if the timeline lacks it.
func mustAt(rule string, tl Timeline, p Point) time.Time {
	GinkgoHelper()
	at, ok := tl.At(p)
	if !ok {
		failRule(rule, "no %q line in container %s's log\ntimeline seen:\n%s", p.Label, p.Container, tl)
	}
	return at
}

// expectOneEvent waits for an event of the pod with the reason, then checks
// for a while that there is exactly one, of the type, and that its message
// contains every string of contains.
func expectOneEvent(ctx context.Context, rule string, p *v1.Pod, eventType, reason string, contains ...string) v1.Event {
	GinkgoHelper()
	Eventually(ctx, func() []v1.Event { return cluster.PodEvents(ctx, p, reason) }).
		WithTimeout(time.Minute).ShouldNot(BeEmpty(), ruleMsg(rule, "no %s event for pod %s", reason, p.Name))
	Consistently(ctx, func() int { return EventCount(cluster.PodEvents(ctx, p, reason)) }).
		WithTimeout(10*time.Second).Should(Equal(1), func() string {
		msg := fmt.Sprintf("contract rule %s: want exactly one %s event for pod %s, saw %s", rule, reason, p.Name, DescribeEvents(cluster.PodEvents(ctx, p, reason)))
		if at := cluster.KubeletStartedSince(ctx, CurrentSpecReport().StartTime); !at.IsZero() {
			msg += fmt.Sprintf(" (note: a kubelet started at %s, during this spec, not restarted by it; a restarted kubelet may record an event again)",
				at.UTC().Format(time.RFC3339))
		}
		return msg
	})
	e := cluster.PodEvents(ctx, p, reason)[0]
	if e.Type != eventType {
		failRule(rule, "want a %s event %s, saw %s", eventType, reason, DescribeEvents([]v1.Event{e}))
	}
	for _, s := range contains {
		if !strings.Contains(e.Message, s) {
			failRule(rule, "want the %s event's message to mention %q, saw %q", reason, s, e.Message)
		}
	}
	return e
}

// ---------------------------------------------------------------------------
// The node's kubelet.

// requireKubeletRestart skips the spec when the suite cannot restart the
// kubelet.
func requireKubeletRestart() {
	if restartCommand == "" {
		Skip("SIDECAR_E2E_KUBELET_RESTART is not set: it names the command that restarts the node's kubelet " +
			"(make e2e sets it to hack/kubelet-restart.sh for the local cluster)")
	}
}

// restartKubelet runs the restart command with extra environment
// ("KEY=value") and waits until the kubelet is back: it answers /healthz and
// has renewed its node lease since, and the node is Ready.
func restartKubelet(ctx context.Context, extraEnv ...string) {
	GinkgoHelper()
	requireKubeletRestart()
	started := time.Now()
	By(fmt.Sprintf("restarting the kubelet: %s %s", strings.Join(extraEnv, " "), restartCommand))
	out, err := runRestartCommand(ctx, extraEnv)
	Expect(err).NotTo(HaveOccurred(), "restarting the kubelet with %q:\n%s", restartCommand, out)
	GinkgoWriter.Printf("kubelet restart took %v:\n%s\n", time.Since(started).Round(time.Millisecond), out)
	Eventually(ctx, func(g Gomega) {
		body, err := cluster.KubeletGet(ctx, "/healthz")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(body)).To(Equal("ok"))
		lease, err := cluster.Client.CoordinationV1().Leases("kube-node-lease").Get(ctx, cluster.Node, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
		g.Expect(lease.Spec.RenewTime.After(started)).To(BeTrue(), "node lease not renewed since the restart")
		node, err := cluster.Client.CoreV1().Nodes().Get(ctx, cluster.Node, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(IsNodeReady(node)).To(BeTrue(), "node not Ready")
	}).WithTimeout(2*time.Minute).Should(Succeed(), "the kubelet did not come back after %q", restartCommand)
}

// runRestartCommand runs the restart command through bash, with the
// suite's environment plus extraEnv, and returns its output.
func runRestartCommand(ctx context.Context, extraEnv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", restartCommand)
	// NODE_NAME: the node the suite runs on, for a command that restarts
	// the kubelet of one node among several (a kind cluster: docker exec
	// "$NODE_NAME" systemctl restart kubelet).
	cmd.Env = append(append(os.Environ(), "NODE_NAME="+cluster.Node), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
