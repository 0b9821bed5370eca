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

package podorder

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	// Only this test imports the kubelet's side: test imports are not
	// dependencies of the package a suite builds.
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

// TestAnnotationsAreTheKubelets: the package's copies of the annotation
// names are the ones the kubelet reads.
func TestAnnotationsAreTheKubelets(t *testing.T) {
	if SidecarsAnnotation != sidecars.SidecarsAnnotation {
		t.Errorf("SidecarsAnnotation = %q, the kubelet reads %q", SidecarsAnnotation, sidecars.SidecarsAnnotation)
	}
	if WaitReadyAnnotation != sidecars.WaitReadyAnnotation {
		t.Errorf("WaitReadyAnnotation = %q, the kubelet reads %q", WaitReadyAnnotation, sidecars.WaitReadyAnnotation)
	}
}

// forbiddenImports are the import path prefixes a suite that imports
// podorder must not build: the kubelet's metrics stack.
var forbiddenImports = []string{"k8s.io/component-base/", "github.com/prometheus/"}

// TestNoKubeletDependencies: the package builds without component-base
// and Prometheus, so that a suite importing it for the matchers stays
// small. It reads the package's dependencies from `go list -deps`, which
// go test lets it run: go test puts its own GOROOT/bin first in PATH.
func TestNoKubeletDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test runs `go list`, and finds no go command: %v", err)
	}
	// Each line: a package of the dependency graph, then its imports.
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{}
	var root string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
		root = f[0] // go list -deps prints the package itself last
	}
	// Name the chains into the forbidden packages, not those within them.
	var entries []string
	forbidden := 0
	for pkg := range imports {
		if !isForbidden(pkg) {
			continue
		}
		forbidden++
		if chain := importChain(imports, root, pkg); !isForbidden(chain[len(chain)-2]) {
			entries = append(entries, strings.Join(chain, " -> "))
		}
	}
	if forbidden > 0 {
		slices.Sort(entries)
		t.Errorf("%s must not depend on %s, but does on %d of their packages, through:\n  %s",
			root, strings.Join(forbiddenImports, " or "), forbidden, strings.Join(entries, "\n  "))
	}
}

func isForbidden(pkg string) bool {
	return slices.ContainsFunc(forbiddenImports, func(prefix string) bool { return strings.HasPrefix(pkg+"/", prefix) })
}

// importChain is a shortest chain of imports from one package to another.
func importChain(imports map[string][]string, from, to string) []string {
	previous := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if pkg == to {
			var chain []string
			for ; pkg != ""; pkg = previous[pkg] {
				chain = append([]string{pkg}, chain...)
			}
			return chain
		}
		for _, next := range imports[pkg] {
			if _, seen := previous[next]; !seen {
				previous[next] = pkg
				queue = append(queue, next)
			}
		}
	}
	return []string{from, "?", to}
}
