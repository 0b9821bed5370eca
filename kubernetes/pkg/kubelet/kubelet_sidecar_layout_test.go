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

package kubelet

// sidecar-kubelet's tests of the pod the kubelet's syncs hand on.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/record"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// TestPodAsDecidedSaysTheChangeOnce checks contract rule 19 where the
// kubelet's syncs begin: they hand on the pod with the sidecar annotations
// of its sandbox, whatever it carries now, and say once per change that it
// is ignored, however many syncs follow.
func TestPodAsDecidedSaysTheChangeOnce(t *testing.T) {
	sandbox := func(value string) *kubecontainer.PodStatus {
		return &kubecontainer.PodStatus{SandboxStatuses: []*runtimeapi.PodSandboxStatus{
			{Id: "sandbox", Annotations: map[string]string{"sidecar-kubelet.io/sidecars": value}},
		}}
	}
	for _, tc := range []struct {
		name       string
		gate       bool
		annotation string
		status     *kubecontainer.PodStatus
		want       string // the annotation of the pod handed on
		wantEvents []string
	}{
		{name: "unchanged", gate: true, annotation: "proxy", status: sandbox("proxy"), want: "proxy"},
		{name: "before a sandbox", gate: true, annotation: "proxy", want: "proxy"},
		{name: "changed", gate: true, annotation: "logs", status: sandbox("proxy"), want: "proxy",
			wantEvents: []string{`Warning SidecarAnnotationChanged Ignoring the change of the pod's sidecar annotations (sidecar-kubelet.io/sidecars changed from "proxy" to "logs"): they are fixed while the pod runs`}},
		{name: "gate off: the pod as it is", gate: false, annotation: "logs", status: sandbox("proxy"), want: "logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			_, ctx := ktesting.NewTestContext(t)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			recorder := record.NewFakeRecorder(10)
			kl.recorder = recorder
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "web-uid",
					Annotations: map[string]string{"sidecar-kubelet.io/sidecars": tc.annotation}},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "proxy"}, {Name: "logs"}, {Name: "app"}}},
			}
			// Three syncs of the pod.
			kl.podAsDecided(ctx, pod, tc.status)
			kl.podAsDecided(ctx, pod, tc.status)
			got, gotStatus := kl.podAsDecided(ctx, pod, tc.status)
			if diff := cmp.Diff(tc.want, got.Annotations["sidecar-kubelet.io/sidecars"]); diff != "" {
				t.Errorf("the pod handed on (-want +got):\n%s", diff)
			}
			// The status handed on carries the layout the sync decided
			// (the sandbox's), and the cache's status is left as it was.
			if tc.status != nil {
				carried := gotStatus.SidecarLayout != nil
				if carried != tc.gate {
					t.Errorf("the status handed on carries a decision: %v, want %v", carried, tc.gate)
				}
				if carried && gotStatus.SidecarLayout.Annotations["sidecar-kubelet.io/sidecars"] != tc.want {
					t.Errorf("the status handed on carries the decision from %v, want from %q", gotStatus.SidecarLayout.Annotations, tc.want)
				}
				if tc.status.SidecarLayout != nil {
					t.Errorf("the status given was modified")
				}
			}
			if pod.Annotations["sidecar-kubelet.io/sidecars"] != tc.annotation {
				t.Errorf("the pod was modified")
			}
			var events []string
			for len(recorder.Events) > 0 {
				events = append(events, <-recorder.Events)
			}
			if diff := cmp.Diff(tc.wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
