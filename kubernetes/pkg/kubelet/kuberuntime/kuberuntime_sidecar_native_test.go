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

// twoNativeSidecarsPod has the native sidecars "proxy" and "logs", each
// with a readiness probe, and the app container "app", with
// sidecar-kubelet.io/wait-ready set to waitReady.
func twoNativeSidecarsPod(waitReady string) *v1.Pod {
	pod := nativeSidecarPod(false)
	logs := pod.Spec.InitContainers[0]
	logs.Name = "logs"
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, logs)
	pod.Annotations["sidecar-kubelet.io/wait-ready"] = waitReady
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

// TestNamedNativeSidecarsWaitReady checks the named form of wait-ready: the
// native sidecars it names hold the next container until they are ready,
// the others only until they have started, as upstream.
func TestNamedNativeSidecarsWaitReady(t *testing.T) {
	t.Run("the named sidecar holds the next one until ready; the unnamed one only until it runs", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("proxy"), true)
		s.sync()
		s.sync()
		requireDiff(t, []string{"proxy/0/RUNNING"}, s.containers(), "proxy runs, not ready: logs waits")
		s.setReady("proxy", 0)
		s.sync()
		requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "proxy ready: logs starts")
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "logs runs, never ready: the app starts, as upstream")
	})
	t.Run("the unnamed sidecar first: it holds nobody; the named one holds the app until ready", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("logs"), true)
		s.sync()
		s.sync()
		requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "proxy runs, not ready: logs starts")
		s.sync()
		s.sync()
		requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "logs runs, not ready: the app waits")
		s.setReady("logs", 0)
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "logs ready: the app starts")
	})
	t.Run("both named: each holds the next one until ready", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("logs, proxy"), true)
		s.sync()
		s.setReady("proxy", 0)
		s.sync()
		s.sync()
		requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "logs runs, not ready: the app waits")
		s.setReady("logs", 0)
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "both ready: the app starts")
	})
	t.Run("an unknown name: the pod runs as upstream", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("proxy,vault-agent"), true)
		s.sync()
		s.sync()
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "nobody waits for readiness")
	})
	t.Run("gate off: the named form is ignored", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("proxy,logs"), false)
		s.sync()
		s.sync()
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "nobody waits for readiness")
	})
}
