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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newPod returns a pod with these init containers, native sidecars (init
// containers with restartPolicy Always) and containers. Init containers come
// first, then native sidecars, each in the order given.
func newPod(initContainers, nativeSidecars, containers []string) *v1.Pod {
	restartPolicy := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID:       "12345678",
			Name:      "bar",
			Namespace: "new",
		},
	}
	for _, name := range initContainers {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: name, Image: "busybox"})
	}
	for _, name := range nativeSidecars {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, v1.Container{Name: name, Image: "busybox", RestartPolicy: &restartPolicy})
	}
	for _, name := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: name, Image: "busybox"})
	}
	return pod
}

func TestTerminationOrder(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	onFailure := v1.ContainerRestartPolicyOnFailure

	testCases := []struct {
		name   string
		layout Layout
		pod    *v1.Pod
		want   TerminationOrder
	}{
		{
			name:   "apps only",
			layout: Layout{},
			pod:    newPod(nil, nil, []string{"x", "y"}),
			want:   TerminationOrder{After: map[string][]string{}, Apps: []string{"x", "y"}},
		},
		{
			name:   "apps and a plain init container",
			layout: Layout{},
			pod:    newPod([]string{"init"}, nil, []string{"x"}),
			want:   TerminationOrder{After: map[string][]string{}, Apps: []string{"x"}},
		},
		{
			name:   "one annotated sidecar",
			layout: Layout{Sidecars: []string{"a"}},
			pod:    newPod(nil, nil, []string{"x", "a"}),
			want: TerminationOrder{
				After:         map[string][]string{"a": {"x"}},
				PreStopAtTurn: []string{"a"},
				StopOrder:     []string{"a"},
				Apps:          []string{"x"},
				KeptUp:        []string{"a"},
			},
		},
		{
			name:   "annotated sidecars stop after the apps, in reverse annotation order",
			layout: Layout{Sidecars: []string{"a", "b"}},
			pod:    newPod(nil, nil, []string{"a", "x", "b", "y"}),
			want: TerminationOrder{
				After: map[string][]string{
					"b": {"x", "y"},
					"a": {"x", "y", "b"},
				},
				PreStopAtTurn: []string{"b", "a"},
				StopOrder:     []string{"b", "a"},
				Apps:          []string{"x", "y"},
				KeptUp:        []string{"b", "a"},
			},
		},
		{
			name:   "annotation order, not spec order, decides",
			layout: Layout{Sidecars: []string{"b", "a"}},
			pod:    newPod(nil, nil, []string{"a", "x", "b", "y"}),
			want: TerminationOrder{
				After: map[string][]string{
					"a": {"x", "y"},
					"b": {"x", "y", "a"},
				},
				PreStopAtTurn: []string{"a", "b"},
				StopOrder:     []string{"a", "b"},
				Apps:          []string{"x", "y"},
				KeptUp:        []string{"a", "b"},
			},
		},
		{
			name:   "native sidecars only: reverse order after the apps",
			layout: Layout{},
			pod:    newPod(nil, []string{"n1", "n2"}, []string{"x", "y"}),
			want: TerminationOrder{
				After: map[string][]string{
					"n2": {"x", "y"},
					"n1": {"x", "y", "n2"},
				},
				StopOrder: []string{"n2", "n1"},
				Apps:      []string{"x", "y"},
			},
		},
		{
			name:   "annotated and native sidecars, and a plain init container",
			layout: Layout{Sidecars: []string{"a", "b"}},
			pod:    newPod([]string{"init"}, []string{"n1", "n2"}, []string{"a", "b", "x", "y"}),
			want: TerminationOrder{
				After: map[string][]string{
					"b":  {"x", "y"},
					"a":  {"x", "y", "b"},
					"n2": {"x", "y", "b", "a"},
					"n1": {"x", "y", "b", "a", "n2"},
				},
				PreStopAtTurn: []string{"b", "a"},
				StopOrder:     []string{"b", "a", "n2", "n1"},
				Apps:          []string{"x", "y"},
				KeptUp:        []string{"b", "a"},
			},
		},
		{
			name:   "native sidecars between init containers of other restart policies",
			layout: Layout{Sidecars: []string{"a"}},
			pod: &v1.Pod{Spec: v1.PodSpec{
				InitContainers: []v1.Container{
					{Name: "n1", RestartPolicy: &always},
					{Name: "plain"},
					{Name: "on-failure", RestartPolicy: &onFailure},
					{Name: "n2", RestartPolicy: &always},
				},
				Containers: []v1.Container{{Name: "x"}, {Name: "a"}},
			}},
			want: TerminationOrder{
				After: map[string][]string{
					"a":  {"x"},
					"n2": {"x", "a"},
					"n1": {"x", "a", "n2"},
				},
				PreStopAtTurn: []string{"a"},
				StopOrder:     []string{"a", "n2", "n1"},
				Apps:          []string{"x"},
				KeptUp:        []string{"a"},
			},
		},
	}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.layout.TerminationOrder(tc.pod)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("TerminationOrder() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadinessEnd(t *testing.T) {
	pod := newPod([]string{"init"}, []string{"n1", "n2"}, []string{"a", "x", "y"})
	order := Layout{Sidecars: []string{"a"}}.TerminationOrder(pod)
	got := map[string]ReadinessEnd{}
	for _, name := range []string{"init", "n1", "n2", "a", "x", "y", "not-in-the-pod"} {
		got[name] = order.ReadinessEnd(name)
	}
	want := map[string]ReadinessEnd{
		// Sidecars, annotated and native: at their stop, once the apps
		// have exited.
		"a":  ReadinessEndsAtStop,
		"n1": ReadinessEndsAtStop,
		"n2": ReadinessEndsAtStop,
		// Apps drain after their SIGTERM: at their exit.
		"x": ReadinessEndsAtExit,
		"y": ReadinessEndsAtExit,
		// A plain init container never runs in a termination, and a name
		// the pod does not have never stops: at their exit, that is never.
		"init":           ReadinessEndsAtExit,
		"not-in-the-pod": ReadinessEndsAtExit,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadinessEnd() mismatch (-want +got):\n%s", diff)
	}
}

func TestTerminationOrderListsAreIndependent(t *testing.T) {
	layout := Layout{Sidecars: []string{"a", "b"}}
	pod := newPod(nil, []string{"n1", "n2"}, []string{"a", "b", "x", "y", "z"})
	order := layout.TerminationOrder(pod)

	// A caller that appends to one list must not change another.
	for name := range order.After {
		_ = append(order.After[name], "mutated")
	}
	want := map[string][]string{
		"b":  {"x", "y", "z"},
		"a":  {"x", "y", "z", "b"},
		"n2": {"x", "y", "z", "b", "a"},
		"n1": {"x", "y", "z", "b", "a", "n2"},
	}
	if diff := cmp.Diff(want, order.After); diff != "" {
		t.Errorf("TerminationOrder().After shares storage between containers (-want +got):\n%s", diff)
	}
}

// TestDeadlineRecord: a deadline recorded by one kubelet and read by the
// next, on the boot clock, whatever the wall clock did in between (contract
// rule 13). The wall clock steps an hour forward or back between the two
// readings: what is left does not change.
func TestDeadlineRecord(t *testing.T) {
	recordedAt := BootClock{BootID: "3f1c9a4e-8b2d-4c4e-9f0a-1b2c3d4e5f60", SinceBoot: 5 * time.Hour}
	wall := time.Date(2026, time.November, 26, 10, 0, 0, 0, time.UTC)
	record := FormatDeadline(30*time.Second, recordedAt)
	for _, tc := range []struct {
		name    string
		now     BootClock
		wallNow time.Time
		want    time.Duration
	}{
		{name: "read at once", now: recordedAt, wallNow: wall, want: 30 * time.Second},
		{name: "read 4 s later", now: after(recordedAt, 4*time.Second), wallNow: wall.Add(4 * time.Second), want: 26 * time.Second},
		{name: "the wall clock stepped an hour forward", now: after(recordedAt, 4*time.Second), wallNow: wall.Add(time.Hour + 4*time.Second), want: 26 * time.Second},
		{name: "the wall clock stepped an hour back", now: after(recordedAt, 4*time.Second), wallNow: wall.Add(-time.Hour + 4*time.Second), want: 26 * time.Second},
		{name: "read after the deadline", now: after(recordedAt, 45*time.Second), wallNow: wall, want: -15 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DeadlineLeft(record, tc.now, tc.wallNow)
			if err != nil || got != tc.want {
				t.Errorf("DeadlineLeft(%q) = %v, %v; want %v", record, got, err, tc.want)
			}
		})
	}

	// A record of an earlier version of the fork: the wall clock's Unix
	// nanoseconds, read on the wall clock as it was written.
	legacy := []byte("1764151230000000000\n")
	if got, err := DeadlineLeft(legacy, recordedAt, time.Unix(0, 1764151200000000000)); err != nil || got != 30*time.Second {
		t.Errorf("DeadlineLeft(%q) = %v, %v; want 30s", legacy, got, err)
	}

	otherBoot := BootClock{BootID: "another-boot", SinceBoot: time.Minute}
	for _, record := range []string{
		"", "\n", "soon", "-5", "0", "1.5", strings.Repeat("9", 100),
		"boot", "boot id", "boot id -5", "boot id 0", "boot id 1.5", "boot  id 5 extra",
		"boot " + strings.Repeat("x", 65) + " 5", "clock id 5",
		string(FormatDeadline(time.Second, recordedAt)), // read in another boot
	} {
		if got, err := DeadlineLeft([]byte(record), otherBoot, wall); err == nil {
			t.Errorf("DeadlineLeft(%q) = %v, want an error", record, got)
		} else if len(err.Error()) > 100 {
			t.Errorf("DeadlineLeft(%q) error is %d bytes", record, len(err.Error()))
		}
	}
}

func after(c BootClock, d time.Duration) BootClock {
	c.SinceBoot += d
	return c
}

// FuzzDeadlineLeft: whatever the pod's directory holds, reading it costs
// time linear in its size, never panics, and errors stay short: they quote
// at most 32 bytes of it, each at most 4 bytes escaped.
func FuzzDeadlineLeft(f *testing.F) {
	now := BootClock{BootID: "b", SinceBoot: time.Hour}
	f.Add(FormatDeadline(time.Minute, now))
	f.Add([]byte("1764151230000000000\n"))
	f.Add([]byte("boot b -1"))
	f.Fuzz(func(t *testing.T, record []byte) {
		if _, err := DeadlineLeft(record, now, time.Unix(1_764_000_000, 0)); err != nil && len(err.Error()) > 200 {
			t.Errorf("error of %d bytes", len(err.Error()))
		}
	})
}
