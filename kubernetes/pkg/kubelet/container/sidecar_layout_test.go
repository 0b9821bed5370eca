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

// TestDecideSidecarLayoutOncePerPod checks contract rule 19's one decision: it
// is taken from the pod's newest sandbox when there is one (a restarted
// kubelet), else from the pod; later calls, with other annotations or
// another sandbox, get the same decision, as do the readers that only know
// the pod's UID; it is forgotten with the pod.
func TestDecideSidecarLayoutOncePerPod(t *testing.T) {
	annotated := func(value string) map[string]string { return map[string]string{sidecars.SidecarsAnnotation: value} }
	sandbox := func(annotations map[string]string) *PodStatus {
		return &PodStatus{SandboxStatuses: []*runtimeapi.PodSandboxStatus{{Id: "s", Annotations: annotations}}}
	}
	proxy := sidecars.Layout{Sidecars: []string{"proxy"}}
	for _, tc := range []struct {
		name  string
		gate  bool
		calls []struct {
			annotations map[string]string
			status      *PodStatus
		}
		want sidecars.Layout
	}{
		{name: "from the pod, before a sandbox", gate: true, want: proxy,
			calls: []struct {
				annotations map[string]string
				status      *PodStatus
			}{{annotated("proxy"), nil}, {annotated("app"), nil}, {nil, sandbox(annotated("app"))}}},
		{name: "from the sandbox, after a kubelet restart", gate: true, want: proxy,
			calls: []struct {
				annotations map[string]string
				status      *PodStatus
			}{{nil, sandbox(annotated("proxy"))}, {annotated("app"), nil}}},
		{name: "a sandbox without annotations: upstream, whatever the pod says", gate: true,
			calls: []struct {
				annotations map[string]string
				status      *PodStatus
			}{{annotated("proxy"), sandbox(nil)}}},
		{name: "malformed: upstream", gate: true,
			calls: []struct {
				annotations map[string]string
				status      *PodStatus
			}{{annotated("proxy,nope"), nil}, {annotated("proxy"), nil}}},
		{name: "gate off: upstream", gate: false,
			calls: []struct {
				annotations map[string]string
				status      *PodStatus
			}{{annotated("proxy"), nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "uid"}, Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}}}
			t.Cleanup(func() { ForgetSidecarLayout(pod.UID) })
			for i, call := range tc.calls {
				pod := pod.DeepCopy()
				pod.Annotations = call.annotations
				if diff := cmp.Diff(tc.want, DecideSidecarLayout(pod, call.status).Layout); diff != "" {
					t.Errorf("call %d: DecideSidecarLayout (-want +got):\n%s", i, diff)
				}
				if diff := cmp.Diff(tc.want, SidecarLayoutOf(pod.UID)); diff != "" {
					t.Errorf("call %d: SidecarLayoutOf (-want +got):\n%s", i, diff)
				}
			}
			ForgetSidecarLayout(pod.UID)
			if diff := cmp.Diff(sidecars.Layout{}, SidecarLayoutOf(pod.UID)); diff != "" {
				t.Errorf("after ForgetSidecarLayout (-want +got):\n%s", diff)
			}
		})
	}
}
