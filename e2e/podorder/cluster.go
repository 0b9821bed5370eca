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

package podorder

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is the cluster under test, as the helpers need it: a client, the
// node every pod is pinned to, and the test image.
type Cluster struct {
	Client kubernetes.Interface
	Config *rest.Config
	// Node is the node that CreatePod pins pods to.
	Node string
	// Image is the test image that CreatePod gives the test servers.
	Image string
}

// Options says which cluster Connect connects to.
type Options struct {
	// Config is the client configuration; nil: load Kubeconfig.
	Config *rest.Config
	// Kubeconfig is the kubeconfig's path; "": client-go's defaults
	// ($KUBECONFIG, ~/.kube/config).
	Kubeconfig string
	// Node is the node to pin pods to; "": PickNode.
	Node string
	// Image is the test image; "": DefaultImage.
	Image string
	// UserAgent of the client; "": "sidecar-kubelet-podorder".
	UserAgent string
	// SkipImageCheck skips ExpectImageOnNode.
	SkipImageCheck bool
}

// Connect connects to the cluster, picks the node (PickNode) unless o names
// one, waits for the node to be Ready, and checks that it has the test
// image (ExpectImageOnNode). It fails the spec (or suite node) it runs in
// when any of that fails; call it in BeforeSuite or SynchronizedBeforeSuite.
func Connect(ctx context.Context, o Options) *Cluster {
	ginkgo.GinkgoHelper()
	config := o.Config
	if config == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = o.Kubeconfig
		var err error
		config, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "loading the kubeconfig")
	} else {
		config = rest.CopyConfig(config)
	}
	if config.QPS == 0 {
		config.QPS, config.Burst = 50, 100
	}
	config.UserAgent = o.UserAgent
	if config.UserAgent == "" {
		config.UserAgent = "sidecar-kubelet-podorder"
	}
	client, err := kubernetes.NewForConfig(config)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a client for %s", config.Host)
	c := &Cluster{Client: client, Config: config, Node: o.Node, Image: o.Image}
	if c.Image == "" {
		c.Image = DefaultImage
	}
	if c.Node == "" {
		c.Node = c.PickNode(ctx)
	}
	c.WaitNodeReady(ctx, time.Minute)
	if !o.SkipImageCheck {
		c.ExpectImageOnNode(ctx)
	}
	return c
}

// PickNode waits (a minute at most) for a Ready schedulable node and
// returns the first by name (ReadySchedulableNodes), so that the processes
// of a parallel suite that each pick one agree while the nodes stay Ready.
func (c *Cluster) PickNode(ctx context.Context) string {
	ginkgo.GinkgoHelper()
	var names []string
	gomega.Eventually(ctx, func(g gomega.Gomega) {
		nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		g.Expect(err).NotTo(gomega.HaveOccurred(), "listing the cluster's nodes (is the API server at %s up?)", c.Config.Host)
		names = ReadySchedulableNodes(nodes.Items)
		g.Expect(names).NotTo(gomega.BeEmpty())
	}).WithTimeout(time.Minute).Should(gomega.Succeed(), "the cluster has no Ready schedulable node: make one Ready, untaint or uncordon one, or name one")
	return names[0]
}

// ReadySchedulableNodes lists, by name, the nodes that are Ready, not
// cordoned, and without a NoSchedule or NoExecute taint (but for the
// not-ready and unreachable taints, which the node lifecycle controller
// removes a moment after the node turns Ready).
func ReadySchedulableNodes(nodes []v1.Node) []string {
	var names []string
	for i := range nodes {
		n := &nodes[i]
		if !IsNodeReady(n) || n.Spec.Unschedulable {
			continue
		}
		if slices.ContainsFunc(n.Spec.Taints, func(t v1.Taint) bool {
			transient := t.Key == v1.TaintNodeNotReady || t.Key == v1.TaintNodeUnreachable
			return !transient && (t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute)
		}) {
			continue
		}
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return names
}

// WaitNodeReady waits for c.Node to be Ready, and returns it.
func (c *Cluster) WaitNodeReady(ctx context.Context, timeout time.Duration) *v1.Node {
	ginkgo.GinkgoHelper()
	var node *v1.Node
	gomega.Eventually(ctx, func(g gomega.Gomega) {
		var err error
		node, err = c.Client.CoreV1().Nodes().Get(ctx, c.Node, metav1.GetOptions{})
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(IsNodeReady(node)).To(gomega.BeTrue(), "node %s is not Ready", c.Node)
	}).WithTimeout(timeout).Should(gomega.Succeed())
	return node
}

// ExpectImageOnNode runs the test image once on the node, with
// imagePullPolicy Never, and fails with what to do if the node does not
// have it. (The node's status lists at most 50 images, so it cannot tell.)
func (c *Cluster) ExpectImageOnNode(ctx context.Context) {
	ginkgo.GinkgoHelper()
	ns := c.NewNamespace(ctx, PodSecurityBaseline)
	pod := NewPod("image-check", Containers(TestServer("check", Env("EXIT_AFTER=1ms"))))
	c.CompletePodSpec(&pod.Spec)
	pod.Spec.Containers[0].ImagePullPolicy = v1.PullNever
	created, err := c.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating the image check pod")
	gomega.Eventually(ctx, func(g gomega.Gomega) {
		p := c.GetPod(ctx, created)
		for _, st := range p.Status.ContainerStatuses {
			if w := st.State.Waiting; w != nil && (w.Reason == "ErrImageNeverPull" || w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff") {
				gomega.StopTrying(fmt.Sprintf("image %s is not on node %s (%s): build it with `make images` (hack/images/build.sh); "+
					"`make up` imports _output/images/*.tar, and for kind: kind load image-archive _output/images/testserver.tar",
					c.Image, c.Node, w.Reason)).Now()
			}
		}
		g.Expect(p.Status.Phase).To(gomega.Equal(v1.PodSucceeded), "the image check pod %s/%s", ns, p.Name)
	}).WithTimeout(2 * time.Minute).Should(gomega.Succeed())
}

// PodSecurityLevel is a Pod Security Standard, for the namespace's
// pod-security.kubernetes.io labels.
type PodSecurityLevel string

const (
	// PodSecurityBaseline is enough for the test server's pods: no host
	// namespaces, no privileges.
	PodSecurityBaseline PodSecurityLevel = "baseline"
	// PodSecurityPrivileged admits anything, for pods that need the host.
	PodSecurityPrivileged PodSecurityLevel = "privileged"
	// PodSecurityRestricted needs more of a pod than the builders give.
	PodSecurityRestricted PodSecurityLevel = "restricted"
)

// NamespaceLabel marks the namespaces that NewNamespace creates.
const NamespaceLabel = "e2e.sidecar-kubelet.io"

// NamespaceObject is the namespace NewNamespace creates: a generated name,
// NamespaceLabel, and the Pod Security labels enforce and warn at the
// level, so that its pods are admitted on clusters whose default is
// stricter.
func NamespaceObject(level PodSecurityLevel) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sck-e2e-", Labels: map[string]string{
		NamespaceLabel:                       "true",
		"pod-security.kubernetes.io/enforce": string(level),
		"pod-security.kubernetes.io/warn":    string(level),
	}}}
}

// The label that keeps sidecar-kubelet's admission policy
// (deploy/sidecar-annotation-policy.yaml, contract rule 16) away from a
// namespace's pods when its value is AdmissionPolicySkip: a pod whose
// sidecar annotations are malformed is created there, and the kubelet
// records its InvalidSidecarAnnotation event (NewNamespaceLabelled).
const (
	AdmissionPolicyLabel = "sidecar-kubelet.io/admission-policy"
	AdmissionPolicySkip  = "skip"
)

// NewNamespace creates a namespace (NamespaceObject), waits for its default
// ServiceAccount (the ServiceAccount admission rejects pods until then), and
// deletes it after the spec, first releasing the pods that Held holds. When
// the spec failed, it prints the namespace's pods, their timelines and its
// events first (DumpNamespace).
func (c *Cluster) NewNamespace(ctx context.Context, level PodSecurityLevel) string {
	ginkgo.GinkgoHelper()
	return c.NewNamespaceLabelled(ctx, level, nil)
}

// NewNamespaceLabelled is NewNamespace with more labels on the namespace,
// e.g. {AdmissionPolicyLabel: AdmissionPolicySkip}.
func (c *Cluster) NewNamespaceLabelled(ctx context.Context, level PodSecurityLevel, labels map[string]string) string {
	ginkgo.GinkgoHelper()
	object := NamespaceObject(level)
	maps.Copy(object.Labels, labels)
	ns, err := c.Client.CoreV1().Namespaces().Create(ctx, object, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	name := ns.Name
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		if ginkgo.CurrentSpecReport().Failed() {
			c.DumpNamespace(ctx, name)
		}
		pods, err := c.Client.CoreV1().Pods(name).List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range pods.Items {
				c.Release(ctx, &pods.Items[i])
			}
		}
		err = c.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
	}, ginkgo.NodeTimeout(time.Minute))
	gomega.Eventually(ctx, func() error {
		_, err := c.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).WithTimeout(time.Minute).Should(gomega.Succeed(), "namespace %s has no default ServiceAccount (is kube-controller-manager running?)", name)
	return name
}

// DumpNamespace prints the namespace's pods, with their statuses and
// timelines, and its events to the GinkgoWriter.
func (c *Cluster) DumpNamespace(ctx context.Context, ns string) {
	pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		ginkgo.GinkgoWriter.Printf("listing pods of %s: %v\n", ns, err)
		return
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		ginkgo.GinkgoWriter.Printf("pod %s/%s phase=%s deleted=%v\n", ns, p.Name, p.Status.Phase, p.DeletionTimestamp != nil)
		for _, st := range AllStatuses(p) {
			ginkgo.GinkgoWriter.Printf("  %s\n", DescribeStatus(st))
		}
		ginkgo.GinkgoWriter.Printf("  logs:\n%s", indent(c.LogTimeline(ctx, p).String(), "    "))
	}
	events, err := c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		sort.Slice(events.Items, func(i, j int) bool {
			return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp)
		})
		for _, e := range events.Items {
			ginkgo.GinkgoWriter.Printf("event %s %s %s x%d: %s\n", e.InvolvedObject.Name, e.Type, e.Reason, e.Count, e.Message)
		}
	}
}
