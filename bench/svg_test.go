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

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLabelLanes(t *testing.T) {
	tests := []struct {
		name       string
		xs, widths []float64
		want       []int
	}{
		{"none", nil, nil, []int{}},
		{"apart: one lane", []float64{10, 100}, []float64{20, 20}, []int{0, 0}},
		{"overlapping: stacked", []float64{100, 105}, []float64{30, 30}, []int{0, 1}},
		{"three close: three lanes", []float64{100, 105, 110}, []float64{30, 30, 30}, []int{0, 1, 2}},
		{"the third clear of the first: back on lane 0", []float64{100, 110, 140}, []float64{30, 30, 20}, []int{0, 1, 0}},
		{"in any order: by left edge", []float64{140, 100, 110}, []float64{20, 30, 30}, []int{0, 0, 1}},
		{"exactly gap apart: one lane", []float64{0, 34}, []float64{30, 30}, []int{0, 0}},
		{"less than gap apart: stacked", []float64{0, 33}, []float64{30, 30}, []int{0, 1}},
		{"a wide label holds its lane to its right edge", []float64{100, 90}, []float64{100, 10}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, labelLanes(tt.xs, tt.widths, 4)); diff != "" {
				t.Errorf("labelLanes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodEventsAndPanelHead(t *testing.T) {
	s := Sample{Create: 1, ContainersReady: 5, Succeeded: 7}
	var got []string
	for _, ev := range podEvents(s) {
		got = append(got, ev.name)
	}
	if diff := cmp.Diff([]string{"create", "ready", "Succeeded"}, got); diff != "" {
		t.Errorf("podEvents (-want +got):\n%s", diff)
	}
	if podEvents(Sample{}) != nil {
		t.Error("events of a pod that never was")
	}
	if panelHead(1) != headHeight || panelHead(3) != headHeight+2*eventLaneHeight {
		t.Errorf("panelHead(1) = %d, panelHead(3) = %d", panelHead(1), panelHead(3))
	}
}
