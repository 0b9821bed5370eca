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

package prober

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// TestRestartedKubeletCountsAStartedSidecarAsStarted checks the contract's "Ready"
// across a kubelet restart: a sidecar with a startup probe and no readiness
// probe, whose status says it started before the kubelet restarted, gets
// the startup result Success from the restarted kubelet's worker, so that
// the app containers waiting on it start. Before the fix the worker set
// nothing (as upstream does for a regular container) and stopped probing
// the started container: the apps waited for ever. A container without the
// annotation, and the gate off, keep upstream's behaviour.
func TestRestartedKubeletCountsAStartedSidecarAsStarted(t *testing.T) {
	type result struct {
		Result results.Result
		Found  bool
	}
	for _, tc := range []struct {
		name      string
		sidecars  string
		gate      bool
		wantAfter result
	}{
		{name: "annotated sidecar", sidecars: testContainerName, gate: true, wantAfter: result{results.Success, true}},
		{name: "app container of an annotated pod: upstream", sidecars: "proxy", gate: true, wantAfter: result{}},
		{name: "no annotation: upstream", gate: true, wantAfter: result{}},
		{name: "gate off: upstream", sidecars: testContainerName, gate: false, wantAfter: result{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SidecarContainerOrdering, tc.gate)
			logger, ctx := ktesting.NewTestContext(t)
			m := newTestManager()
			w := newTestWorker(m, startup, v1.Probe{})
			w.pod.Spec.Containers = append(w.pod.Spec.Containers, v1.Container{Name: "proxy"}, v1.Container{Name: "app"})
			if tc.sidecars != "" {
				w.pod.Annotations = map[string]string{"sidecar-kubelet.io/sidecars": tc.sidecars}
			}

			// The status the kubelet kept across its restart: the container
			// started before it, and its startup probe had succeeded.
			status := getTestRunningStatusWithStarted(true)
			status.ContainerStatuses[0].State.Running.StartedAt = metav1.NewTime(m.start.Add(-time.Minute))
			m.statusManager.SetPodStatus(logger, w.pod, status)
			for range 2 {
				if !w.doProbe(ctx) {
					t.Fatal("the worker stopped")
				}
			}
			var got result
			got.Result, got.Found = m.startupManager.Get(testContainerID)
			if diff := cmp.Diff(tc.wantAfter, got); diff != "" {
				t.Errorf("startup result after the restart (-want +got):\n%s", diff)
			}
		})
	}
}
