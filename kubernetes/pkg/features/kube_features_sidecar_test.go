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

package features

// This file belongs to sidecar-kubelet's patch series: the fork's feature
// gates, as an operator sets them.

import (
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// TestSidecarContainerOrderingOffAlone checks the contract's promise that
// --feature-gates=SidecarContainerOrdering=false alone gives upstream's
// kubelet: the gates that switch its parts off alone
// (SidecarPromptReadinessChecks, SidecarTerminationFix) stay on by default,
// and a gate on whose declared dependency is off makes the kubelet refuse
// to start. Before the fix they were declared as depending on it, and a
// kubelet with only the main gate off did not start (kind's e2e spec of the
// gate switched off found it).
func TestSidecarContainerOrderingOffAlone(t *testing.T) {
	for _, flag := range []string{
		"SidecarContainerOrdering=false",
		"SidecarPromptReadinessChecks=false",
		"SidecarTerminationFix=false",
		"SidecarContainerOrdering=false,SidecarPromptReadinessChecks=false,SidecarTerminationFix=false",
	} {
		t.Run(flag, func(t *testing.T) {
			gate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
			if err := gate.Set(flag); err != nil {
				t.Fatalf("--feature-gates=%s: %v", flag, err)
			}
			if errs := gate.Validate(); len(errs) > 0 {
				t.Errorf("--feature-gates=%s: the kubelet would refuse to start: %v", flag, errs)
			}
		})
	}
}
