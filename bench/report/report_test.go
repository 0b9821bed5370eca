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

package report

import (
	"strings"
	"testing"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

func TestLanesNote(t *testing.T) {
	if n := lanesNote([]results.Sample{{}, {}}); !strings.Contains(n, "one at a time") {
		t.Errorf("no parallel lanes: %q", n)
	}
	if n := lanesNote([]results.Sample{{Parallel: 4}}); !strings.Contains(n, "ran 4 lanes at once") {
		t.Errorf("4 lanes: %q", n)
	}
}
