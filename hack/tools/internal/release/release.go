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

// Package release gives the tools the upstream releases the series are
// pinned to, as the scripts resolve them: each minor's release is written
// in one place, patches/vX.Y/UPSTREAM_VERSION, and read by hack/lib.sh;
// Pinned and Supported ask hack/patches/k8s-version.sh, so that there is
// one reading of those files, and no test writes a release of its own
// (make test-docs fails where one is written by hand). Parse is the one
// reading of a release string: X.Y.Z, or X.Y.Z-pre for an upstream
// pre-release (a minor upstream has not released yet may be pinned to
// its X.Y.0-alpha.N, -beta.N or -rc.N).
package release

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// pattern is hack/lib.sh's RELEASE_RE: X.Y.Z with an optional semver
// pre-release, dot-separated identifiers of [0-9A-Za-z-].
var pattern = regexp.MustCompile(`^([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$`)

// Version is an upstream release or pre-release.
type Version struct {
	Major, Minor, Patch int
	// Pre is the pre-release ("alpha.0", "rc.1"), "" for a release.
	Pre string
}

// Parse reads X.Y.Z or X.Y.Z-pre, with or without a leading v.
func Parse(s string) (Version, error) {
	m := pattern.FindStringSubmatch(strings.TrimPrefix(s, "v"))
	if m == nil {
		return Version{}, fmt.Errorf("%q is not X.Y.Z or X.Y.Z-pre", s)
	}
	var v Version
	for i, p := range []*int{&v.Major, &v.Minor, &v.Patch} {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return Version{}, fmt.Errorf("%q: %v", s, err)
		}
		*p = n
	}
	v.Pre = m[4]
	return v, nil
}

// PreRelease says whether v is a pre-release (X.Y.Z-pre).
func (v Version) PreRelease() bool { return v.Pre != "" }

// MinorString is X.Y, the minor whose series folder is patches/vX.Y.
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// String is X.Y.Z or X.Y.Z-pre, without the v.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Pinned returns the release (X.Y.Z or X.Y.Z-pre, without the v) that
// K8S_VERSION=minor resolves to in the repository at root: the pinned
// release of minor (X.Y), or the default when minor is "" (the newest
// minor pinned to a release).
func Pinned(root, minor string) (string, error) {
	out, err := k8sVersion(root, "K8S_VERSION="+minor)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(out)
	if _, err := Parse(v); err != nil {
		return "", fmt.Errorf("K8S_VERSION=%s hack/patches/k8s-version.sh printed %q, not X.Y.Z or X.Y.Z-pre", minor, v)
	}
	return v, nil
}

// Series is a supported minor, as hack/patches/k8s-version.sh --all
// prints it.
type Series struct {
	Minor   string // X.Y
	Release string // its pinned release, X.Y.Z or X.Y.Z-pre
	Folder  string // patches/vX.Y
	// PreRelease: the series is pinned to a pre-release (supported, never
	// the default).
	PreRelease bool
	// Default: an unset K8S_VERSION resolves to this series' release.
	Default bool
}

// Supported returns the supported minors of the repository at root,
// oldest first.
func Supported(root string) ([]Series, error) {
	out, err := k8sVersion(root, "K8S_VERSION=", "--all")
	if err != nil {
		return nil, err
	}
	return parseAll(out)
}

// parseAll reads k8s-version.sh --all: "<minor> <release> <folder>
// release|pre-release [default]" per line.
func parseAll(out string) ([]Series, error) {
	var all []Series
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || len(f) > 5 || (len(f) == 5 && f[4] != "default") {
			return nil, fmt.Errorf("hack/patches/k8s-version.sh --all: %q is not \"<minor> <release> <folder> release|pre-release [default]\"", line)
		}
		v, err := Parse(f[1])
		if err != nil {
			return nil, fmt.Errorf("hack/patches/k8s-version.sh --all: %q: %v", line, err)
		}
		if v.MinorString() != f[0] || f[2] != "patches/v"+f[0] {
			return nil, fmt.Errorf("hack/patches/k8s-version.sh --all: %q: the release or folder is not of minor %s", line, f[0])
		}
		if want := map[bool]string{false: "release", true: "pre-release"}[v.PreRelease()]; f[3] != want {
			return nil, fmt.Errorf("hack/patches/k8s-version.sh --all: %q: %s is a %s", line, f[1], want)
		}
		all = append(all, Series{Minor: f[0], Release: f[1], Folder: f[2], PreRelease: v.PreRelease(), Default: len(f) == 5})
	}
	return all, nil
}

func k8sVersion(root string, env string, args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "hack", "patches", "k8s-version.sh")}, args...)...)
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("%s hack/patches/k8s-version.sh %s: %v: %s", env, strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("%s hack/patches/k8s-version.sh %s: %v", env, strings.Join(args, " "), err)
	}
	return string(out), nil
}
