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
	"fmt"
	"strings"
	"time"

	"github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
)

// AllStatuses lists the init containers' statuses, then the containers'.
func AllStatuses(p *v1.Pod) []v1.ContainerStatus {
	return append(append([]v1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
}

// ContainerStatusOf is the status of the named container (init or not), or
// nil.
func ContainerStatusOf(p *v1.Pod, name string) *v1.ContainerStatus {
	for _, st := range AllStatuses(p) {
		if st.Name == name {
			return &st
		}
	}
	return nil
}

// LongRunning lists the containers that run for the pod's life: the native
// sidecars, then the containers.
func LongRunning(p *v1.Pod) []string {
	var names []string
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			names = append(names, c.Name)
		}
	}
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// ExpectRunning checks that the named containers run; for WaitPod.
func ExpectRunning(g gomega.Gomega, p *v1.Pod, names ...string) {
	for _, n := range names {
		st := ContainerStatusOf(p, n)
		g.Expect(st).NotTo(gomega.BeNil(), "no status for container %s", n)
		g.Expect(st.State.Running).NotTo(gomega.BeNil(), "container %s is not running", n)
	}
}

// AllRunning checks that every long-running container runs; for WaitPod.
func AllRunning(g gomega.Gomega, p *v1.Pod) { ExpectRunning(g, p, LongRunning(p)...) }

// PodReady checks that the pod's Ready condition is True; for WaitPod.
func PodReady(g gomega.Gomega, p *v1.Pod) {
	g.Expect(IsPodReady(p)).To(gomega.BeTrue(), "pod not ready")
}

// AllTerminated tells whether every long-running container has terminated.
func AllTerminated(p *v1.Pod) bool {
	for _, n := range LongRunning(p) {
		st := ContainerStatusOf(p, n)
		if st == nil || st.State.Terminated == nil {
			return false
		}
	}
	return true
}

// IsPodReady tells whether the pod's Ready condition is true.
func IsPodReady(p *v1.Pod) bool { return ConditionOf(p, v1.PodReady) == v1.ConditionTrue }

// ConditionOf is the status of the pod's condition of type t, "" when the
// pod has none.
func ConditionOf(p *v1.Pod, t v1.PodConditionType) v1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

// IsNodeReady tells whether the node's Ready condition is true.
func IsNodeReady(n *v1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

// DescribeStatus is a container's status on one line: readiness, restarts,
// state and last state.
func DescribeStatus(st v1.ContainerStatus) string {
	s := fmt.Sprintf("%s ready=%v restarts=%d", st.Name, st.Ready, st.RestartCount)
	describe := func(state v1.ContainerState) string {
		switch {
		case state.Running != nil:
			return "running since " + state.Running.StartedAt.UTC().Format(time.RFC3339)
		case state.Terminated != nil:
			t := state.Terminated
			s := fmt.Sprintf("terminated exit=%d %s (%s to %s)", t.ExitCode, t.Reason,
				t.StartedAt.UTC().Format(time.RFC3339), t.FinishedAt.UTC().Format(time.RFC3339))
			if t.Message != "" {
				s += fmt.Sprintf(" message %q", t.Message)
			}
			return s
		case state.Waiting != nil:
			return "waiting " + state.Waiting.Reason + ": " + state.Waiting.Message
		}
		return "no state"
	}
	s += " state: " + describe(st.State)
	if st.LastTerminationState != (v1.ContainerState{}) {
		s += "; last: " + describe(st.LastTerminationState)
	}
	return s
}

// DescribeStatuses describes every container of the pod, a line each.
func DescribeStatuses(p *v1.Pod) string {
	if p == nil {
		return "  (no pod seen)"
	}
	var s []string
	for _, st := range AllStatuses(p) {
		s = append(s, "  "+DescribeStatus(st))
	}
	return strings.Join(s, "\n")
}

// indent prefixes each line of s.
func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+prefix) + "\n"
}
