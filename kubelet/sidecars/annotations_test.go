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

func TestDecide(t *testing.T) {
	const (
		notBoolean = ` is not a boolean, nor a native sidecar of the pod; want "true", "false" or names of native sidecars`
		initName   = ` is an init container; native sidecars are declared with restartPolicy: Always, not with this annotation`
	)
	testCases := []struct {
		name string
		// nilPod passes a nil pod instead of one with annotations.
		nilPod      bool
		annotations map[string]string
		// wantLayout is checked when wantProblems is empty.
		wantLayout Layout
		// wantProblems, when set, are the problems the *annotationError must
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
			name:        "wait-ready names the native sidecar",
			annotations: map[string]string{WaitReadyAnnotation: "native"},
			wantLayout:  Layout{WaitReadyFor: []string{"native"}},
		},
		{
			name:        "wait-ready names the native sidecar, with spaces",
			annotations: map[string]string{WaitReadyAnnotation: "  native "},
			wantLayout:  Layout{WaitReadyFor: []string{"native"}},
		},
		{
			name:        "annotated sidecars and a named native sidecar",
			annotations: map[string]string{SidecarsAnnotation: "a", WaitReadyAnnotation: "native"},
			wantLayout:  Layout{Sidecars: []string{"a"}, WaitReadyFor: []string{"native"}},
		},
		{
			name:         "wait-ready names a plain init container",
			annotations:  map[string]string{WaitReadyAnnotation: "init"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "init" is an init container without restartPolicy: Always; only native sidecars wait to be ready`},
		},
		{
			name:         "wait-ready names an entry of spec.containers",
			annotations:  map[string]string{WaitReadyAnnotation: "a"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "a" is an entry of spec.containers; only native sidecars are named here (annotated sidecars always wait to be ready)`},
		},
		{
			name:         "wait-ready names an unknown container alone",
			annotations:  map[string]string{WaitReadyAnnotation: "proxy"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: "proxy"` + notBoolean},
		},
		{
			name:        "wait-ready: a list with every kind of problem",
			annotations: map[string]string{WaitReadyAnnotation: "native,,native,proxy,init,app"},
			wantProblems: []string{
				`sidecar-kubelet.io/wait-ready: item 2 is empty`,
				`sidecar-kubelet.io/wait-ready: "native" is listed twice`,
				`sidecar-kubelet.io/wait-ready: "proxy" is not a native sidecar of the pod`,
				`sidecar-kubelet.io/wait-ready: "init" is an init container without restartPolicy: Always; only native sidecars wait to be ready`,
				`sidecar-kubelet.io/wait-ready: "app" is an entry of spec.containers; only native sidecars are named here (annotated sidecars always wait to be ready)`,
			},
		},
		{
			name:         "wait-ready: a trailing comma",
			annotations:  map[string]string{WaitReadyAnnotation: "native,"},
			wantProblems: []string{`sidecar-kubelet.io/wait-ready: item 2 is empty`},
		},
		{
			name:        "wait-ready: a list longer than any valid one for the pod",
			annotations: map[string]string{WaitReadyAnnotation: "native," + strings.Repeat(" ", 30)},
			wantProblems: []string{
				`sidecar-kubelet.io/wait-ready: 37 bytes, longer than any valid value for this pod (32: "true", "false", or each native sidecar's name once, with a comma and a space on either side)`,
			},
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
			var annotations map[string]string
			if pod != nil {
				annotations = pod.Annotations
			}
			d := Decide(pod, annotations)
			layout, err := d.Layout, d.Err

			if len(tc.wantProblems) == 0 {
				if err != nil {
					t.Fatalf("Decide() unexpected error: %v", err)
				}
				if diff := cmp.Diff(tc.wantLayout, layout); diff != "" {
					t.Errorf("Decide() Layout mismatch (-want +got):\n%s", diff)
				}
				return
			}

			if err == nil {
				t.Fatalf("Decide() = %+v, nil; want an error", layout)
			}
			if diff := cmp.Diff(Layout{}, layout); diff != "" {
				t.Errorf("Decide() with an error must return the zero Layout (-want +got):\n%s", diff)
			}
			var annotationErr *annotationError
			if !errors.As(err, &annotationErr) {
				t.Fatalf("Decide() error is %T, want *annotationError: %v", err, err)
			}
			if diff := cmp.Diff(tc.wantProblems, annotationErr.Problems); diff != "" {
				t.Errorf("Decide() problems mismatch (-want +got):\n%s", diff)
			}
			if annotationErr.More != tc.wantMore {
				t.Errorf("Decide() counts %d more problems, want %d", annotationErr.More, tc.wantMore)
			}
			want := strings.Join(tc.wantProblems, "; ")
			if tc.wantMore > 0 {
				want += fmt.Sprintf("; and %d more", tc.wantMore)
			}
			if got := err.Error(); got != want {
				t.Errorf("Decide() error text = %q, want %q", got, want)
			}
		})
	}
}

func TestLayoutPredicates(t *testing.T) {
	testCases := []struct {
		name            string
		layout          Layout
		wantHasSidecars bool
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
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"app": false, "native": false},
		},
		{
			name:            "two sidecars",
			layout:          Layout{Sidecars: []string{"a", "b"}},
			wantHasSidecars: true,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"a": true, "b": true, "app": false, "native": false, "": false, "A": false},
		},
		{
			name:            "wait-ready naming a native sidecar",
			layout:          Layout{WaitReadyFor: []string{"native"}},
			wantHasSidecars: false,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"app": false, "native": false},
		},
		{
			name:            "a sidecar and wait-ready",
			layout:          Layout{Sidecars: []string{"a"}, WaitReady: true},
			wantHasSidecars: true,
			wantOrdered:     true,
			wantSidecar:     map[string]bool{"a": true, "app": false, "native": false},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.layout.HasSidecars(); got != tc.wantHasSidecars {
				t.Errorf("HasSidecars() = %v, want %v", got, tc.wantHasSidecars)
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

// TestDecideNamedWaitReady checks the named form of wait-ready on a pod of
// two native sidecars, proxy and vault-agent, a plain init container
// between them, and one app: the names are kept in the order the init
// containers start, whatever the value's order, and GatesOnReady answers
// for each container.
func TestDecideNamedWaitReady(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{Spec: v1.PodSpec{
		InitContainers: []v1.Container{
			{Name: "proxy", RestartPolicy: &always},
			{Name: "migrate"},
			{Name: "vault-agent", RestartPolicy: &always},
		},
		Containers: []v1.Container{{Name: "app"}},
	}}
	for _, tc := range []struct {
		value      string
		wantLayout Layout
		wantGates  map[string]bool
	}{
		{"true", Layout{WaitReady: true}, map[string]bool{"proxy": true, "vault-agent": true}},
		{"false", Layout{}, map[string]bool{"proxy": false, "vault-agent": false}},
		{"proxy", Layout{WaitReadyFor: []string{"proxy"}}, map[string]bool{"proxy": true, "vault-agent": false}},
		{"vault-agent", Layout{WaitReadyFor: []string{"vault-agent"}}, map[string]bool{"proxy": false, "vault-agent": true}},
		{"proxy,vault-agent", Layout{WaitReadyFor: []string{"proxy", "vault-agent"}}, map[string]bool{"proxy": true, "vault-agent": true}},
		{" vault-agent , proxy ", Layout{WaitReadyFor: []string{"proxy", "vault-agent"}}, map[string]bool{"proxy": true, "vault-agent": true}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			d := Decide(pod, map[string]string{WaitReadyAnnotation: tc.value})
			if d.Err != nil {
				t.Fatalf("Decide() unexpected error: %v", d.Err)
			}
			if diff := cmp.Diff(tc.wantLayout, d.Layout); diff != "" {
				t.Errorf("Decide() Layout mismatch (-want +got):\n%s", diff)
			}
			got := map[string]bool{}
			for name := range tc.wantGates {
				got[name] = d.Layout.GatesOnReady(name)
			}
			if diff := cmp.Diff(tc.wantGates, got); diff != "" {
				t.Errorf("GatesOnReady() mismatch (-want +got):\n%s", diff)
			}
			if !d.Layout.Ordered() && tc.value != "false" {
				t.Errorf("Ordered() = false for wait-ready %q", tc.value)
			}
		})
	}
}
