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

package measure

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestChainPod(t *testing.T) {
	tests := []struct {
		way               string
		inits, containers int
		annotations       map[string]string
		probe             string // the sidecars' one probe: Readiness or Startup
		hook              bool
	}{
		{"fork/annotated", 0, 21, map[string]string{"sidecar-kubelet.io/sidecars": "sc1,sc2,sc3,sc4,sc5,sc6,sc7,sc8,sc9,sc10,sc11,sc12,sc13,sc14,sc15,sc16,sc17,sc18,sc19,sc20"}, "Readiness", false},
		{"fork/native-wait-ready", 20, 1, map[string]string{"sidecar-kubelet.io/wait-ready": "true"}, "Readiness", false},
		{"fork/poststart", 0, 21, nil, "Readiness", true},
		{"upstream/native-startup", 20, 1, nil, "Startup", false},
	}
	for _, tt := range tests {
		t.Run(tt.way, func(t *testing.T) {
			w, _ := results.WayByName(tt.way)
			pod := chainPod(w, "ch-x", 20)
			if len(pod.Spec.InitContainers) != tt.inits || len(pod.Spec.Containers) != tt.containers {
				t.Fatalf("%d init containers and %d containers, want %d and %d", len(pod.Spec.InitContainers), len(pod.Spec.Containers), tt.inits, tt.containers)
			}
			if diff := cmp.Diff(tt.annotations, pod.Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if pod.Labels[chainLabel] != "true" || pod.Labels["bench.sidecar-kubelet.io"] != "true" {
				t.Errorf("labels %v", pod.Labels)
			}
			all := append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
			if last := all[len(all)-1]; last.Name != "app" || last.ReadinessProbe != nil || last.StartupProbe != nil {
				t.Errorf("the last container: %s, probes %v %v; want the app, without probes", last.Name, last.ReadinessProbe, last.StartupProbe)
			}
			for i, c := range all[:20] {
				if want := fmt.Sprintf("sc%d", i+1); c.Name != want {
					t.Fatalf("container %d is %s, want %s", i, c.Name, want)
				}
				env := map[string]string{}
				for _, e := range c.Env {
					env[e.Name] = e.Value
				}
				if env["READY_AFTER"] != "500ms" {
					t.Errorf("%s: READY_AFTER %q, want 500ms", c.Name, env["READY_AFTER"])
				}
				probe, other := c.ReadinessProbe, c.StartupProbe
				if tt.probe == "Startup" {
					probe, other = other, probe
				}
				if probe == nil || other != nil {
					t.Fatalf("%s: want one %s probe, have readiness %v, startup %v", c.Name, tt.probe, c.ReadinessProbe, c.StartupProbe)
				}
				want := &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{
					"/testserver", "wait-ready", "--timeout", "1ms", "--out", "/dev/null", "http://127.0.0.1:" + env["PORT"] + "/ready"}}}}
				if diff := cmp.Diff(want, probe); diff != "" {
					t.Errorf("%s: probe (-want +got):\n%s", c.Name, diff)
				}
				if has := c.Lifecycle != nil && c.Lifecycle.PostStart != nil; has != tt.hook {
					t.Errorf("%s: postStart hook %v, want %v", c.Name, has, tt.hook)
				}
			}
		})
	}
}
