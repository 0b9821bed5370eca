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

// Package release gives the tools' tests the upstream releases the series
// are pinned to, as the scripts resolve them: each minor's release is
// written in one place, patches/vX.Y/UPSTREAM_VERSION, and read by
// hack/lib.sh; Pinned asks hack/patches/k8s-version.sh, so that there is
// one reading of those files, and no test writes a release of its own
// (make test-docs fails where one is written by hand).
package release

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

var releaseRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// Pinned returns the release (X.Y.Z, without the v) that K8S_VERSION=minor
// resolves to in the repository at root: the pinned release of minor
// (X.Y), or of the newest minor when minor is "".
func Pinned(root, minor string) (string, error) {
	cmd := exec.Command("bash", filepath.Join(root, "hack", "patches", "k8s-version.sh"))
	cmd.Env = append(os.Environ(), "K8S_VERSION="+minor)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("K8S_VERSION=%s hack/patches/k8s-version.sh: %v: %s", minor, err, ee.Stderr)
		}
		return "", fmt.Errorf("K8S_VERSION=%s hack/patches/k8s-version.sh: %v", minor, err)
	}
	v := strings.TrimSpace(string(out))
	if !releaseRE.MatchString(v) {
		return "", fmt.Errorf("K8S_VERSION=%s hack/patches/k8s-version.sh printed %q, not X.Y.Z", minor, v)
	}
	return v, nil
}
