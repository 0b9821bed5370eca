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

package kuberuntime

// sidecar-kubelet's tests of sidecar-kubelet.io/wait-ready for native
// sidecars, in the fake-runtime harness of kuberuntime_sidecar_start_test.go.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// nativeSidecarPod has the native sidecar "proxy" (an init container with
// restartPolicy Always and a readiness probe) and the app container "app";
// waitReady sets sidecar-kubelet.io/wait-ready.
func nativeSidecarPod(waitReady bool) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "12345678", Name: "native", Namespace: "new", Annotations: map[string]string{}},
		Spec: v1.PodSpec{
			RestartPolicy:                 v1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			InitContainers: []v1.Container{{
				Name: "proxy", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent,
				RestartPolicy:  ptr.To(v1.ContainerRestartPolicyAlways),
				ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ready"}}}},
			}},
			Containers: []v1.Container{{Name: "app", Image: "busybox", ImagePullPolicy: v1.PullIfNotPresent}},
		},
	}
	if waitReady {
		pod.Annotations["sidecar-kubelet.io/wait-ready"] = "true"
	}
	return pod
}

func TestNativeSidecarWaitReady(t *testing.T) {
	t.Run("wait-ready: the app starts once the native sidecar is ready", func(t *testing.T) {
		s := newSidecarTest(t, nativeSidecarPod(true), true)
		s.sync()
		requireDiff(t, []string{"proxy/0/RUNNING"}, s.containers(), "the first sync starts the native sidecar")
		s.sync()
		s.sync()
		requireDiff(t, []string{"proxy/0/RUNNING"}, s.containers(), "running but not ready: the app waits")
		s.setReady("proxy", 0)
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "ready: the app starts")
	})
	for _, tc := range []struct {
		name      string
		waitReady bool
		gate      bool
	}{
		{name: "no annotation: the app starts once the native sidecar runs, as upstream", gate: true},
		{name: "gate off: wait-ready is ignored", waitReady: true, gate: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSidecarTest(t, nativeSidecarPod(tc.waitReady), tc.gate)
			s.sync()
			s.sync()
			requireDiff(t, []string{"app/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "the app starts beside the running sidecar, not ready")
		})
	}
}
