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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func validProposal() Proposal {
	return Proposal{
		Title: "Readiness-gated sidecars", Number: "NNNN", Authors: []string{"TBD"},
		OwningSIG: "sig-node", ParticipatingSIGs: []string{"sig-apps"},
		Reviewers: []string{"TBD"}, Approvers: []string{"TBD"},
		Status: "provisional", CreationDate: "2026-11-26", Stage: "alpha",
		LatestMilestone: "v1.39", Milestone: Milestone{Alpha: "v1.39", Beta: "v1.40", Stable: "v1.42"},
		FeatureGates: []FeatureGate{{Name: "SidecarContainerOrdering", Components: []string{"kube-apiserver", "kubelet"}}},
		Metrics:      []string{"kubelet_sidecar_extra_probe_runs_total"},
	}
}

const (
	draft = "the gate SidecarContainerOrdering; kubelet_sidecar_extra_probe_runs_total"
	code  = `SidecarContainerOrdering featuregate.Feature = "SidecarContainerOrdering"; Name: "sidecar_extra_probe_runs_total"`
)

func TestCheckProposal(t *testing.T) {
	testCases := []struct {
		name   string
		change func(*Proposal)
		want   []string
	}{
		{name: "the draft's metadata", change: func(*Proposal) {}},
		{name: "a status upstream does not know", change: func(p *Proposal) { p.Status = "draft" },
			want: []string{`status "draft" is not one of`}},
		{name: "milestones out of order", change: func(p *Proposal) { p.Milestone.Beta = "v1.43" },
			want: []string{"milestones alpha v1.39, beta v1.43, stable v1.42 are not in order"}},
		{name: "a milestone not vX.Y", change: func(p *Proposal) { p.LatestMilestone = "1.39" },
			want: []string{`latest-milestone "1.39" is not a milestone vX.Y`}},
		{name: "a component that is not one", change: func(p *Proposal) { p.FeatureGates[0].Components = []string{"containerd"} },
			want: []string{`feature gate SidecarContainerOrdering: component "containerd" is not one of`}},
		{name: "a gate the code does not define", change: func(p *Proposal) { p.FeatureGates[0].Name = "SidecarStartupGate" },
			want: []string{"feature gate SidecarStartupGate is not both in the draft and in the fork's code"}},
		{name: "a metric nobody defines", change: func(p *Proposal) { p.Metrics = append(p.Metrics, "kubelet_sidecar_nothing_total") },
			want: []string{"metric kubelet_sidecar_nothing_total is not in the draft", "metric kubelet_sidecar_nothing_total is not defined in the fork's code"}},
		{name: "an owning SIG that is not one", change: func(p *Proposal) { p.OwningSIG = "node" },
			want: []string{`owning-sig "node" is not a sig-*`}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := validProposal()
			tc.change(&p)
			got := CheckProposal(p, draft, code)
			// Compare the start of each error: the lists of allowed values
			// are not the point.
			var gotStarts []string
			for i, g := range got {
				if i < len(tc.want) && strings.HasPrefix(g, tc.want[i]) {
					g = tc.want[i]
				}
				gotStarts = append(gotStarts, g)
			}
			if diff := cmp.Diff(tc.want, gotStarts); diff != "" {
				t.Errorf("CheckProposal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeStrictAndCheckPRR(t *testing.T) {
	var p Proposal
	if err := decodeStrict([]byte("title: x\nkep-numbr: 1\n"), &p); err == nil || !strings.Contains(err.Error(), "kep-numbr") {
		t.Errorf("a key upstream does not have: got %v, want an error naming it", err)
	}
	var prr PRR
	if err := decodeStrict([]byte("kep-number: NNNN\nalpha:\n  approver: TBD\n"), &prr); err != nil {
		t.Fatalf("the PRR file: %v", err)
	}
	if errs := CheckPRR(prr, validProposal()); len(errs) != 0 {
		t.Errorf("CheckPRR = %v, want none", errs)
	}
	beta := validProposal()
	beta.Stage = "beta"
	beta.Number = "1234"
	if diff := cmp.Diff([]string{
		`the PRR file's kep-number "NNNN" is not kep.yaml's "1234"`,
		"the PRR file has no approver entry for the KEP's stage beta",
	}, CheckPRR(prr, beta)); diff != "" {
		t.Errorf("CheckPRR (-want +got):\n%s", diff)
	}
}
