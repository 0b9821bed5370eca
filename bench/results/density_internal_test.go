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

package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSpacedScrapes(t *testing.T) {
	at := func(secs ...float64) []ProbeScrape {
		var out []ProbeScrape
		for _, s := range secs {
			out = append(out, ProbeScrape{At: int64(s * 1e9)})
		}
		return out
	}
	tests := []struct {
		name     string
		in, want []ProbeScrape
	}{
		{"a second apart: all kept", at(0, 1, 2, 3), at(0, 1, 2, 3)},
		{"the last close to the one before: it replaces it", at(0, 1, 2, 2.3), at(0, 1, 2.3)},
		{"one close in the middle: dropped", at(0, 0.3, 1, 1.2, 2), at(0, 1, 2)},
		{"two, the last close: only the first (no rate)", at(0, 0.2), at(0)},
		{"the last exactly gap after: kept", at(0, 1, 1.5), at(0, 1, 1.5)},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, spacedScrapes(tt.in, 500*time.Millisecond)); diff != "" {
				t.Errorf("spacedScrapes (-want +got):\n%s", diff)
			}
		})
	}
}
