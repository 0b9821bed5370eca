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

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestParseExtraProbeRuns(t *testing.T) {
	text := `# HELP kubelet_sidecar_extra_probe_runs_total [ALPHA] ...
# TYPE kubelet_sidecar_extra_probe_runs_total counter
kubelet_sidecar_extra_probe_runs_total{outcome="limited"} 1234
kubelet_sidecar_extra_probe_runs_total{outcome="run"} 5.678e+03
kubelet_sidecar_app_start_wait_duration_seconds_count 3
`
	run, limited, err := parseExtraProbeRuns(strings.NewReader(text))
	if err != nil || run != 5678 || limited != 1234 {
		t.Errorf("parseExtraProbeRuns = %v, %v, %v; want 5678, 1234, nil", run, limited, err)
	}
	// Upstream's kubelet has no such counter: zeros, no error.
	run, limited, err = parseExtraProbeRuns(strings.NewReader("prober_probe_total{} 1\n"))
	if err != nil || run != 0 || limited != 0 {
		t.Errorf("without the counter: %v, %v, %v; want 0, 0, nil", run, limited, err)
	}
	if _, _, err := parseExtraProbeRuns(strings.NewReader(`kubelet_sidecar_extra_probe_runs_total{outcome="run" 1` + "\n")); err == nil {
		t.Error("a line without its closing brace: no error")
	}
}

func TestProbeRatePodNeverTurnsReadyNorGivesUp(t *testing.T) {
	for _, w := range results.Ways {
		if w.Style == "poststart" {
			continue
		}
		for _, exec := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s exec=%v", w.Name, exec), func(t *testing.T) {
				probeRatePodNeverTurnsReadyNorGivesUp(t, w, exec)
			})
		}
	}
}

// probeRatePodNeverTurnsReadyNorGivesUp checks one way's probe-rate pod, with
// the way's HTTP probe or an exec one.
func probeRatePodNeverTurnsReadyNorGivesUp(t *testing.T, w results.Way, exec bool) {
	httpPod := probeRatePod(w, "pr-x-0", false)
	pod := probeRatePod(w, "pr-x-0", exec)
	var sc *v1.Container
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if list[i].Name == results.SidecarName(1) {
				sc = &list[i]
			}
		}
	}
	if sc == nil {
		t.Fatal("no sidecar sc1")
	}
	ready := ""
	for _, e := range sc.Env {
		if e.Name == "READY_AFTER" {
			ready = e.Value
		}
	}
	if ready != "never" {
		t.Errorf("READY_AFTER = %q, want never", ready)
	}
	probes := 0
	for _, p := range []*v1.Probe{sc.ReadinessProbe, sc.StartupProbe} {
		if p != nil {
			probes++
			period := w.Period // 10: the API's default, left unset
			if period == 10 {
				period = 0
			}
			if p.FailureThreshold < 1000 || p.PeriodSeconds != period {
				t.Errorf("probe: periodSeconds %d, failureThreshold %d; want %d and one that outlasts the run", p.PeriodSeconds, p.FailureThreshold, period)
			}
			// The handler: the way's HTTP one, or an exec one that asks
			// the same /ready.
			want := sidecarProbe(t, httpPod).ProbeHandler
			if exec {
				want = execReadyProbe(want.HTTPGet.Port.IntValue()).ProbeHandler
			}
			if diff := cmp.Diff(want, p.ProbeHandler); diff != "" {
				t.Errorf("the probe's handler (-want +got):\n%s", diff)
			}
		}
	}
	// A mesh proxy's native sidecar has both; the app waits on its
	// startup probe (results.Way.WaitedOnProbe).
	want := 1
	if w.Style == "native-startup-ready" {
		want = 2
	}
	if probes != want {
		t.Errorf("%d probes on the sidecar, want %d", probes, want)
	}
	if pod.Labels["bench.sidecar-kubelet.io/probe-rate"] != "true" || pod.Labels["bench.sidecar-kubelet.io"] != "true" {
		t.Errorf("labels %v: the run's clean-up would miss the pod", pod.Labels)
	}
}

// sidecarProbe is the one probe of a probe-rate pod's sidecar.
func sidecarProbe(t *testing.T, pod *v1.Pod) *v1.Probe {
	t.Helper()
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if list[i].Name != results.SidecarName(1) {
				continue
			}
			if p := list[i].ReadinessProbe; p != nil {
				return p
			}
			if p := list[i].StartupProbe; p != nil {
				return p
			}
		}
	}
	t.Fatal("no probe on the sidecar")
	return nil
}
