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
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
)

// The suite's view of the cluster, set up by SynchronizedBeforeSuite in
// every ginkgo process.
var (
	cluster *Cluster
	// restartCommand restarts the node's kubelet (SIDECAR_E2E_KUBELET_RESTART).
	restartCommand string
	// relistsOnDemand: the node's kubelet relists a pod at once where
	// upstream waits for the next periodic relist (the series for v1.36 and
	// later; v1.35 has no on-demand relist, docs/development.md#supported-versions).
	// The specs that bound a latency allow for the periodic relists without it.
	relistsOnDemand = true
)

// relistPeriod is upstream's periodic relist of the kubelet's PLEG.
const relistPeriod = time.Second

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(2 * time.Minute)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	SetDefaultConsistentlyDuration(5 * time.Second)
	SetDefaultConsistentlyPollingInterval(500 * time.Millisecond)
	RunSpecs(t, "sidecar-kubelet e2e")
}

// options is the cluster of the environment: SIDECAR_E2E_KUBECONFIG, else
// KUBECONFIG; NODE_NAME; TESTSERVER_IMAGE.
func options() Options {
	if os.Getenv("SIDECAR_E2E_KUBECONFIG") == "" && os.Getenv("KUBECONFIG") == "" {
		Fail("neither SIDECAR_E2E_KUBECONFIG nor KUBECONFIG is set: the e2e suite needs a cluster " +
			"(`make up && make e2e` for the local one, or KUBECONFIG=<kind cluster's kubeconfig>)")
	}
	return Options{
		Kubeconfig: os.Getenv("SIDECAR_E2E_KUBECONFIG"),
		Node:       os.Getenv("NODE_NAME"),
		Image:      os.Getenv("TESTSERVER_IMAGE"),
		UserAgent:  "sidecar-kubelet-e2e",
	}
}

// The first process picks the node (NODE_NAME, else the first Ready
// schedulable one by name), checks that it has the test image (run once,
// never pulled) and that its kubelet has the gate on; every process then
// pins its pods to that node.
var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	c := Connect(ctx, options())
	// Every spec but those of the gate off needs the gate on: say so once.
	switch on, err := c.FeatureEnabled(ctx, FeatureGate); {
	case err != nil:
		GinkgoWriter.Printf("cannot tell whether the kubelet's %s gate is on: %v\n", FeatureGate, err)
	case on == 0:
		Fail(fmt.Sprintf("the kubelet of node %s runs with the feature gate %s off (kubernetes_feature_enabled): "+
			"restart it with the gate on (KUBELET_FEATURE_GATES= hack/kubelet-restart.sh)", c.Node, FeatureGate))
	case on < 0:
		GinkgoWriter.Printf("the kubelet's metrics do not name the %s gate: is it sidecar-kubelet?\n", FeatureGate)
	}
	return []byte(c.Node)
}, func(ctx SpecContext, node []byte) {
	o := options()
	o.Node, o.SkipImageCheck = string(node), true
	cluster = Connect(ctx, o)
	restartCommand = os.Getenv("SIDECAR_E2E_KUBELET_RESTART")
	n, err := cluster.Client.CoreV1().Nodes().Get(ctx, cluster.Node, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	kubeletVersion := n.Status.NodeInfo.KubeletVersion
	if v, err := version.ParseGeneric(kubeletVersion); err == nil && v.LessThan(version.MajorMinor(1, 36)) {
		relistsOnDemand = false
	}
	GinkgoWriter.Printf("node %s, kubelet %s (relists on demand: %v), image %s, kubelet restart: %q\n",
		cluster.Node, kubeletVersion, relistsOnDemand, cluster.Image, restartCommand)
})
