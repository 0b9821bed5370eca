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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// CompletePodSpec completes the spec for c.Node and c.Image (see the
// function CompletePodSpec).
func (c *Cluster) CompletePodSpec(spec *v1.PodSpec) { CompletePodSpec(spec, c.Node, c.Image) }

// TemplateFromPod is the pod as a template for a Job, its spec completed
// for c.Node and c.Image (see the function TemplateFromPod).
func (c *Cluster) TemplateFromPod(p *v1.Pod) v1.PodTemplateSpec {
	return TemplateFromPod(p, c.Node, c.Image)
}

// CreatePod completes the pod's spec (CompletePodSpec) and creates it in
// the namespace.
func (c *Cluster) CreatePod(ctx context.Context, ns string, pod *v1.Pod) *v1.Pod {
	ginkgo.GinkgoHelper()
	c.CompletePodSpec(&pod.Spec)
	created, err := c.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating pod %s", pod.Name)
	return created
}

// GetPod reads the pod again.
func (c *Cluster) GetPod(ctx context.Context, pod *v1.Pod) *v1.Pod {
	ginkgo.GinkgoHelper()
	p, err := c.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return p
}

// Release removes the finalizers (HoldFinalizer) from the pod.
func (c *Cluster) Release(ctx context.Context, pod *v1.Pod) {
	if len(pod.Finalizers) == 0 {
		return
	}
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, err := c.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		ginkgo.GinkgoWriter.Printf("releasing pod %s: %v\n", pod.Name, err)
	}
}

// PatchPod applies a JSON merge patch to the pod.
func (c *Cluster) PatchPod(ctx context.Context, pod *v1.Pod, patch map[string]any) {
	ginkgo.GinkgoHelper()
	b, err := json.Marshal(patch)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, err = c.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, b, metav1.PatchOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "patching pod %s with %s", pod.Name, b)
}

// WaitPod waits until cond holds for the pod, and returns the pod; on
// timeout the failure describes every container's status.
//
//	cluster.WaitPod(ctx, pod, 2*time.Minute, podorder.AllRunning)
func (c *Cluster) WaitPod(ctx context.Context, pod *v1.Pod, timeout time.Duration, cond func(g gomega.Gomega, p *v1.Pod)) *v1.Pod {
	ginkgo.GinkgoHelper()
	var last *v1.Pod
	gomega.Eventually(ctx, func(g gomega.Gomega) {
		p, err := c.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		g.Expect(err).NotTo(gomega.HaveOccurred())
		last = p
		cond(g, p)
	}).WithTimeout(timeout).Should(gomega.Succeed(), func() string {
		if last == nil {
			return "no pod"
		}
		return fmt.Sprintf("pod %s phase %s:\n%s\n", last.Name, last.Status.Phase, DescribeStatuses(last))
	})
	return last
}

// DeletePod deletes the pod with its own grace period, and returns when.
func (c *Cluster) DeletePod(ctx context.Context, pod *v1.Pod) time.Time {
	ginkgo.GinkgoHelper()
	at := time.Now()
	gomega.Expect(c.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
	return at
}

// WaitTerminated waits until every long-running container of a deleted pod
// has terminated, and returns the pod (Held pods keep their statuses).
func (c *Cluster) WaitTerminated(ctx context.Context, pod *v1.Pod, timeout time.Duration) *v1.Pod {
	ginkgo.GinkgoHelper()
	return c.WaitPod(ctx, pod, timeout, func(g gomega.Gomega, p *v1.Pod) {
		g.Expect(AllTerminated(p)).To(gomega.BeTrue(), "not every container has terminated")
	})
}

// PodWithin polls the pod every 250 ms until cond returns nil, for at most
// timeout, and returns the last pod seen and cond's last error. An error
// getting the pod (an API server restarting) counts as cond's.
func (c *Cluster) PodWithin(ctx context.Context, pod *v1.Pod, timeout time.Duration, cond func(p *v1.Pod) error) (*v1.Pod, error) {
	ginkgo.GinkgoHelper()
	deadline := time.Now().Add(timeout)
	last := pod
	for {
		p, err := c.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil {
			last = p
			if err = cond(p); err == nil {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			return last, err
		}
		select {
		case <-ctx.Done():
			ginkgo.Fail("interrupted")
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// PodHolds checks cond on the pod every 500 ms for d, and returns the pod
// and cond's first error.
func (c *Cluster) PodHolds(ctx context.Context, pod *v1.Pod, d time.Duration, cond func(p *v1.Pod) error) (*v1.Pod, error) {
	ginkgo.GinkgoHelper()
	end := time.Now().Add(d)
	var p *v1.Pod
	for {
		p = c.GetPod(ctx, pod)
		if err := cond(p); err != nil {
			return p, err
		}
		if time.Now().After(end) {
			return p, nil
		}
		select {
		case <-ctx.Done():
			ginkgo.Fail("interrupted")
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// WatchPod watches the pod from its current version on (call it before
// deleting the pod), until the spec ends; see UntilStopped.
func (c *Cluster) WatchPod(ctx context.Context, pod *v1.Pod) watch.Interface {
	ginkgo.GinkgoHelper()
	p := c.GetPod(ctx, pod)
	w, err := c.Client.CoreV1().Pods(pod.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", pod.Name).String(),
		ResourceVersion: p.ResourceVersion,
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(w.Stop)
	return w
}

// UntilStopped reads the watch until every long-running container of the
// pod has terminated or the pod is gone, and returns when it saw that and
// the last pod seen; it fails after timeout.
func UntilStopped(ctx context.Context, w watch.Interface, timeout time.Duration) (time.Time, *v1.Pod) {
	ginkgo.GinkgoHelper()
	at, p, ok := StoppedWithin(ctx, w, timeout)
	if !ok {
		ginkgo.Fail(fmt.Sprintf("the pod's containers did not all stop within %v", timeout))
	}
	return at, p
}

// StoppedWithin reads the watch until every long-running container of the
// pod has terminated or the pod is gone, and returns when it saw that, the
// last pod seen, and whether that happened within the timeout.
func StoppedWithin(ctx context.Context, w watch.Interface, timeout time.Duration) (time.Time, *v1.Pod, bool) {
	ginkgo.GinkgoHelper()
	deadline := time.After(timeout)
	var last *v1.Pod
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				ginkgo.Fail("the pod watch closed early")
			}
			p, _ := ev.Object.(*v1.Pod)
			switch {
			case p == nil:
			case ev.Type == watch.Deleted:
				return time.Now(), last, true
			default:
				last = p
				if AllTerminated(p) {
					return time.Now(), p, true
				}
			}
		case <-deadline:
			return time.Time{}, last, false
		case <-ctx.Done():
			ginkgo.Fail("interrupted")
		}
	}
}

// WatchPhase watches the pod until its phase is the one given and returns
// when this process saw it (the API's own times are to the second); it
// fails after timeout.
func (c *Cluster) WatchPhase(ctx context.Context, pod *v1.Pod, phase v1.PodPhase, timeout time.Duration) time.Time {
	ginkgo.GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := c.Client.CoreV1().Pods(pod.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + pod.Name, ResourceVersion: pod.ResourceVersion})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer w.Stop()
	for ev := range w.ResultChan() {
		if p, ok := ev.Object.(*v1.Pod); ok && p.Status.Phase == phase {
			return time.Now()
		}
	}
	ginkgo.Fail(fmt.Sprintf("pod %s not %s within %v", pod.Name, phase, timeout))
	return time.Time{}
}

// PodEvents lists the events of the pod with the reason.
func (c *Cluster) PodEvents(ctx context.Context, p *v1.Pod, reason string) []v1.Event {
	ginkgo.GinkgoHelper()
	sel := fields.Set{"involvedObject.uid": string(p.UID), "reason": reason}.AsSelector().String()
	evs, err := c.Client.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return evs.Items
}

// EventCount counts occurrences: an aggregated event counts Count times,
// an event series its count more.
func EventCount(evs []v1.Event) int {
	n := 0
	for _, e := range evs {
		n += int(max(e.Count, 1))
		if e.Series != nil {
			n += int(e.Series.Count)
		}
	}
	return n
}

// DescribeEvents describes the events on one line, each with the
// container it is about.
func DescribeEvents(evs []v1.Event) string {
	var s []string
	for _, e := range evs {
		of := ""
		if c := EventContainer(&e); c != WholePod {
			of = " (" + c + ")"
		}
		s = append(s, fmt.Sprintf("%s %s%s x%d: %q", e.Type, e.Reason, of, max(e.Count, 1), e.Message))
	}
	return "[" + strings.Join(s, "; ") + "]"
}
