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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestParseLateReady(t *testing.T) {
	tests := []struct {
		in      string
		want    []time.Duration
		wantErr bool
	}{
		{in: "15s,30s,45s", want: []time.Duration{15 * time.Second, 30 * time.Second, 45 * time.Second}},
		{in: " 12s , 59.5s ", want: []time.Duration{12 * time.Second, 59500 * time.Millisecond}},
		{in: ""}, {in: "0"},
		{in: "60s", wantErr: true}, // no extra checks after the minute: nothing left to judge
		{in: "-1s", wantErr: true}, {in: "15", wantErr: true}, {in: "15s,,30s", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseLateReady(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseLateReady(%q) err = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseLateReady(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestNeverReadyPods(t *testing.T) {
	for _, tt := range []struct {
		way    string
		period int32
	}{{"fork/annotated-p10", 10}, {"fork/native-wait-ready-p10", 10}, {"fork/annotated", 1}, {"upstream/native-startup", 1}} {
		t.Run(tt.way, func(t *testing.T) {
			w, _ := results.WayByName(tt.way)
			pods, recs := neverReadyPods(w, 2, []time.Duration{15 * time.Second}, []time.Duration{30 * time.Second})
			var got []string
			for i, p := range pods {
				readyAfter := ""
				for _, c := range append(append([]v1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
					for _, e := range c.Env {
						if c.Name == results.SidecarName(1) && e.Name == "READY_AFTER" {
							readyAfter = e.Value
						}
					}
				}
				got = append(got, p.Name+" "+readyAfter)
				if p.Labels[neverReadyLabel] != "true" || p.Labels["bench.sidecar-kubelet.io/probe-rate"] != "true" {
					t.Errorf("%s: labels %v: the run's list or clean-up would miss it", p.Name, p.Labels)
				}
				if recs[i].Name != p.Name {
					t.Errorf("record %d is %s, the pod %s", i, recs[i].Name, p.Name)
				}
			}
			short := strings.ReplaceAll(tt.way, "/", "-")
			want := []string{"nr-" + short + "-0 never", "nr-" + short + "-1 never", "nr-" + short + "-late-0 15s", "nr-" + short + "-fresh-0 1s"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
			if recs[0].ReadyAfter != 0 || recs[2].ReadyAfter != 15000 {
				t.Errorf("records' ReadyAfter %v, %v; want 0 (never) and 15000", recs[0].ReadyAfter, recs[2].ReadyAfter)
			}
			if diff := cmp.Diff(results.NeverReadyPod{Name: pods[3].Name, ReadyAfter: 1000, Fresh: true, CreatedAfter: 30000}, recs[3]); diff != "" {
				t.Errorf("the fresh pod's record (-want +got):\n%s", diff)
			}
			if got := probePeriod(pods[0], w.WaitedOnProbe()); got != tt.period {
				t.Errorf("probePeriod = %d, want %d", got, tt.period)
			}
		})
	}
}
