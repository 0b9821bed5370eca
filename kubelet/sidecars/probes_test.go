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

package sidecars

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestWaitsOnReadinessAndStartup(t *testing.T) {
	httpGet := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/ready", Port: intstr.FromInt32(8080)}}}
	tcp := &v1.Probe{ProbeHandler: v1.ProbeHandler{TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(8080)}}}
	grpc := &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 8080}}}
	exec := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"ready"}}}}
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "native", ReadinessProbe: httpGet, RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
			{Name: "native-started", StartupProbe: httpGet, RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
			{Name: "init", ReadinessProbe: httpGet, StartupProbe: httpGet},
			{Name: "vault", ReadinessProbe: httpGet, RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
		},
		Containers: []v1.Container{
			{Name: "proxy", ReadinessProbe: httpGet, StartupProbe: tcp},
			{Name: "started", StartupProbe: grpc},
			{Name: "exec", ReadinessProbe: exec},
			{Name: "exec-started", StartupProbe: exec},
			{Name: "tcp", ReadinessProbe: tcp},
			{Name: "no-probe"},
			{Name: "app", ReadinessProbe: httpGet, StartupProbe: httpGet},
		},
	}}
	container := func(name string) *v1.Container {
		for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for i := range cs {
				if cs[i].Name == name {
					return &cs[i]
				}
			}
		}
		t.Fatalf("no container %s", name)
		return nil
	}
	// waitsOn is which of the container's probes other containers wait on.
	type waitsOn struct{ Readiness, Startup bool }
	annotated := Layout{Sidecars: []string{"proxy", "started", "exec", "exec-started", "tcp", "no-probe"}}
	testCases := []struct {
		name      string
		layout    Layout
		container string
		want      waitsOn
	}{
		{name: "annotated sidecar, HTTP readiness probe and a TCP startup probe: the readiness probe runs once the startup probe has succeeded",
			layout: annotated, container: "proxy", want: waitsOn{Readiness: true, Startup: true}},
		{name: "annotated sidecar, gRPC startup probe and no readiness probe: its success is the sidecar's readiness",
			layout: annotated, container: "started", want: waitsOn{Startup: true}},
		{name: "annotated sidecar, TCP readiness probe", layout: annotated, container: "tcp", want: waitsOn{Readiness: true}},
		{name: "annotated sidecar, exec readiness probe (contract rule 3 names no probe kind)", layout: annotated, container: "exec", want: waitsOn{Readiness: true}},
		{name: "annotated sidecar, exec startup probe", layout: annotated, container: "exec-started", want: waitsOn{Startup: true}},
		{name: "annotated sidecar without probes: nothing to run more often", layout: annotated, container: "no-probe", want: waitsOn{}},
		{name: "app container: nobody waits on it", layout: annotated, container: "app", want: waitsOn{}},
		{name: "native sidecar under wait-ready", layout: Layout{WaitReady: true}, container: "native", want: waitsOn{Readiness: true}},
		{name: "native sidecar under wait-ready with a startup probe alone", layout: Layout{WaitReady: true}, container: "native-started", want: waitsOn{Startup: true}},
		{name: "native sidecar without wait-ready: upstream's probes", layout: annotated, container: "native", want: waitsOn{}},
		{name: "native sidecar with a startup probe, without wait-ready: upstream's probes", layout: annotated, container: "native-started", want: waitsOn{}},
		{name: "plain init container under wait-ready", layout: Layout{WaitReady: true}, container: "init", want: waitsOn{}},
		{name: "native sidecar that wait-ready names", layout: Layout{WaitReadyFor: []string{"native"}}, container: "native", want: waitsOn{Readiness: true}},
		{name: "native sidecar that wait-ready does not name: upstream's probes", layout: Layout{WaitReadyFor: []string{"native"}}, container: "vault", want: waitsOn{}},
		{name: "an app with probes, named by a layout Decide would refuse", layout: Layout{WaitReadyFor: []string{"app"}}, container: "app", want: waitsOn{}},
		{name: "no annotations: upstream's probes", layout: Layout{}, container: "proxy", want: waitsOn{}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			c := container(tc.container)
			got := waitsOn{Readiness: tc.layout.WaitsOnReadiness(pod, c), Startup: tc.layout.WaitsOnStartup(pod, c)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("probes waited on (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("no pod, no container", func(t *testing.T) {
		got := waitsOn{Readiness: annotated.WaitsOnReadiness(nil, container("proxy")), Startup: annotated.WaitsOnStartup(pod, nil)}
		if diff := cmp.Diff(waitsOn{}, got); diff != "" {
			t.Errorf("probes waited on (-want +got):\n%s", diff)
		}
	})
}

func TestHoldsOthers(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "native", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
			{Name: "init"},
			{Name: "vault", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
		},
		Containers: []v1.Container{{Name: "proxy"}, {Name: "app"}},
	}}
	annotated := Layout{Sidecars: []string{"proxy"}}
	testCases := []struct {
		name      string
		layout    Layout
		pod       *v1.Pod
		container string
		want      bool
	}{
		{name: "annotated sidecar", layout: annotated, pod: pod, container: "proxy", want: true},
		{name: "app of an annotated pod: nobody waits on it", layout: annotated, pod: pod, container: "app", want: false},
		{name: "native sidecar without wait-ready: upstream's relists", layout: annotated, pod: pod, container: "native", want: false},
		{name: "native sidecar under wait-ready", layout: Layout{WaitReady: true}, pod: pod, container: "native", want: true},
		{name: "plain init container under wait-ready", layout: Layout{WaitReady: true}, pod: pod, container: "init", want: false},
		{name: "regular container under wait-ready", layout: Layout{WaitReady: true}, pod: pod, container: "app", want: false},
		{name: "no annotations", layout: Layout{}, pod: pod, container: "proxy", want: false},
		{name: "a name the pod does not have", layout: Layout{WaitReady: true}, pod: pod, container: "gone", want: false},
		{name: "no pod", layout: Layout{WaitReady: true}, pod: nil, container: "native", want: false},
		{name: "native sidecar that wait-ready names", layout: Layout{WaitReadyFor: []string{"vault"}}, pod: pod, container: "vault", want: true},
		{name: "native sidecar that wait-ready does not name: upstream's relists", layout: Layout{WaitReadyFor: []string{"vault"}}, pod: pod, container: "native", want: false},
		{name: "a plain init container, named by a layout Decide would refuse", layout: Layout{WaitReadyFor: []string{"init"}}, pod: pod, container: "init", want: false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.layout.HoldsOthers(tc.pod, tc.container); got != tc.want {
				t.Errorf("HoldsOthers(%q) = %v, want %v", tc.container, got, tc.want)
			}
		})
	}
}

func TestGatedNativeSidecars(t *testing.T) {
	always := ptr.To(v1.ContainerRestartPolicyAlways)
	spec := &v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "proxy", RestartPolicy: always},
			{Name: "migrate"},
			{Name: "vault-agent", RestartPolicy: always},
			{Name: "logs", RestartPolicy: always},
		},
		Containers: []v1.Container{{Name: "app"}},
	}
	for _, tc := range []struct {
		name   string
		layout Layout
		spec   *v1.PodSpec
		want   []string
	}{
		{name: "zero layout: none, as upstream", layout: Layout{}, spec: spec},
		{name: "annotated sidecars only: none", layout: Layout{Sidecars: []string{"app"}}, spec: spec},
		{name: "wait-ready true: every native sidecar, in order", layout: Layout{WaitReady: true}, spec: spec, want: []string{"proxy", "vault-agent", "logs"}},
		{name: "wait-ready naming two: those, in order", layout: Layout{WaitReadyFor: []string{"proxy", "logs"}}, spec: spec, want: []string{"proxy", "logs"}},
		{name: "no spec", layout: Layout{WaitReady: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.layout.GatedNativeSidecars(tc.spec)); diff != "" {
				t.Errorf("GatedNativeSidecars() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
