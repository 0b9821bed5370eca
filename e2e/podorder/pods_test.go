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
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestNewPodAndCompletePodSpec(t *testing.T) {
	pod := NewPod("demo",
		AnnotatedSidecars("proxy", "logger"),
		WaitReady(),
		TerminationGracePeriod(60),
		PodRestartPolicy(v1.RestartPolicyOnFailure),
		ActiveDeadline(30),
		Held(),
		SharedVolume(),
		InitContainers(TestServer("mesh", Native(), Readiness())),
		Containers(
			TestServer("app", Port(9000), PreStopHook("2s", "--touch", "/shared/stop"), MountShared()),
			TestServer("proxy", Readiness(), Liveness(), Env("READY_AFTER=2s", "DRAIN=1s")),
			v1.Container{Name: "logger", Image: "example.com/logger:1"},
		))
	CompletePodSpec(&pod.Spec, "node-1", "example.com/testserver:2")

	probe := func(path string, port int32) *v1.Probe {
		p := HTTPProbe(path, 1)
		p.HTTPGet.Port = intstr.FromInt32(port)
		return p
	}
	env := func(kvs ...string) []v1.EnvVar {
		var out []v1.EnvVar
		for i := 0; i+1 < len(kvs); i += 2 {
			out = append(out, v1.EnvVar{Name: kvs[i], Value: kvs[i+1]})
		}
		return out
	}
	want := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "demo",
			Annotations: map[string]string{SidecarsAnnotation: "proxy,logger", WaitReadyAnnotation: "true"},
			Finalizers:  []string{HoldFinalizer},
		},
		Spec: v1.PodSpec{
			NodeName:                      "node-1",
			RestartPolicy:                 v1.RestartPolicyOnFailure,
			TerminationGracePeriodSeconds: ptr.To[int64](60),
			ActiveDeadlineSeconds:         ptr.To[int64](30),
			AutomountServiceAccountToken:  ptr.To(false),
			Volumes:                       []v1.Volume{{Name: "shared", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}},
			InitContainers: []v1.Container{{
				Name: "mesh", Image: "example.com/testserver:2", ImagePullPolicy: v1.PullIfNotPresent,
				RestartPolicy:  ptr.To(v1.ContainerRestartPolicyAlways),
				ReadinessProbe: probe("/ready", 8080),
				Env:            env("PORT", "8080", "NAME", "mesh"),
			}},
			Containers: []v1.Container{
				{
					Name: "app", Image: "example.com/testserver:2", ImagePullPolicy: v1.PullIfNotPresent,
					Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{
						Command: []string{"/testserver", "hook", "--name", "prestop", "--sleep", "2s", "--touch", "/shared/stop"}}}},
					VolumeMounts: []v1.VolumeMount{{Name: "shared", MountPath: "/shared"}},
					Env:          env("PORT", "9000", "NAME", "app"),
				},
				{
					Name: "proxy", Image: "example.com/testserver:2", ImagePullPolicy: v1.PullIfNotPresent,
					ReadinessProbe: probe("/ready", 8082),
					LivenessProbe:  probe("/healthz", 8082),
					Env:            env("READY_AFTER", "2s", "DRAIN", "1s", "PORT", "8082", "NAME", "proxy"),
				},
				// An image of its own: left as it is.
				{Name: "logger", Image: "example.com/logger:1"},
			},
		},
	}
	if diff := cmp.Diff(want, pod); diff != "" {
		t.Errorf("the completed pod (-want +got):\n%s", diff)
	}
}

func TestCompletePodSpecKeepsANode(t *testing.T) {
	spec := v1.PodSpec{NodeName: "mine", Containers: []v1.Container{TestServer("a", StartupProbe("/ready", 2), PostStart("/bin/true"))}}
	CompletePodSpec(&spec, "other", DefaultImage)
	if spec.NodeName != "mine" {
		t.Errorf("NodeName %q, want the pod's own, mine", spec.NodeName)
	}
	c := spec.Containers[0]
	if c.StartupProbe.HTTPGet.Port.IntVal != FirstPort || c.StartupProbe.FailureThreshold != 2 || c.Lifecycle.PostStart == nil || c.Image != DefaultImage {
		t.Errorf("container not completed: %+v", c)
	}
}

func TestTemplateFromPod(t *testing.T) {
	pod := NewPod("job", AnnotatedSidecars("proxy"), Containers(TestServer("proxy"), TestServer("app")))
	tmpl := TemplateFromPod(pod, "node-1", DefaultImage)
	if pod.Spec.NodeName != "" || pod.Spec.Containers[0].Image != "" {
		t.Errorf("TemplateFromPod changed the pod: %+v", pod.Spec)
	}
	if tmpl.Spec.NodeName != "node-1" || tmpl.Spec.Containers[1].Image != DefaultImage || tmpl.Annotations[SidecarsAnnotation] != "proxy" {
		t.Errorf("template not completed: %+v", tmpl)
	}
}
