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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The suite's view of the cluster, set up by BeforeSuite in every ginkgo
// process.
var (
	cs         kubernetes.Interface
	restConfig *rest.Config
	nodeName   string
	image      string
	// restartCommand restarts the node's kubelet (SIDECAR_E2E_KUBELET_RESTART).
	restartCommand string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(2 * time.Minute)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	SetDefaultConsistentlyDuration(5 * time.Second)
	SetDefaultConsistentlyPollingInterval(500 * time.Millisecond)
	RunSpecs(t, "sidecar-kubelet e2e")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path := os.Getenv("SIDECAR_E2E_KUBECONFIG"); path != "" {
		rules.ExplicitPath = path
	} else if os.Getenv("KUBECONFIG") == "" {
		Fail("neither SIDECAR_E2E_KUBECONFIG nor KUBECONFIG is set: the e2e suite needs a cluster " +
			"(`make up && make e2e` for the local one, or KUBECONFIG=<kind cluster's kubeconfig>)")
	}
	var err error
	restConfig, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	Expect(err).NotTo(HaveOccurred(), "loading the kubeconfig")
	restConfig.QPS, restConfig.Burst = 50, 100
	restConfig.UserAgent = "sidecar-kubelet-e2e"
	cs = kubernetes.NewForConfigOrDie(restConfig)

	image = os.Getenv("TESTSERVER_IMAGE")
	if image == "" {
		image = "sidecar-kubelet.local/testserver:1"
	}
	restartCommand = os.Getenv("SIDECAR_E2E_KUBELET_RESTART")

	nodeName = os.Getenv("NODE_NAME")
	if nodeName == "" {
		// The suite pins its pods to one node: the first schedulable one by
		// name, so that every ginkgo process picks the same. A node that
		// has just registered may take a moment to show.
		var schedulable []string
		Eventually(ctx, func(g Gomega) {
			nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred(), "listing the cluster's nodes (is the API server at %s up?)", restConfig.Host)
			schedulable = nil
			for _, n := range nodes.Items {
				// A node that is not Ready yet (a kubelet restarting) is
				// tainted for a while; the wait for Ready below covers it.
				if !n.Spec.Unschedulable && !slices.ContainsFunc(n.Spec.Taints, func(t v1.Taint) bool {
					transient := t.Key == v1.TaintNodeNotReady || t.Key == v1.TaintNodeUnreachable
					return !transient && (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute)
				}) {
					schedulable = append(schedulable, n.Name)
				}
			}
			g.Expect(schedulable).NotTo(BeEmpty())
		}).WithTimeout(time.Minute).Should(Succeed(), "the cluster has no schedulable node: untaint one, or set NODE_NAME")
		slices.Sort(schedulable)
		nodeName = schedulable[0]
	}
	var node *v1.Node
	Eventually(ctx, func(g Gomega) {
		node, err = cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nodeReady(node)).To(BeTrue(), "node %s is not Ready", nodeName)
	}).WithTimeout(time.Minute).Should(Succeed())
	// Without a registry, a missing image would only show as pods stuck in
	// ErrImageNeverPull: say so now, by running it once on the node (the
	// node's status lists at most 50 images, so it cannot tell).
	expectImageOnNode(ctx)
	// Every spec but those of the gate off needs the gate on: say so once.
	switch on, err := featureEnabled(ctx, gate); {
	case err != nil:
		GinkgoWriter.Printf("cannot tell whether the kubelet's %s gate is on: %v\n", gate, err)
	case on == 0:
		Fail(fmt.Sprintf("the kubelet of node %s runs with the feature gate %s off (kubernetes_feature_enabled): "+
			"restart it with the gate on (KUBELET_FEATURE_GATES= hack/cluster/kubelet-restart.sh)", nodeName, gate))
	case on < 0:
		GinkgoWriter.Printf("the kubelet's metrics do not name the %s gate: is it sidecar-kubelet?\n", gate)
	}
	GinkgoWriter.Printf("node %s, kubelet %s, image %s, kubelet restart: %q\n",
		nodeName, node.Status.NodeInfo.KubeletVersion, image, restartCommand)
})

// expectImageOnNode runs the test image on the node, never pulling it, and
// fails the suite with what to do if the node does not have it.
func expectImageOnNode(ctx context.Context) {
	GinkgoHelper()
	ns := newNamespace(ctx)
	pod := newPod("image-check", restartPolicy(v1.RestartPolicyNever), containers(server("check", env("EXIT_AFTER=1ms"))))
	created := createPod(ctx, ns, pod)
	Eventually(ctx, func(g Gomega) {
		p := getPod(ctx, created)
		for _, st := range p.Status.ContainerStatuses {
			if w := st.State.Waiting; w != nil && (w.Reason == "ErrImageNeverPull" || w.Reason == "ErrImagePull") {
				StopTrying(fmt.Sprintf("image %s is not on node %s (%s): build it with `make images` (hack/images/build.sh); "+
					"`make up` imports _output/images/*.tar, and for kind: kind load image-archive _output/images/testserver.tar",
					image, nodeName, w.Reason)).Now()
			}
		}
		g.Expect(p.Status.Phase).To(Equal(v1.PodSucceeded), "the image check pod %s/%s", ns, p.Name)
	}).WithTimeout(2 * time.Minute).Should(Succeed())
}

func nodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}
