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
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// ContainerLogs reads the log of the container's current instance, or with
// previous of its previous one.
func (c *Cluster) ContainerLogs(ctx context.Context, p *v1.Pod, container string, previous bool) (string, error) {
	b, err := c.Client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &v1.PodLogOptions{Container: container, Previous: previous}).DoRaw(ctx)
	return string(b), err
}

// Timeline is the pod's timeline, for any image: what the API says of it
// (PodTimeline: its container statuses and conditions, to the second, and
// the kubelet's events), refined by the test server's lines of the
// containers of the test image (c.Image), to the nanosecond. Those
// containers' starts and exits come from their lines alone: the status's
// second does not stand in for a line not yet read, so that an order or a
// latency the lines prove is never weakened to the second. Events and logs
// that cannot be read are left out.
func (c *Cluster) Timeline(ctx context.Context, p *v1.Pod) Timeline {
	testServer := runsImage(p, c.Image)
	var events []v1.Event
	sel := fields.OneTermEqualSelector("involvedObject.uid", string(p.UID)).String()
	if list, err := c.Client.CoreV1().Events(p.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel}); err == nil {
		events = list.Items
	}
	return withTestServerLines(PodTimeline(p, events), c.logTimeline(ctx, p, testServer), testServer)
}

// runsImage tells whether a container of the pod runs the image.
func runsImage(p *v1.Pod, image string) func(container string) bool {
	images := map[string]string{}
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		images[c.Name] = c.Image
	}
	return func(container string) bool {
		img, ok := images[container]
		return ok && img == image
	}
}

// withTestServerLines is the API's timeline refined by the test servers'
// lines, without the container statuses' times of the test servers.
func withTestServerLines(api, lines Timeline, testServer func(container string) bool) Timeline {
	api = slices.DeleteFunc(slices.Clone(api), func(e TimelineEntry) bool {
		return e.Source == SourceStatus && testServer(e.Container)
	})
	return Refine(api, lines)
}

// LogTimeline reads the test server's lines from the logs of every
// container of the pod that has started, the previous instance of
// restarted ones included. Logs that cannot be read are left out: the
// kubelet removes the containers of a finished pod a while after, so read
// a terminating pod with FollowLogs.
func (c *Cluster) LogTimeline(ctx context.Context, p *v1.Pod) Timeline {
	return c.logTimeline(ctx, p, func(string) bool { return true })
}

// logTimeline reads the lines of the containers that read says to.
func (c *Cluster) logTimeline(ctx context.Context, p *v1.Pod, read func(container string) bool) Timeline {
	var tls []Timeline
	for _, st := range AllStatuses(p) {
		if !read(st.Name) {
			continue
		}
		if st.RestartCount > 0 {
			if logs, err := c.ContainerLogs(ctx, p, st.Name, true); err == nil {
				tls = append(tls, ParseLogs(st.Name, logs))
			}
		}
		if st.State.Running != nil || st.State.Terminated != nil {
			if logs, err := c.ContainerLogs(ctx, p, st.Name, false); err == nil {
				tls = append(tls, ParseLogs(st.Name, logs))
			}
		}
	}
	return Merge(tls...)
}

// WaitForTimeline waits (a minute at most) until the pod's timeline
// (Timeline: any image) has the points, and returns it; it also prints it
// to the GinkgoWriter.
func (c *Cluster) WaitForTimeline(ctx context.Context, pod *v1.Pod, want ...Point) Timeline {
	ginkgo.GinkgoHelper()
	var tl Timeline
	gomega.Eventually(ctx, func(g gomega.Gomega) {
		tl = c.Timeline(ctx, c.GetPod(ctx, pod))
		for _, p := range want {
			_, ok := tl.At(p)
			g.Expect(ok).To(gomega.BeTrue(), "no %s yet", p)
		}
	}).WithTimeout(time.Minute).Should(gomega.Succeed(), func() string { return "timeline seen:\n" + tl.String() })
	ginkgo.GinkgoWriter.Printf("timeline of pod %s:\n%s", pod.Name, tl)
	return tl
}

// LogFollower follows the logs of a pod's long-running containers while
// the pod terminates: once every container has exited, the kubelet may
// remove them and their logs. A stream broken by a kubelet restart is
// opened again; lines are deduplicated. It follows each instance of a
// container that the pod's status names (a sidecar started again while
// the apps drain, rule 14), until it has terminated and no container of
// the pod runs.
type LogFollower struct {
	c     *Cluster
	mu    sync.Mutex
	lines map[string]map[string]bool // container -> lines
	wg    sync.WaitGroup
}

// FollowLogs starts following the logs of the pod's long-running
// containers, until each has terminated, the pod is gone, or the spec
// ends. Start it before deleting the pod.
func (c *Cluster) FollowLogs(ctx context.Context, pod *v1.Pod) *LogFollower {
	f := &LogFollower{c: c, lines: map[string]map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	ginkgo.DeferCleanup(cancel)
	for _, name := range LongRunning(pod) {
		f.lines[name] = map[string]bool{}
		f.wg.Add(1)
		go func() {
			defer ginkgo.GinkgoRecover()
			defer f.wg.Done()
			f.follow(ctx, pod, name)
		}()
	}
	return f
}

func (f *LogFollower) follow(ctx context.Context, pod *v1.Pod, container string) {
	pods := f.c.Client.CoreV1().Pods(pod.Namespace)
	for ctx.Err() == nil {
		if stream, err := pods.GetLogs(pod.Name, &v1.PodLogOptions{Container: container, Follow: true}).Stream(ctx); err == nil {
			f.read(container, stream)
			stream.Close()
		}
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if err == nil {
			// A container terminated while another runs may be started
			// again (rule 14): the stream opens its next instance once the
			// status names it.
			if st := ContainerStatusOf(p, container); st != nil && st.State.Terminated != nil && noneRunning(p) {
				// One last read in case the stream broke before the end.
				if logs, err := f.c.ContainerLogs(ctx, p, container, false); err == nil {
					f.read(container, strings.NewReader(logs))
				}
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (f *LogFollower) read(container string, r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		f.mu.Lock()
		f.lines[container][s.Text()] = true
		f.mu.Unlock()
	}
}

// Timeline is what the follower has seen so far.
func (f *LogFollower) Timeline() Timeline {
	f.mu.Lock()
	defer f.mu.Unlock()
	var tls []Timeline
	for c, lines := range f.lines {
		for l := range lines {
			tls = append(tls, ParseLogs(c, l))
		}
	}
	return Merge(tls...)
}

// Wait waits for every container's stream to end (the container has
// terminated or the pod is gone), fails after timeout, and returns the
// timeline, which it also prints to the GinkgoWriter.
func (f *LogFollower) Wait(ctx context.Context, timeout time.Duration) Timeline {
	ginkgo.GinkgoHelper()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		ginkgo.Fail(fmt.Sprintf("the containers' log streams did not end within %v; timeline so far:\n%s", timeout, f.Timeline()))
	case <-ctx.Done():
	}
	tl := f.Timeline()
	ginkgo.GinkgoWriter.Printf("timeline of the termination:\n%s", tl)
	return tl
}

// WaitFor waits until the follower has seen the point, and returns when it
// happened.
func (f *LogFollower) WaitFor(ctx context.Context, p Point, timeout time.Duration) time.Time {
	ginkgo.GinkgoHelper()
	var at time.Time
	gomega.Eventually(ctx, func() bool {
		var ok bool
		at, ok = f.Timeline().At(p)
		return ok
	}).WithTimeout(timeout).Should(gomega.BeTrue(), func() string { return fmt.Sprintf("no %s; timeline:\n%s", p, f.Timeline()) })
	return at
}

// noneRunning tells whether no container of the pod runs.
func noneRunning(p *v1.Pod) bool {
	for _, st := range AllStatuses(p) {
		if st.State.Running != nil {
			return false
		}
	}
	return true
}
