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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestPodFor(t *testing.T) {
	tests := []struct {
		way, kind          string
		n                  int
		inits, containers  int
		annotation         string
		restartPolicy      v1.RestartPolicy
		postStartOnSidecar bool
	}{
		{"fork/annotated", results.KindService, 3, 0, 4, "sc1,sc2,sc3", v1.RestartPolicyAlways, false},
		{"fork/native-startup", results.KindJob, 1, 1, 1, "", v1.RestartPolicyNever, false},
		{"fork/native-wait-ready", results.KindService, 5, 5, 1, "true", v1.RestartPolicyAlways, false},
		{"upstream/native-startup-ready", results.KindService, 1, 1, 1, "", v1.RestartPolicyAlways, false},
		{"fork/native-wait-startup", results.KindService, 3, 3, 1, "true", v1.RestartPolicyAlways, false},
		{"fork/poststart", results.KindJob, 1, 0, 2, "", v1.RestartPolicyNever, true},
		{"upstream/no-sidecars", results.KindJob, 1, 0, 1, "", v1.RestartPolicyNever, false},
		{"upstream/no-sidecars", results.KindService, 3, 0, 4, "", v1.RestartPolicyAlways, false},
		// c's floor: one plain container whatever the way.
		{"fork/annotated", results.KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
		{"fork/native-wait-ready", results.KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
		{"fork/poststart", results.KindStop, 0, 0, 1, "", v1.RestartPolicyNever, false},
	}
	for _, tt := range tests {
		t.Run(tt.way+"/"+tt.kind, func(t *testing.T) {
			w, ok := results.WayByName(tt.way)
			if !ok {
				t.Fatalf("no way %s", tt.way)
			}
			p := podFor(w, tt.kind, tt.n, "p")
			if len(p.Spec.InitContainers) != tt.inits || len(p.Spec.Containers) != tt.containers {
				t.Errorf("%d init containers and %d containers, want %d and %d", len(p.Spec.InitContainers), len(p.Spec.Containers), tt.inits, tt.containers)
			}
			got := p.Annotations["sidecar-kubelet.io/sidecars"] + p.Annotations["sidecar-kubelet.io/wait-ready"]
			if got != tt.annotation {
				t.Errorf("annotation %q, want %q", got, tt.annotation)
			}
			if p.Spec.RestartPolicy != tt.restartPolicy {
				t.Errorf("restartPolicy %s, want %s", p.Spec.RestartPolicy, tt.restartPolicy)
			}
			if has := p.Spec.Containers[0].Lifecycle != nil && p.Spec.Containers[0].Lifecycle.PostStart != nil; has != tt.postStartOnSidecar {
				t.Errorf("postStart on the first container: %v, want %v", has, tt.postStartOnSidecar)
			}
			ports := map[string]bool{}
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				for _, e := range c.Env {
					if e.Name == "PORT" {
						if ports[e.Value] {
							t.Errorf("port %s used twice", e.Value)
						}
						ports[e.Value] = true
					}
				}
			}
		})
	}
}

func TestJobRunTime(t *testing.T) {
	// Between 1 and 2 s, the same for the same pod, and spread over the
	// second: every 100 ms tenth gets some of 1000 pod names.
	tenths := map[int]int{}
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("w%d-job1-r%d-%x", i%7, i/7, 0x3be54)
		d := jobRunTime(name)
		if d < time.Second || d >= 2*time.Second {
			t.Fatalf("jobRunTime(%q) = %v, want [1s, 2s)", name, d)
		}
		if again := jobRunTime(name); again != d {
			t.Fatalf("jobRunTime(%q) = %v, then %v", name, d, again)
		}
		tenths[int((d-time.Second)/(100*time.Millisecond))]++
	}
	for tenth := 0; tenth < 10; tenth++ {
		if tenths[tenth] < 50 {
			t.Errorf("%d of 1000 run times in [1.%ds, 1.%ds), want at least 50: %v", tenths[tenth], tenth, tenth+1, tenths)
		}
	}

	w, _ := results.WayByName("fork/annotated")
	p := podFor(w, results.KindJob, 1, "w0-job1-r0-1")
	var exitAfter string
	for _, c := range p.Spec.Containers {
		for _, e := range c.Env {
			if c.Name == "app" && e.Name == "EXIT_AFTER" {
				exitAfter = e.Value
			}
		}
	}
	if want := jobRunTime("w0-job1-r0-1").String(); exitAfter != want {
		t.Errorf("the Job app's EXIT_AFTER is %q, want %q", exitAfter, want)
	}
}

// TestPodForNativeProbes: which probes the native sidecars of each way
// carry. The app waits for the startup probe where there is one; a mesh
// proxy's readiness probe beside it runs for the pod's life.
func TestPodForNativeProbes(t *testing.T) {
	for _, tt := range []struct {
		way                string
		startup, readiness bool
	}{
		{"upstream/native-startup", true, false},
		{"upstream/native-startup-ready", true, true},
		{"fork/native-wait-ready", false, true},
		{"fork/native-wait-startup", true, false},
	} {
		w, _ := results.WayByName(tt.way)
		for _, kind := range []string{results.KindService, results.KindJob} {
			p := podFor(w, kind, 2, "p")
			for _, c := range p.Spec.InitContainers {
				if got := [2]bool{c.StartupProbe != nil, c.ReadinessProbe != nil}; got != [2]bool{tt.startup, tt.readiness} {
					t.Errorf("%s, %s pod, %s: startup and readiness probes %v, want %v", tt.way, kind, c.Name, got, [2]bool{tt.startup, tt.readiness})
				}
			}
		}
		if got := w.WaitedOnProbe(); (got == "Startup") != tt.startup {
			t.Errorf("%s: WaitedOnProbe() = %q", tt.way, got)
		}
	}
}

func TestPodForProbePeriods(t *testing.T) {
	for _, tt := range []struct {
		way        string
		kind       string
		probe      string // which probe the sidecars have
		period     int32  // as set in the spec (0: left to the API's defaults)
		failure    int32
		waitedOn   string
		kubeletWay bool
	}{
		{"fork/annotated", results.KindService, "readiness", 1, 120, "Readiness", true},
		{"fork/annotated-p10", results.KindService, "readiness", 0, 0, "Readiness", true},
		{"fork/native-wait-ready-p10", results.KindJob, "readiness", 0, 0, "Readiness", true},
		{"fork/native-startup", results.KindService, "startup", 1, 120, "Startup", true},
		{"fork/poststart-p10", results.KindJob, "readiness", 0, 0, "Readiness", false},
		{"upstream/no-sidecars", results.KindService, "readiness", 1, 120, "", false},
	} {
		t.Run(tt.way, func(t *testing.T) {
			w, ok := results.WayByName(tt.way)
			if !ok {
				t.Fatalf("no way %s", tt.way)
			}
			if got := w.WaitedOnProbe(); got != tt.waitedOn {
				t.Errorf("WaitedOnProbe() = %q, want %q", got, tt.waitedOn)
			}
			if got := w.WaitsOnKubeletProbe(); got != tt.kubeletWay {
				t.Errorf("WaitsOnKubeletProbe() = %v, want %v", got, tt.kubeletWay)
			}
			p := podFor(w, tt.kind, 3, "p")
			n := 0
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				if !strings.HasPrefix(c.Name, "sc") {
					continue
				}
				n++
				probe := c.ReadinessProbe
				if tt.probe == "startup" {
					probe = c.StartupProbe
				}
				if probe == nil || probe.HTTPGet == nil {
					t.Fatalf("%s: no %s probe", c.Name, tt.probe)
				}
				if probe.PeriodSeconds != tt.period || probe.FailureThreshold != tt.failure {
					t.Errorf("%s: periodSeconds %d, failureThreshold %d, want %d and %d", c.Name, probe.PeriodSeconds, probe.FailureThreshold, tt.period, tt.failure)
				}
			}
			if want := map[string]int{results.KindService: 3, results.KindJob: 3}[tt.kind]; tt.way != "upstream/no-sidecars" && n != want {
				t.Errorf("%d sidecars, want %d", n, want)
			}
		})
	}
	// Every -p10 way is its sibling with the probes' defaults.
	for _, w := range results.Ways {
		if base, ok := strings.CutSuffix(w.Name, "-p10"); ok {
			b, found := results.WayByName(base)
			if !found || b.Style != w.Style || b.Kubelet != w.Kubelet || w.Period != 10 || b.Period != 1 {
				t.Errorf("%s: sibling %s %+v", w.Name, base, b)
			}
		}
	}
}
