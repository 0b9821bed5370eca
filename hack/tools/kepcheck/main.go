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

// kepcheck checks the KEP draft's metadata (docs/kep/kep.yaml and
// docs/kep/prod-readiness.yaml) as far as it can be checked without the
// enhancements repository: every field is one of upstream's (its
// api.Proposal's yaml keys: an unknown key fails), the values are of
// upstream's template (statuses, stages, milestones as "vX.Y" in order,
// owning SIG a sig-*, components of Kubernetes), the PRR file names the
// same KEP, and what the metadata names is real here: each feature gate
// and metric appears in the draft and in the fork's code (kubernetes/ and
// kubelet/, where the gate and the metrics are defined).
//
//	go run ./kepcheck ../..
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Proposal holds the keys of upstream's kep.yaml (enhancements' api.Proposal).
type Proposal struct {
	Title             string        `yaml:"title"`
	Number            string        `yaml:"kep-number"`
	Authors           []string      `yaml:"authors"`
	OwningSIG         string        `yaml:"owning-sig"`
	ParticipatingSIGs []string      `yaml:"participating-sigs"`
	Reviewers         []string      `yaml:"reviewers"`
	Approvers         []string      `yaml:"approvers"`
	PRRApprovers      []string      `yaml:"prr-approvers"`
	Editor            string        `yaml:"editor"`
	CreationDate      string        `yaml:"creation-date"`
	LastUpdated       string        `yaml:"last-updated"`
	Status            string        `yaml:"status"`
	SeeAlso           []string      `yaml:"see-also"`
	Replaces          []string      `yaml:"replaces"`
	SupersededBy      []string      `yaml:"superseded-by"`
	Stage             string        `yaml:"stage"`
	LatestMilestone   string        `yaml:"latest-milestone"`
	Milestone         Milestone     `yaml:"milestone"`
	FeatureGates      []FeatureGate `yaml:"feature-gates"`
	DisableSupported  bool          `yaml:"disable-supported"`
	Metrics           []string      `yaml:"metrics"`
}

// Milestone is the release of each stage.
type Milestone struct {
	Alpha  string `yaml:"alpha"`
	Beta   string `yaml:"beta"`
	Stable string `yaml:"stable"`
}

// FeatureGate is a gate and the components that must enable it.
type FeatureGate struct {
	Name       string   `yaml:"name"`
	Components []string `yaml:"components"`
}

// PRR is keps/prod-readiness/<sig>/<number>.yaml.
type PRR struct {
	Number string `yaml:"kep-number"`
	Alpha  *struct {
		Approver string `yaml:"approver"`
	} `yaml:"alpha"`
	Beta *struct {
		Approver string `yaml:"approver"`
	} `yaml:"beta"`
	Stable *struct {
		Approver string `yaml:"approver"`
	} `yaml:"stable"`
}

var (
	statuses   = []string{"provisional", "implementable", "implemented", "deferred", "rejected", "withdrawn", "replaced"}
	stages     = []string{"alpha", "beta", "stable"}
	components = []string{"kubelet", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubectl"}
	milestone  = regexp.MustCompile(`^v1\.([0-9]+)$`)
	date       = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	number     = regexp.MustCompile(`^([0-9]+|NNNN)$`)
)

// decodeStrict decodes YAML into out, failing on keys out does not have.
func decodeStrict(data []byte, out any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(out)
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// CheckProposal returns what is wrong with the KEP's metadata; draft is the
// KEP's text and code the fork's code, both searched for the gates and
// metrics the metadata names.
func CheckProposal(p Proposal, draft, code string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if p.Title == "" {
		bad("title is empty")
	}
	if !number.MatchString(p.Number) {
		bad("kep-number %q is neither a number nor NNNN", p.Number)
	}
	if len(p.Authors) == 0 || len(p.Reviewers) == 0 || len(p.Approvers) == 0 {
		bad("authors, reviewers and approvers each need an entry (TBD until known)")
	}
	if !strings.HasPrefix(p.OwningSIG, "sig-") {
		bad("owning-sig %q is not a sig-*", p.OwningSIG)
	}
	for _, s := range p.ParticipatingSIGs {
		if !strings.HasPrefix(s, "sig-") {
			bad("participating SIG %q is not a sig-*", s)
		}
	}
	if !contains(statuses, p.Status) {
		bad("status %q is not one of %v", p.Status, statuses)
	}
	if !date.MatchString(p.CreationDate) {
		bad("creation-date %q is not yyyy-mm-dd", p.CreationDate)
	}
	if !contains(stages, p.Stage) {
		bad("stage %q is not one of %v", p.Stage, stages)
	}
	minor := func(field, v string) int {
		m := milestone.FindStringSubmatch(v)
		if m == nil {
			bad("%s %q is not a milestone vX.Y", field, v)
			return -1
		}
		var n int
		fmt.Sscan(m[1], &n)
		return n
	}
	latest := minor("latest-milestone", p.LatestMilestone)
	alpha, beta, stable := minor("milestone.alpha", p.Milestone.Alpha), minor("milestone.beta", p.Milestone.Beta), minor("milestone.stable", p.Milestone.Stable)
	if alpha >= 0 && beta >= 0 && stable >= 0 && !(alpha < beta && beta < stable) {
		bad("milestones alpha %s, beta %s, stable %s are not in order", p.Milestone.Alpha, p.Milestone.Beta, p.Milestone.Stable)
	}
	if p.Stage == "alpha" && latest >= 0 && alpha >= 0 && latest != alpha {
		bad("stage alpha, but latest-milestone %s is not milestone.alpha %s", p.LatestMilestone, p.Milestone.Alpha)
	}
	if p.Stage != "" && p.Stage != "stable" && len(p.FeatureGates) == 0 {
		bad("a feature before GA needs its feature gates listed")
	}
	for _, g := range p.FeatureGates {
		if g.Name == "" || len(g.Components) == 0 {
			bad("feature gate %q needs a name and components", g.Name)
		}
		for _, c := range g.Components {
			if !contains(components, c) {
				bad("feature gate %s: component %q is not one of %v", g.Name, c, components)
			}
		}
		if !strings.Contains(draft, g.Name) || !strings.Contains(code, g.Name) {
			bad("feature gate %s is not both in the draft and in the fork's code", g.Name)
		}
	}
	for _, m := range p.Metrics {
		if !strings.Contains(draft, m) {
			bad("metric %s is not in the draft", m)
		}
		// The code names a metric by its parts (subsystem, name).
		if !strings.Contains(code, strings.TrimPrefix(m, "kubelet_")) {
			bad("metric %s is not defined in the fork's code", m)
		}
	}
	return errs
}

// CheckPRR returns what is wrong with the PRR file of the KEP p.
func CheckPRR(prr PRR, p Proposal) []string {
	var errs []string
	if prr.Number != p.Number {
		errs = append(errs, fmt.Sprintf("the PRR file's kep-number %q is not kep.yaml's %q", prr.Number, p.Number))
	}
	approver := map[string]bool{"alpha": prr.Alpha != nil, "beta": prr.Beta != nil, "stable": prr.Stable != nil}
	if !approver[p.Stage] {
		errs = append(errs, fmt.Sprintf("the PRR file has no approver entry for the KEP's stage %s", p.Stage))
	}
	return errs
}

// readTree concatenates the .go files below the given folders of root.
func readTree(root string, dirs ...string) (string, error) {
	var b strings.Builder
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			data, err := os.ReadFile(path)
			b.Write(data)
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func run(root string) ([]string, error) {
	kepData, err := os.ReadFile(filepath.Join(root, "docs/kep/kep.yaml"))
	if err != nil {
		return nil, err
	}
	var p Proposal
	if err := decodeStrict(kepData, &p); err != nil {
		return nil, fmt.Errorf("docs/kep/kep.yaml: %w", err)
	}
	prrData, err := os.ReadFile(filepath.Join(root, "docs/kep/prod-readiness.yaml"))
	if err != nil {
		return nil, err
	}
	var prr PRR
	if err := decodeStrict(prrData, &prr); err != nil {
		return nil, fmt.Errorf("docs/kep/prod-readiness.yaml: %w", err)
	}
	draft, err := os.ReadFile(filepath.Join(root, "docs/kep/README.md"))
	if err != nil {
		return nil, err
	}
	// The gate is defined by the series (a patch of upstream's
	// kube_features.go), the metrics by kubelet/sidecarmetrics.
	code, err := readTree(root, "kubelet", "kubernetes")
	if err != nil {
		return nil, err
	}
	patches, err := filepath.Glob(filepath.Join(root, "patches/*/*.patch"))
	if err != nil {
		return nil, err
	}
	for _, f := range patches {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		code += string(data)
	}
	return append(CheckProposal(p, string(draft), code), CheckPRR(prr, p)...), nil
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	errs, err := run(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kepcheck:", err)
		os.Exit(1)
	}
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, "kepcheck: docs/kep/kep.yaml:", e)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
	fmt.Println("kepcheck: docs/kep/kep.yaml and prod-readiness.yaml have upstream's fields and values, and name a gate and metrics the draft and the code define")
}
