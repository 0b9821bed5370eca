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

// sidecar-kubelet's tests of the relists that end a sidecar pod's waits at once.

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// TestProbeSuccessRelistsPodsWaitingOnSidecars checks that a probe success
// in a pod whose containers wait on probes asks for a relist of that pod, so
// that the pod worker's next sync does not wait for the periodic relist
// (sidecar-kubelet), and that other pods and results keep upstream's path.
func TestProbeSuccessRelistsPodsWaitingOnSidecars(t *testing.T) {
	const uid = "pod-uid"
	tests := []struct {
		name        string
		gate        bool
		annotations map[string]string
		probe       string
		// container is the one whose probe reported, "" for one the runtime
		// cache does not know (relisted, to be safe).
		container string
		result    proberesults.Result
		want      []types.UID
	}{{
		name:        "annotated sidecar ready",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "readiness",
		container:   "proxy",
		result:      proberesults.Success,
		want:        []types.UID{uid},
	}, {
		name:        "annotated sidecar started",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "startup",
		container:   "proxy",
		result:      proberesults.Success,
		want:        []types.UID{uid},
	}, {
		name:        "app ready: it releases nobody, upstream's periodic relist",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "readiness",
		container:   "app",
		result:      proberesults.Success,
	}, {
		name:        "a container the runtime cache does not know: relisted",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "readiness",
		container:   "",
		result:      proberesults.Success,
		want:        []types.UID{uid},
	}, {
		name:        "annotated sidecar not ready",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "readiness",
		result:      proberesults.Failure,
	}, {
		name:        "native sidecar ready with wait-ready",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/wait-ready": "true"},
		probe:       "readiness",
		container:   "native",
		result:      proberesults.Success,
		want:        []types.UID{uid},
	}, {
		name:        "regular container ready with wait-ready: nobody waits on it",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/wait-ready": "true"},
		probe:       "readiness",
		container:   "proxy",
		result:      proberesults.Success,
	}, {
		name:   "native sidecar started without annotations: upstream",
		gate:   true,
		probe:  "startup",
		result: proberesults.Success,
	}, {
		name:        "malformed annotation: upstream",
		gate:        true,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "nosuch"},
		probe:       "readiness",
		result:      proberesults.Success,
	}, {
		name:        "gate off: upstream",
		gate:        false,
		annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"},
		probe:       "readiness",
		result:      proberesults.Success,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			_, ctx := ktesting.NewTestContext(t)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			always := v1.ContainerRestartPolicyAlways
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: uid, Annotations: tc.annotations},
				Spec: v1.PodSpec{
					InitContainers: []v1.Container{{Name: "native", RestartPolicy: &always}},
					Containers:     []v1.Container{{Name: "proxy"}, {Name: "app"}},
				},
			}

			got := sidecarTestProbeSync(ctx, testKubelet.kubelet, pod, tc.container, tc.probe, tc.result)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pods relisted at once mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTransitionRelistsOrderedPods checks that a pod with a sidecar layout
// is relisted at once when its worker moves it on (a Job pod's way to its
// terminal phase), that a deleted pod's moves keep upstream's pace (it has
// no phase to reach, and at a rollout the relists cost the runtime a list of
// the node's containers each), and that every other pod, and every pod with
// the feature gate off, keeps upstream's path.
func TestTransitionRelistsOrderedPods(t *testing.T) {
	const uid = "pod-uid"
	deleted := metav1.Now()
	tests := []struct {
		name        string
		gateOff     bool
		annotations map[string]string
		deletion    *metav1.Time
		want        []types.UID
	}{
		{name: "annotated sidecars", annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}, want: []types.UID{uid}},
		{name: "wait-ready", annotations: map[string]string{"sidecar-kubelet.io/wait-ready": "true"}, want: []types.UID{uid}},
		{name: "annotated sidecars, pod deleted", annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}, deletion: &deleted},
		{name: "no annotations: upstream"},
		{name: "an annotation naming no container: upstream", annotations: map[string]string{"sidecar-kubelet.io/sidecars": "nope"}},
		{name: "annotated sidecars, gate off: upstream", gateOff: true, annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, !tc.gateOff)
			logger, _ := ktesting.NewTestContext(t)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: uid, Annotations: tc.annotations, DeletionTimestamp: tc.deletion},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "proxy"}, {Name: "app"}}},
			}
			recorder := recordRelists(kl)
			kl.relistOrderedPodOnTransition(logger, pod)
			if diff := cmp.Diff(tc.want, recorder.relisted); diff != "" {
				t.Errorf("pods relisted at once mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSyncHoldingAppsOnlyAsksNoRelist checks that a sync whose only results
// are app containers held for their sidecars asks for no relist of the pod
// after it (upstream asks after every sync with results and no error): it
// changed nothing in the runtime, and each relist it asked for let one more
// sync through. Any other result keeps upstream's relist.
func TestSyncHoldingAppsOnlyAsksNoRelist(t *testing.T) {
	const uid = "pod-uid"
	started := func(name string) *kubecontainer.SyncResult {
		return kubecontainer.NewSyncResult(kubecontainer.StartContainer, name)
	}
	held := func(name string) *kubecontainer.SyncResult {
		r := started(name)
		r.Fail(kubecontainer.ErrSidecarsNotReady, `waiting for sidecar "proxy" to be ready`)
		return r
	}
	failed := func(name string) *kubecontainer.SyncResult {
		r := started(name)
		r.Fail(errors.New("CreateContainerError"), "no such image")
		return r
	}
	tests := []struct {
		name    string
		results []*kubecontainer.SyncResult
		want    []types.UID
	}{
		{name: "apps held, nothing started", results: []*kubecontainer.SyncResult{held("app"), held("logger")}},
		{name: "a sidecar started, its apps held: relisted", results: []*kubecontainer.SyncResult{started("proxy"), held("app")}, want: []types.UID{uid}},
		{name: "the apps started: relisted", results: []*kubecontainer.SyncResult{started("app")}, want: []types.UID{uid}},
		{name: "nothing to do: upstream asks for none"},
		{name: "a failed start: upstream asks for none", results: []*kubecontainer.SyncResult{held("app"), failed("proxy")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, true)
			_, ctx := ktesting.NewTestContext(t)
			testKubelet := newTestKubelet(t, false /* controllerAttachDetachEnabled */)
			defer testKubelet.Cleanup()
			kl := testKubelet.kubelet
			recorder := recordRelists(kl)
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: uid, Annotations: map[string]string{"sidecar-kubelet.io/sidecars": "proxy"}},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "proxy"}, {Name: "app"}, {Name: "logger"}}},
			}
			kl.podManager.SetPods([]*v1.Pod{pod})
			testKubelet.fakeRuntime.SyncResults = &kubecontainer.PodSyncResult{SyncResults: tc.results}

			_, postSync, _ := kl.SyncPod(ctx, kubetypes.SyncPodUpdate, pod, nil, &kubecontainer.PodStatus{ID: uid})
			if postSync != nil {
				postSync()
			}
			if diff := cmp.Diff(tc.want, recorder.relisted); diff != "" {
				t.Errorf("pods relisted after the sync mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
