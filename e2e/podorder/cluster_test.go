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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestReadySchedulableNodes(t *testing.T) {
	node := func(name string, ready bool, mutate ...func(*v1.Node)) v1.Node {
		status := v1.ConditionFalse
		if ready {
			status = v1.ConditionTrue
		}
		n := v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: status}}}}
		for _, m := range mutate {
			m(&n)
		}
		return n
	}
	taint := func(key string, effect v1.TaintEffect) func(*v1.Node) {
		return func(n *v1.Node) { n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Effect: effect}) }
	}
	cordoned := func(n *v1.Node) { n.Spec.Unschedulable = true }
	for _, tc := range []struct {
		name  string
		nodes []v1.Node
		want  []string
	}{
		{"none", nil, nil},
		{"one Ready node", []v1.Node{node("a", true)}, []string{"a"}},
		{"several, by name", []v1.Node{node("c", true), node("a", true), node("b", true)}, []string{"a", "b", "c"}},
		{"not Ready left out", []v1.Node{node("a", false), node("b", true)}, []string{"b"}},
		{"no Ready condition left out", []v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}, nil},
		{"cordoned left out", []v1.Node{node("a", true, cordoned), node("b", true)}, []string{"b"}},
		{
			"NoSchedule and NoExecute taints left out, PreferNoSchedule kept",
			[]v1.Node{
				node("cp", true, taint("node-role.kubernetes.io/control-plane", v1.TaintEffectNoSchedule)),
				node("x", true, taint("dedicated", v1.TaintEffectNoExecute)),
				node("y", true, taint("dedicated", v1.TaintEffectPreferNoSchedule)),
			},
			[]string{"y"},
		},
		{
			"a not-ready taint lingering on a Ready node kept",
			[]v1.Node{node("a", true, taint(v1.TaintNodeNotReady, v1.TaintEffectNoSchedule), taint(v1.TaintNodeUnreachable, v1.TaintEffectNoExecute))},
			[]string{"a"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ReadySchedulableNodes(tc.nodes)); diff != "" {
				t.Errorf("ReadySchedulableNodes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNamespaceObject(t *testing.T) {
	for _, level := range []PodSecurityLevel{PodSecurityBaseline, PodSecurityPrivileged} {
		want := map[string]string{
			NamespaceLabel:                       "true",
			"pod-security.kubernetes.io/enforce": string(level),
			"pod-security.kubernetes.io/warn":    string(level),
		}
		ns := NamespaceObject(level)
		if diff := cmp.Diff(want, ns.Labels); diff != "" || ns.GenerateName == "" {
			t.Errorf("NamespaceObject(%s): generateName %q, labels (-want +got):\n%s", level, ns.GenerateName, diff)
		}
	}
}

func TestFeatureEnabled(t *testing.T) {
	metrics := `# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="SidecarContainerOrdering",stage="BETA"} 1
kubernetes_feature_enabled{name="SidecarContainers",stage=""} 1
kubernetes_feature_enabled{name="Other",stage="ALPHA"} 0
`
	for gate, want := range map[string]int{FeatureGate: 1, "Other": 0, "Missing": -1, "Sidecar": -1} {
		if got := featureEnabled(metrics, gate); got != want {
			t.Errorf("featureEnabled(%s) = %d, want %d", gate, got, want)
		}
	}
}

func TestStatuses(t *testing.T) {
	pod := &v1.Pod{
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Name: "init"}, {Name: "mesh", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)}},
			Containers:     []v1.Container{{Name: "app"}, {Name: "proxy"}},
		},
		Status: v1.PodStatus{
			InitContainerStatuses: []v1.ContainerStatus{
				{Name: "init", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}},
				{Name: "mesh", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 143, Reason: "Error", Message: "bye"}}},
			},
			ContainerStatuses: []v1.ContainerStatus{
				{Name: "app", State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}},
				{Name: "proxy", RestartCount: 1, State: v1.ContainerState{Waiting: &v1.ContainerStateWaiting{Reason: "SidecarRestarting", Message: "soon"}},
					LastTerminationState: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}},
			},
		},
	}
	if diff := cmp.Diff([]string{"mesh", "app", "proxy"}, LongRunning(pod)); diff != "" {
		t.Errorf("LongRunning (-want +got):\n%s", diff)
	}
	if AllTerminated(pod) {
		t.Errorf("AllTerminated with proxy waiting")
	}
	if st := ContainerStatusOf(pod, "mesh"); st == nil || st.State.Terminated.ExitCode != 143 {
		t.Errorf("ContainerStatusOf(mesh) = %+v", st)
	}
	if st := ContainerStatusOf(pod, "nosuch"); st != nil {
		t.Errorf("ContainerStatusOf(nosuch) = %+v, want nil", st)
	}
	got := DescribeStatuses(pod)
	for _, want := range []string{
		"  init ready=false restarts=0 state: terminated exit=0 Completed (",
		`  mesh ready=false restarts=0 state: terminated exit=143 Error (0001-01-01T00:00:00Z to 0001-01-01T00:00:00Z) message "bye"`,
		"  proxy ready=false restarts=1 state: waiting SidecarRestarting: soon; last: terminated exit=1 Error",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DescribeStatuses lacks %q:\n%s", want, got)
		}
	}
	pod.Status.ContainerStatuses[1].State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 143}}
	if !AllTerminated(pod) {
		t.Errorf("not AllTerminated though every long-running container has terminated")
	}
}

func TestEvents(t *testing.T) {
	evs := []v1.Event{
		{Type: v1.EventTypeNormal, Reason: "SidecarsReady", Message: "ready", Count: 0},
		{Type: v1.EventTypeWarning, Reason: "Unhealthy", Message: "bad", Count: 2, InvolvedObject: v1.ObjectReference{FieldPath: "spec.containers{app}"}},
		{Type: v1.EventTypeNormal, Reason: "WaitingForSidecars", Count: 1, Series: &v1.EventSeries{Count: 3}},
	}
	if got := EventCount(evs); got != 1+2+1+3 {
		t.Errorf("EventCount = %d, want 7", got)
	}
	want := `[Normal SidecarsReady x1: "ready"; Warning Unhealthy (app) x2: "bad"; Normal WaitingForSidecars x1: ""]`
	if got := DescribeEvents(evs); got != want {
		t.Errorf("DescribeEvents = %s, want %s", got, want)
	}
}

func TestPodStatusRefusals(t *testing.T) {
	metrics := `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 16
apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 3
apiserver_request_total{code="400",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 1
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 7
apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 5
apiserver_request_total{code="422",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 2
`
	if got := podStatusRefusals(metrics); got != 4 {
		t.Errorf("podStatusRefusals() = %d, want 4 (the 422 and 400 of pods/status only)", got)
	}
	if got := podStatusRefusals(""); got != 0 {
		t.Errorf("podStatusRefusals(\"\") = %d, want 0", got)
	}
}
