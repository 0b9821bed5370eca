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

package container

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/kubernetes/pkg/features"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// TestSidecarLayoutIsTheSandboxs checks contract rule 19's one decision as
// a value: the layout comes from the pod's newest sandbox when it has one
// (a running pod, a restarted kubelet), else from the pod; the pod handed
// on carries the annotations decided from, and a reader that sees only
// that pod gets the same layout. Nothing is kept between calls.
func TestSidecarLayoutIsTheSandboxs(t *testing.T) {
	annotated := func(value string) map[string]string { return map[string]string{sidecars.SidecarsAnnotation: value} }
	sandbox := func(annotations map[string]string) *PodStatus {
		return &PodStatus{SandboxStatuses: []*runtimeapi.PodSandboxStatus{
			{Id: "newest", Annotations: annotations},
			{Id: "older", Annotations: annotated("app")},
		}}
	}
	proxy := sidecars.Layout{Sidecars: []string{"proxy"}}
	for _, tc := range []struct {
		name        string
		gate        bool
		annotations map[string]string
		status      *PodStatus
		want        sidecars.Layout
		// wantAnnotations are those of the pod handed on.
		wantAnnotations map[string]string
		wantErr         bool
	}{
		{name: "before a sandbox: the pod's", gate: true, annotations: annotated("proxy"), want: proxy, wantAnnotations: annotated("proxy")},
		{name: "a running pod: its newest sandbox's", gate: true, annotations: annotated("proxy"), status: sandbox(annotated("proxy")),
			want: proxy, wantAnnotations: annotated("proxy")},
		{name: "annotations changed on the running pod: the sandbox's", gate: true, annotations: annotated("app"), status: sandbox(annotated("proxy")),
			want: proxy, wantAnnotations: annotated("proxy")},
		{name: "annotations added to the running pod: none", gate: true, annotations: annotated("proxy"), status: sandbox(nil),
			wantAnnotations: map[string]string{}},
		{name: "annotations removed from the running pod: the sandbox's", gate: true, status: sandbox(annotated("proxy")),
			want: proxy, wantAnnotations: annotated("proxy")},
		{name: "malformed: upstream", gate: true, annotations: annotated("proxy,nope"),
			wantAnnotations: annotated("proxy,nope"), wantErr: true},
		{name: "no annotations: upstream", gate: true, status: sandbox(nil)},
		{name: "gate off: upstream, the pod as it is", gate: false, annotations: annotated("app"), status: sandbox(annotated("proxy")),
			wantAnnotations: annotated("app")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{UID: "uid", Annotations: tc.annotations},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}},
			}
			original := pod.DeepCopy()
			d := DecideSidecarLayout(pod, tc.status)
			if diff := cmp.Diff(tc.want, d.Layout); diff != "" {
				t.Errorf("DecideSidecarLayout (-want +got):\n%s", diff)
			}
			if got := d.Err != nil; got != tc.wantErr {
				t.Errorf("DecideSidecarLayout: error %v, want one: %v", d.Err, tc.wantErr)
			}
			handedOn := PodAsDecided(pod, tc.status)
			if diff := cmp.Diff(tc.wantAnnotations, handedOn.Annotations); diff != "" {
				t.Errorf("PodAsDecided: annotations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, SidecarLayoutOf(handedOn)); diff != "" {
				t.Errorf("SidecarLayoutOf the pod handed on (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(original, pod); diff != "" {
				t.Errorf("the pod was modified (-want +got):\n%s", diff)
			}

			// A sync decides once, and hands on a status carrying the
			// decision wherever the pod has a layout to carry.
			status, synced := WithSidecarLayout(pod, tc.status)
			if diff := cmp.Diff(d, synced, cmp.Comparer(sameError)); diff != "" {
				t.Errorf("WithSidecarLayout's decision (-want +got):\n%s", diff)
			}
			carries := tc.status != nil && tc.gate && len(tc.wantAnnotations) > 0
			if got := status != nil && status.SidecarLayout != nil; got != carries {
				t.Errorf("WithSidecarLayout: the status handed on carries a decision: %v, want %v", got, carries)
			}
			if diff := cmp.Diff(d, DecideSidecarLayout(pod, status), cmp.Comparer(sameError)); diff != "" {
				t.Errorf("DecideSidecarLayout of the status handed on (-want +got):\n%s", diff)
			}
			if tc.status != nil && tc.status.SidecarLayout != nil {
				t.Errorf("the status given was modified: it carries a decision")
			}
		})
	}
}

// sameError compares errors by message: a Decision's Err is a pointer.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// TestCarriedSidecarLayoutIsNotDecidedAgain checks that the readers of a
// sync's status take the decision it carries (WithSidecarLayout) and do
// not decide again: here the pod's annotations now say otherwise, and
// reading costs no allocation, where deciding parses the annotations.
func TestCarriedSidecarLayoutIsNotDecidedAgain(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "uid", Annotations: map[string]string{sidecars.SidecarsAnnotation: "proxy"}},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}},
	}
	status, d := WithSidecarLayout(pod, &PodStatus{})
	if diff := cmp.Diff(sidecars.Layout{Sidecars: []string{"proxy"}}, d.Layout); diff != "" {
		t.Fatalf("WithSidecarLayout (-want +got):\n%s", diff)
	}
	pod.Annotations[sidecars.SidecarsAnnotation] = "app"
	if diff := cmp.Diff(d.Layout, DecideSidecarLayout(pod, status).Layout); diff != "" {
		t.Errorf("DecideSidecarLayout of the status handed on (-want +got):\n%s", diff)
	}
	if again, _ := WithSidecarLayout(pod, status); again != status {
		t.Errorf("WithSidecarLayout of a status that carries a decision made another")
	}
	if allocs := testing.AllocsPerRun(100, func() { DecideSidecarLayout(pod, status) }); allocs != 0 {
		t.Errorf("DecideSidecarLayout of the status handed on: %v allocations, want 0 (it decided again)", allocs)
	}
	// The kill path's running pod, made from the sync's status.
	running := ConvertPodStatusToRunningPod("test", status)
	if diff := cmp.Diff(d.Layout, SidecarLayoutOfRunningPod(pod, running)); diff != "" {
		t.Errorf("SidecarLayoutOfRunningPod of the running pod made from the status (-want +got):\n%s", diff)
	}
	if allocs := testing.AllocsPerRun(100, func() { SidecarLayoutOfRunningPod(pod, running) }); allocs != 0 {
		t.Errorf("SidecarLayoutOfRunningPod: %v allocations, want 0 (it decided again)", allocs)
	}
	// A running pod read from the runtime carries nothing: the layout is
	// the pod's.
	if diff := cmp.Diff(sidecars.Layout{Sidecars: []string{"app"}}, SidecarLayoutOfRunningPod(pod, Pod{ID: pod.UID})); diff != "" {
		t.Errorf("SidecarLayoutOfRunningPod of a running pod without a decision (-want +got):\n%s", diff)
	}
}
