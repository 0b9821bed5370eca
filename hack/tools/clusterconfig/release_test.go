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
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

// pinned holds the releases the series are pinned to, by minor ("" is the
// default, the newest minor pinned to a release), as hack/lib/cluster.sh and
// hack/e2e-node/run.sh pass them in -k8s-version: read from
// patches/vX.Y/UPSTREAM_VERSION through hack/patches/k8s-version.sh, never
// written here.
var pinned = map[string]string{}

func TestMain(m *testing.M) {
	for _, minor := range []string{"", "1.36", "1.35"} {
		v, err := release.Pinned("../../..", minor)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pinned[minor] = v
	}
	os.Exit(m.Run())
}

// TestFeatureGatesOfEverySeries: the kubelet of every supported series,
// those pinned to a pre-release too, gets upstream's defaults plus the
// fork's gate and nothing else (EventedPLEG only when the user asks for it).
func TestFeatureGatesOfEverySeries(t *testing.T) {
	all, err := release.Supported("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		t.Run(s.Release, func(t *testing.T) {
			got, err := featureGates(gateOptions{K8sVersion: s.Release, OrderingGate: true})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"SidecarContainerOrdering": true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("featureGates (-want +got):\n%s", diff)
			}
		})
	}
}
