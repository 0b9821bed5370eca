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
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newAnnotatedPod returns a pod with the app containers app, a and b, a plain
// init container init and a native sidecar native, with these annotations.
func newAnnotatedPod(annotations map[string]string) *v1.Pod {
	restartPolicy := v1.ContainerRestartPolicyAlways
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID:         "12345678",
			Name:        "bar",
			Namespace:   "new",
			Annotations: annotations,
		},
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{
				{Name: "init", Image: "busybox"},
				{Name: "native", Image: "busybox", RestartPolicy: &restartPolicy},
			},
			Containers: []v1.Container{
				{Name: "app", Image: "busybox"},
				{Name: "a", Image: "busybox"},
				{Name: "b", Image: "busybox"},
			},
		},
	}
}

func TestParseAnnotations(t *testing.T) {
	const (
		notBoolean = ` is not a boolean; want "true" or "false"`
		initName   = ` is an init container; native sidecars are declared with restartPolicy: Always, not with this annotation`
	)
	testCases := []struct {
		name string
		// nilPod passes a nil pod instead of one with annotations.
		nilPod      bool
		annotations map[string]string
		// wantLayout is checked when wantProblems is empty.
		wantLayout Layout
		// wantProblems, when set, are the problems the *AnnotationError must
		// report, in this order.
		wantProblems []string
		// wantMore is how many more problems the error counts.
		wantMore int
	}{
		{
			name:       "nil pod",
			nilPod:     true,
			wantLayout: Layout{},
		},
		{
			name:       "no annotations",
			wantLayout: Layout{},
		},
		{
			name:        "unrelated annotations only",
			annotations: map[string]string{"example.com/foo": "bar"},
			wantLayout:  Layout{},
		},
		{
			name:        "wait-ready true",
			annotations: map[string]string{WaitReadyAnnotation: "true"},
			wantLayout:  Layout{WaitReady: true},
		},
		{
			name:        "wait-ready false",
			annotations: map[string]string{WaitReadyAnnotation: "false"},
			wantLayout:  Layout{},
		},
		{
			name:        "wait-ready with spaces and capitals",
			annotations: map[string]string{WaitReadyAnnotation: " TRUE "},
			wantLayout:  Layout{WaitReady: true},
		},
		{
			name:        "wait-ready 1, as strconv.ParseBool reads it",
			annotations: map[string]string{WaitReadyAnnotation: "1"},
			wantLayout:  Layout{WaitReady: true},
		},
		{
			name:        "wait-ready F, as strconv.ParseBool reads it",
			annotations: map[string]string{WaitReadyAnnotation: "F"},
			wantLayout:  Layout{},
		},
		{
			name:        "one sidecar",
			annotations: map[string]string{SidecarsAnnotation: "a"},
			wantLayout:  Layout{Sidecars: []string{"a"}},
		},
		{
			name:        "two sidecars in annotation order",
			annotations: map[string]string{SidecarsAnnotation: "a,b"},
			wantLayout:  Layout{Sidecars: []string{"a", "b"}},
		},
		{
			name:        "annotation order kept, not spec order",
			annotations: map[string]string{SidecarsAnnotation: "b,a"},
			wantLayout:  Layout{Sidecars: []string{"b", "a"}},
		},
		{
			name:        "whitespace trimmed",
			annotations: map[string]string{SidecarsAnnotation: " a , b "},
			wantLayout:  Layout{Sidecars: []string{"a", "b"}},
		},
		{
			name:        "sidecars and wait-ready",
			annotations: map[string]string{SidecarsAnnotation: "a", WaitReadyAnnotation: "true"},
			wantLayout:  Layout{Sidecars: []string{"a"}, WaitReady: true},
		},
		{
			name:         "empty value",
			annotations:  map[string]string{SidecarsAnnotation: ""},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: names no container`},
		},
		{
			name:         "blank value",
			annotations:  map[string]string{SidecarsAnnotation: "  "},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: names no container`},
		},
		{
			name:         "empty item",
			annotations:  map[string]string{SidecarsAnnotation: "a,,b"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: item 2 is empty`},
		},
		{
			name:         "blank item",
			annotations:  map[string]string{SidecarsAnnotation: "a, ,b"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: item 2 is empty`},
		},
		{
			name:         "trailing comma",
			annotations:  map[string]string{SidecarsAnnotation: "a,"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: item 2 is empty`},
		},
		{
			name:         "leading comma",
			annotations:  map[string]string{SidecarsAnnotation: ",a"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: item 1 is empty`},
		},
		{
			name:         "duplicate",
			annotations:  map[string]string{SidecarsAnnotation: "a,b,a"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "a" is listed twice`},
		},
		{
			name:         "duplicate after trimming",
			annotations:  map[string]string{SidecarsAnnotation: "a, a"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "a" is listed twice`},
		},
		{
			name:         "unknown name",
			annotations:  map[string]string{SidecarsAnnotation: "a,istio-proxy"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "istio-proxy" is not a container of the pod`},
		},
		{
			name:         "names are case sensitive",
			annotations:  map[string]string{SidecarsAnnotation: "A"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "A" is not a container of the pod`},
		},
		{
			name:         "plain init container",
			annotations:  map[string]string{SidecarsAnnotation: "init"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "init"` + initName},
		},
		{
			name:         "native sidecar",
			annotations:  map[string]string{SidecarsAnnotation: "a,native"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "native"` + initName},
		},
		{
			name:         "every container named",
			annotations:  map[string]string{SidecarsAnnotation: "a,b,app"},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: names every container; at least one app container must remain`},
		},
		{
			name:        "every container named, and an unknown name",
			annotations: map[string]string{SidecarsAnnotation: "app,a,b,nope"},
			wantProblems: []string{
				`sidecar-kubelet.io/sidecars: "nope" is not a container of the pod`,
				`sidecar-kubelet.io/sidecars: names every container; at least one app container must remain`,
			},
		},
		{
			name:        "every container named, one of them twice",
			annotations: map[string]string{SidecarsAnnotation: "app,a,b,a"},
			wantProblems: []string{
				`sidecar-kubelet.io/sidecars: "a" is listed twice`,
				`sidecar-kubelet.io/sidecars: names every container; at least one app container must remain`,
			},
		},
		{
			name:         "longer than any valid value for the pod",
			annotations:  map[string]string{SidecarsAnnotation: strings.Repeat("a,", 8)},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: 16 bytes, longer than any valid value for this pod (14: each container's name once, with a comma and a space on either side)`},
		},
		{
			name:        "the longest valid value",
			annotations: map[string]string{SidecarsAnnotation: " a ,  b  "},
			wantLayout:  Layout{Sidecars: []string{"a", "b"}},
		},
		{
			name:         "an unknown name as long as the pod allows",
			annotations:  map[string]string{SidecarsAnnotation: strings.Repeat("x", 14)},
			wantProblems: []string{`sidecar-kubelet.io/sidecars: "xxxxxxxxxxxxxx" is not a container of the pod`},
		},
		{
			name:        "more problems than are listed",
			annotations: map[string]string{SidecarsAnnotation: ",,,,,,,,,,"},
			wantProblems: []string{
				`sidecar-kubelet.io/sidecars: item 1 is empty`,
				`sidecar-kubelet.io/sidecars: item 2 is empty`,
				`sidecar-kubelet.io/sidecars: item 3 is empty`,
				`sidecar-kubelet.io/sidecars: item 4 is empty`,
				`sidecar-kubelet.io/sidecars: item 5 is empty`,
				`sidecar-kubelet.io/sidecars: item 6 is empty`,
				`sidecar-kubelet.io/sidecars: item 7 is empty`,
				`sidecar-kubelet.io/sidecars: item 8 is empty`,
			},
			wantMore: 3,
		},
		{
			name:         "a long wait-ready is quoted cut",
			annotations:  map[string]string{WaitReadyAnnotation: strings.Repeat("y", 100)},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "` + strings.Repeat("y", 64) + `"... (100 bytes)` + notBoolean},
		},
		{
			name:         "bad wait-ready",
			annotations:  map[string]string{WaitReadyAnnotation: "yes"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "yes"` + notBoolean},
		},
		{
			name:         "empty wait-ready",
			annotations:  map[string]string{WaitReadyAnnotation: ""},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: ""` + notBoolean},
		},
		{
			name:         "valid sidecars with bad wait-ready",
			annotations:  map[string]string{SidecarsAnnotation: "a", WaitReadyAnnotation: "yes"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "yes"` + notBoolean},
		},
		{
			name: "several problems at once",
			annotations: map[string]string{
				SidecarsAnnotation:  "a,,a,nope,init",
				WaitReadyAnnotation: "maybe",
			},
			wantProblems: []string{
				`sidecar-kubelet.io/sidecars: item 2 is empty`,
				`sidecar-kubelet.io/sidecars: "a" is listed twice`,
				`sidecar-kubelet.io/sidecars: "nope" is not a container of the pod`,
				`sidecar-kubelet.io/sidecars: "init"` + initName,
				`sidecar-kubelet.io/wait-ready: "maybe"` + notBoolean,
			},
		},
	}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var pod *v1.Pod
			if !tc.nilPod {
				pod = newAnnotatedPod(tc.annotations)
			}
			layout, err := ParseAnnotations(pod)

			if len(tc.wantProblems) == 0 {
				if err != nil {
					t.Fatalf("ParseAnnotations() unexpected error: %v", err)
				}
				if diff := cmp.Diff(tc.wantLayout, layout); diff != "" {
					t.Errorf("ParseAnnotations() Layout mismatch (-want +got):\n%s", diff)
				}
				return
			}

			if err == nil {
				t.Fatalf("ParseAnnotations() = %+v, nil; want an error", layout)
			}
			if diff := cmp.Diff(Layout{}, layout); diff != "" {
				t.Errorf("ParseAnnotations() with an error must return the zero Layout (-want +got):\n%s", diff)
			}
			var annotationErr *AnnotationError
			if !errors.As(err, &annotationErr) {
				t.Fatalf("ParseAnnotations() error is %T, want *AnnotationError: %v", err, err)
			}
			if diff := cmp.Diff(tc.wantProblems, annotationErr.Problems); diff != "" {
				t.Errorf("ParseAnnotations() problems mismatch (-want +got):\n%s", diff)
			}
			if annotationErr.More != tc.wantMore {
				t.Errorf("ParseAnnotations() counts %d more problems, want %d", annotationErr.More, tc.wantMore)
			}
			want := strings.Join(tc.wantProblems, "; ")
			if tc.wantMore > 0 {
				want += fmt.Sprintf("; and %d more", tc.wantMore)
			}
			if got := err.Error(); got != want {
				t.Errorf("ParseAnnotations() error text = %q, want %q", got, want)
			}
		})
	}
}

func TestLayoutPredicates(t *testing.T) {
	testCases := []struct {
		name            string
		layout          Layout
		wantHasSidecars bool
		wantStartWaits  bool
		wantOrdered     bool
		// wantSidecar maps container names to the expected IsSidecar.
		wantSidecar map[string]bool
	}{
		{
			name:            "zero layout",
			layout:          Layout{},
			wantHasSidecars: false,
			wantSidecar:     map[string]bool{"app": false, "a": false, "": false},
		},
		{
			name:            "wait-ready only",
			layout:          Layout{WaitReady: true},
			wantHasSidecars: false,
			wantStartWaits:  true,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"app": false, "native": false},
		},
		{
			name:            "two sidecars",
			layout:          Layout{Sidecars: []string{"a", "b"}},
			wantHasSidecars: true,
			wantStartWaits:  true,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"a": true, "b": true, "app": false, "native": false, "": false, "A": false},
		},
		{
			name:            "a sidecar and wait-ready",
			layout:          Layout{Sidecars: []string{"a"}, WaitReady: true},
			wantHasSidecars: true,
			wantStartWaits:  true,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"a": true, "app": false, "native": false},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.layout.HasSidecars(); got != tc.wantHasSidecars {
				t.Errorf("HasSidecars() = %v, want %v", got, tc.wantHasSidecars)
			}
			if got := tc.layout.StartWaitsOnProbes(); got != tc.wantStartWaits {
				t.Errorf("StartWaitsOnProbes() = %v, want %v", got, tc.wantStartWaits)
			}
			if got := tc.layout.Ordered(); got != tc.wantOrdered {
				t.Errorf("Ordered() = %v, want %v", got, tc.wantOrdered)
			}
			got := map[string]bool{}
			for name := range tc.wantSidecar {
				got[name] = tc.layout.IsSidecar(name)
			}
			if diff := cmp.Diff(tc.wantSidecar, got); diff != "" {
				t.Errorf("IsSidecar() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLayoutFor(t *testing.T) {
	pod := func(annotations map[string]string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
			Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "app"}, {Name: "proxy"}}},
		}
	}
	testCases := []struct {
		name      string
		pod       *v1.Pod
		gate      bool
		want      Layout
		wantErr   bool
		wantAsked bool
	}{
		{name: "nil pod", pod: nil, gate: true},
		{name: "no annotations: the gate is not asked", pod: pod(nil), gate: true},
		{name: "other annotations only", pod: pod(map[string]string{"x": "y"}), gate: true},
		{name: "gate off", pod: pod(map[string]string{SidecarsAnnotation: "proxy"}), gate: false, wantAsked: true},
		{name: "gate off, malformed: no error", pod: pod(map[string]string{SidecarsAnnotation: "nope"}), gate: false, wantAsked: true},
		{name: "gate on", pod: pod(map[string]string{SidecarsAnnotation: "proxy"}), gate: true, want: Layout{Sidecars: []string{"proxy"}}, wantAsked: true},
		{name: "gate on, wait-ready only", pod: pod(map[string]string{WaitReadyAnnotation: "true"}), gate: true, want: Layout{WaitReady: true}, wantAsked: true},
		{name: "gate on, malformed", pod: pod(map[string]string{SidecarsAnnotation: "nope"}), gate: true, wantErr: true, wantAsked: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			got, err := LayoutFor(tc.pod, func() bool { asked = true; return tc.gate })
			if (err != nil) != tc.wantErr {
				t.Fatalf("LayoutFor() error = %v, want error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("LayoutFor() (-want +got):\n%s", diff)
			}
			if asked != tc.wantAsked {
				t.Errorf("gate asked = %v, want %v", asked, tc.wantAsked)
			}
		})
	}
}

func TestStartedWith(t *testing.T) {
	pod := func(annotations map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: annotations}}
	}
	testCases := []struct {
		name        string
		pod         map[string]string
		sandbox     map[string]string
		hasSandbox  bool
		want        map[string]string
		wantChanged bool
		wantChange  string
	}{
		{
			name: "no sandbox yet: the pod as it is",
			pod:  map[string]string{SidecarsAnnotation: "a"},
			want: map[string]string{SidecarsAnnotation: "a"},
		},
		{
			name:       "no annotations, then or now",
			pod:        map[string]string{"other": "x"},
			sandbox:    map[string]string{"other": "y"},
			hasSandbox: true,
			want:       map[string]string{"other": "x"},
		},
		{
			name:       "unchanged",
			pod:        map[string]string{SidecarsAnnotation: "a,b", WaitReadyAnnotation: "true"},
			sandbox:    map[string]string{SidecarsAnnotation: "a,b", WaitReadyAnnotation: "true"},
			hasSandbox: true,
			want:       map[string]string{SidecarsAnnotation: "a,b", WaitReadyAnnotation: "true"},
		},
		{
			name:        "added to a running pod: removed again",
			pod:         map[string]string{SidecarsAnnotation: "a", "other": "x"},
			sandbox:     map[string]string{"other": "x"},
			hasSandbox:  true,
			want:        map[string]string{"other": "x"},
			wantChanged: true,
			wantChange:  `sidecar-kubelet.io/sidecars="a" added`,
		},
		{
			name:        "removed from a running pod: put back",
			pod:         map[string]string{},
			sandbox:     map[string]string{SidecarsAnnotation: "a", WaitReadyAnnotation: "true"},
			hasSandbox:  true,
			want:        map[string]string{SidecarsAnnotation: "a", WaitReadyAnnotation: "true"},
			wantChanged: true,
			wantChange:  `sidecar-kubelet.io/sidecars="a" removed, sidecar-kubelet.io/wait-ready="true" removed`,
		},
		{
			name:        "changed: the started value",
			pod:         map[string]string{SidecarsAnnotation: "b,a"},
			sandbox:     map[string]string{SidecarsAnnotation: "a,b"},
			hasSandbox:  true,
			want:        map[string]string{SidecarsAnnotation: "a,b"},
			wantChanged: true,
			wantChange:  `sidecar-kubelet.io/sidecars changed from "a,b" to "b,a"`,
		},
		{
			name:        "a sandbox without annotations at all",
			pod:         map[string]string{WaitReadyAnnotation: "true"},
			sandbox:     nil,
			hasSandbox:  true,
			want:        map[string]string{},
			wantChanged: true,
			wantChange:  `sidecar-kubelet.io/wait-ready="true" added`,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := pod(tc.pod)
			before := p.DeepCopy()
			got, changed := StartedWith(p, tc.sandbox, tc.hasSandbox)
			if changed != tc.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			if diff := cmp.Diff(tc.want, got.Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("started annotations mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("the pod was modified (-before +after):\n%s", diff)
			}
			if !changed && got != p {
				t.Errorf("an unchanged pod must be returned as it is, not copied")
			}
			if changed {
				if diff := cmp.Diff(tc.wantChange, DescribeChange(got, p)); diff != "" {
					t.Errorf("DescribeChange mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}
