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
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxErrorText bounds an annotationError's text: maxProblems problems and
// the count of the others, each problem a sentence quoting at most
// maxQuoted bytes (escaped, up to four bytes each).
const maxErrorText = (maxProblems + 1) * (len(SidecarsAnnotation) + 4*maxQuoted + 160)

// FuzzDecide checks Decide on a pod with the containers
// app, a and b and the init containers init (plain) and native (restartPolicy
// Always), with both annotations set to the fuzzed values. Its seeds cover
// every kind of problem and the valid forms, and run in every go test.
func FuzzDecide(f *testing.F) {
	for _, seed := range []struct{ sidecars, waitReady string }{
		// Valid.
		{"a", "false"},
		{"a", "true"},
		{"a,b", "true"},
		{"b,a", "false"},
		{" a , b ", " TRUE "},
		{"a", "1"},
		{"b", "F"},
		// Empty value, empty items.
		{"", "false"},
		{"   ", "false"},
		{"a,,b", "false"},
		{"a,", "false"},
		{",", "false"},
		{"a, ,b", "true"},
		// Duplicates.
		{"a,a", "false"},
		{"a, b ,a ", "false"},
		// Unknown names, init containers.
		{"nope", "false"},
		{"A", "false"},
		{"init", "false"},
		{"native", "true"},
		// Every container named.
		{"app,a,b", "false"},
		{"b,app,a", "true"},
		// wait-ready naming native sidecars.
		{"a", "native"},
		{"a", " native "},
		{"a", "native,"},
		{"a", "native,native"},
		{"a", "native,init"},
		{"a", "init"},
		{"a", "app"},
		{"a", "native,a,,nope"},
		{"a", "native" + strings.Repeat(",", 40)},
		{"a", strings.Repeat("native,", 1000)},
		// Bad wait-ready.
		{"a", "yes"},
		{"a", ""},
		{"a", "truee"},
		// Several problems at once.
		{"a,,a,nope,init,native,", "maybe"},
		{"app,a,b,b", "no"},
		// Odd bytes.
		{"a\x00,b", "\xff"},
		{"a,\u00a0b\u00a0", "true"},
		{"a\tb", "t"},
		// Long values.
		{strings.Repeat("nope,", 1000), strings.Repeat("y", 1000)},
		{strings.Repeat(",", 13), "true"},
		{strings.Repeat("\xff", 100), "true"},
	} {
		f.Add(seed.sidecars, seed.waitReady)
	}

	f.Fuzz(func(t *testing.T, sidecars, waitReady string) {
		pod := newAnnotatedPod(map[string]string{
			SidecarsAnnotation:  sidecars,
			WaitReadyAnnotation: waitReady,
		})
		d := Decide(pod, pod.Annotations)
		layout, err := d.Layout, d.Err

		if err != nil {
			if diff := cmp.Diff(Layout{}, layout); diff != "" {
				t.Errorf("Decide(%q, %q) with error %q: Layout is not zero (-want +got):\n%s", sidecars, waitReady, err, diff)
			}
			var annotationErr *annotationError
			if !errors.As(err, &annotationErr) {
				t.Fatalf("Decide(%q, %q) error is %T, want *annotationError: %v", sidecars, waitReady, err, err)
			}
			if len(annotationErr.Problems) == 0 {
				t.Errorf("Decide(%q, %q) returned an *annotationError without problems", sidecars, waitReady)
			}
			// The error, and so the event, stays small whatever the values'
			// length (contract rule 16).
			if got := len(err.Error()); got > maxErrorText {
				t.Errorf("Decide(%d bytes, %d bytes) error is %d bytes, more than %d", len(sidecars), len(waitReady), got, maxErrorText)
			}
			for _, problem := range annotationErr.Problems {
				if !strings.HasPrefix(problem, SidecarsAnnotation) && !strings.HasPrefix(problem, WaitReadyAnnotation) {
					t.Errorf("Decide(%q, %q) problem %q does not start with the annotation name", sidecars, waitReady, problem)
				}
			}
			return
		}

		// wait-ready: every native sidecar, or those it names, each once,
		// in the order of the init containers.
		if layout.WaitReady && len(layout.WaitReadyFor) > 0 {
			t.Errorf("Decide(%q, %q) = %+v: both every native sidecar and some", sidecars, waitReady, layout)
		}
		if diff := cmp.Diff([]string{"native"}, layout.WaitReadyFor); len(layout.WaitReadyFor) > 0 && diff != "" {
			t.Errorf("Decide(%q, %q) names other than the one native sidecar (-want +got):\n%s", sidecars, waitReady, diff)
		}
		for _, name := range []string{"native", "init", "app", "a", "b"} {
			want := layout.WaitReady || (name == "native" && len(layout.WaitReadyFor) > 0)
			if got := layout.GatesOnReady(name); got != want {
				t.Errorf("Decide(%q, %q) = %+v: GatesOnReady(%q) = %v, want %v", sidecars, waitReady, layout, name, got, want)
			}
		}

		var specNames []string
		for _, c := range pod.Spec.Containers {
			specNames = append(specNames, c.Name)
		}
		seen := map[string]bool{}
		for _, name := range layout.Sidecars {
			if !slices.Contains(specNames, name) {
				t.Errorf("Decide(%q, %q) sidecar %q is not an entry of spec.containers", sidecars, waitReady, name)
			}
			if seen[name] {
				t.Errorf("Decide(%q, %q) sidecar %q is listed twice in %q", sidecars, waitReady, name, layout.Sidecars)
			}
			seen[name] = true
		}
		apps := 0
		for _, name := range specNames {
			if !layout.IsSidecar(name) {
				apps++
			}
		}
		if apps == 0 {
			t.Errorf("Decide(%q, %q) = %q leaves no app container", sidecars, waitReady, layout.Sidecars)
		}

		// The order is that of first appearance in the value.
		var wantOrder []string
		for _, item := range strings.Split(sidecars, ",") {
			if name := strings.TrimSpace(item); name != "" && !slices.Contains(wantOrder, name) {
				wantOrder = append(wantOrder, name)
			}
		}
		if diff := cmp.Diff(wantOrder, layout.Sidecars); diff != "" {
			t.Errorf("Decide(%q, %q) sidecar order mismatch (-want +got):\n%s", sidecars, waitReady, diff)
		}
	})
}
