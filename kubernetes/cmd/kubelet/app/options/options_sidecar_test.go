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

package options

// This file belongs to sidecar-kubelet's patch series: the node owner's
// bound of the extra probe runs.

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

func TestSidecarExtraProbeRunsPerSecondFlag(t *testing.T) {
	testCases := []struct {
		args    []string
		want    int32
		invalid bool
	}{
		{args: nil, want: sidecars.DefaultExtraProbeRunsPerSecond},
		{args: []string{"--sidecar-extra-probe-runs-per-second=20"}, want: 20},
		{args: []string{"--sidecar-extra-probe-runs-per-second=0"}, want: 0},
		{args: []string{"--sidecar-extra-probe-runs-per-second=-1"}, want: -1, invalid: true},
		{args: []string{"--sidecar-extra-probe-runs-per-second=10001"}, want: 10001, invalid: true},
	}
	for _, tc := range testCases {
		f := NewKubeletFlags()
		fs := pflag.NewFlagSet("kubelet", pflag.ContinueOnError)
		f.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if f.SidecarExtraProbeRunsPerSecond != tc.want {
			t.Errorf("%v: the bound is %d, want %d", tc.args, f.SidecarExtraProbeRunsPerSecond, tc.want)
		}
		if err := ValidateKubeletFlags(f); (err != nil) != tc.invalid {
			t.Errorf("%v: ValidateKubeletFlags() = %v, want an error: %v", tc.args, err, tc.invalid)
		}
	}
}
