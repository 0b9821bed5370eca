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

package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Version
		wantErr bool
	}{
		{in: "2.1.7", want: Version{Major: 2, Minor: 1, Patch: 7}},
		{in: "v2.1.7", want: Version{Major: 2, Minor: 1, Patch: 7}},
		{in: "2.2.0-alpha.0", want: Version{Major: 2, Minor: 2, Pre: "alpha.0"}},
		{in: "v2.2.0-rc.1", want: Version{Major: 2, Minor: 2, Pre: "rc.1"}},
		{in: "2.2.0-beta.0-x", want: Version{Major: 2, Minor: 2, Pre: "beta.0-x"}},
		{in: "", wantErr: true},
		{in: "2.1", wantErr: true},
		{in: "2.1.7.1", wantErr: true},
		{in: "2.2.0-", wantErr: true},
		{in: "2.2.0-alpha..0", wantErr: true},
		{in: "2.2.0-alpha.0.", wantErr: true},
		{in: "2.2.0+build", wantErr: true},
		{in: "2.2.0-alpha.0-sidecar-kubelet+0123", wantErr: true},
		{in: " 2.1.7", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.in, diff)
			}
			if got, want := got.String(), strings.TrimPrefix(tc.in, "v"); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			if got.PreRelease() != (tc.want.Pre != "") {
				t.Errorf("PreRelease() = %t", got.PreRelease())
			}
		})
	}
}

// fakeRoot is a repository holding the scripts' own library (hack/lib.sh
// and its parts, hack/lib/*.sh) and hack/patches/k8s-version.sh, and a series folder per pin (minor ->
// UPSTREAM_VERSION text).
func fakeRoot(t *testing.T, pins map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"hack/lib.sh", "hack/lib/node.sh", "hack/lib/cluster.sh", "hack/lib/kind.sh", "hack/patches/k8s-version.sh"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), raw, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for minor, pin := range pins {
		dir := filepath.Join(root, "patches", "v"+minor)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"series": "a.patch\n", "UPSTREAM_VERSION": pin} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestPinnedAndSupported runs the scripts' resolution of K8S_VERSION on
// series pinned to releases and to pre-releases: a pre-release is
// supported, by its minor or exactly, but never the default while a
// release is pinned.
func TestPinnedAndSupported(t *testing.T) {
	releases := map[string]string{"2.0": "2.0.12\n", "2.1": "v2.1.7 # a comment\n", "2.2": "2.2.0-alpha.0\n", "2.10": "2.10.1\n"}
	for _, tc := range []struct {
		name    string
		pins    map[string]string
		minor   string // K8S_VERSION
		want    string
		wantErr string
	}{
		{name: "the default: the newest minor pinned to a release", pins: releases, want: "2.10.1"},
		{name: "the default skips a newer pre-release", pins: map[string]string{"2.1": "2.1.7\n", "2.2": "2.2.0-alpha.0\n"}, want: "2.1.7"},
		{name: "every series on a pre-release: the newest", pins: map[string]string{"2.2": "2.2.0-rc.1\n", "2.3": "2.3.0-alpha.0\n"}, want: "2.3.0-alpha.0"},
		{name: "a pre-release minor by its minor", pins: releases, minor: "2.2", want: "2.2.0-alpha.0"},
		{name: "a pre-release exactly, with its v", pins: releases, minor: "v2.2.0-beta.1", want: "2.2.0-beta.1"},
		{name: "a release exactly", pins: releases, minor: "2.1.8", want: "2.1.8"},
		{name: "an empty pre-release", pins: releases, minor: "2.2.0-", wantErr: "is not X.Y, X.Y.Z or X.Y.Z-pre"},
		{name: "a minor without a series", pins: releases, minor: "2.3", wantErr: "no patches/v2.3/UPSTREAM_VERSION"},
		{name: "a pin of another minor", pins: map[string]string{"2.2": "2.1.0-alpha.0\n"}, minor: "2.2", wantErr: `says "2.1.0-alpha.0", not a v2.2.Z release or v2.2.Z-pre pre-release`},
		{name: "a pin that is no release", pins: map[string]string{"2.2": "2.2.0-alpha..0\n"}, minor: "2.2", wantErr: `says "2.2.0-alpha..0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Pinned(fakeRoot(t, tc.pins), tc.minor)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Pinned: %q, error %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Pinned(%q) = %q, want %q", tc.minor, got, tc.want)
			}
		})
	}

	got, err := Supported(fakeRoot(t, releases))
	if err != nil {
		t.Fatal(err)
	}
	want := []Series{
		{Minor: "2.0", Release: "2.0.12", Folder: "patches/v2.0"},
		{Minor: "2.1", Release: "2.1.7", Folder: "patches/v2.1"},
		{Minor: "2.2", Release: "2.2.0-alpha.0", Folder: "patches/v2.2", PreRelease: true},
		{Minor: "2.10", Release: "2.10.1", Folder: "patches/v2.10", Default: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Supported (-want +got):\n%s", diff)
	}
}

func TestParseAll(t *testing.T) {
	for _, tc := range []struct {
		name, out, wantErr string
	}{
		{name: "a pre-release called a release", out: "2.2 2.2.0-alpha.0 patches/v2.2 release\n", wantErr: "is a pre-release"},
		{name: "a release called a pre-release", out: "2.1 2.1.7 patches/v2.1 pre-release\n", wantErr: "is a release"},
		{name: "another folder", out: "2.1 2.1.7 patches/v2.2 release\n", wantErr: "not of minor 2.1"},
		{name: "the old three fields", out: "2.1 2.1.7 patches/v2.1\n", wantErr: "is not"},
		{name: "a fifth field that is not default", out: "2.1 2.1.7 patches/v2.1 release yes\n", wantErr: "is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseAll(tc.out); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseAll: error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}

// TestSemverLt checks hack/lib.sh's semver_lt, which picks the version of
// a staging module the module proxy does not serve at a pre-release.
func TestSemverLt(t *testing.T) {
	root := fakeRoot(t, map[string]string{"2.1": "2.1.7\n"})
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"0.2.3", "0.2.4", true},
		{"0.2.4", "0.2.3", false},
		{"0.2.3", "0.2.3", false},
		{"v0.9.0", "v0.10.0", true},
		{"0.37.2", "0.38.0-alpha.0", true},
		{"0.38.0-alpha.0", "0.38.0", true},
		{"0.38.0", "0.38.0-alpha.0", false},
		{"0.38.0-alpha.0", "0.38.0-alpha.0", false},
		{"0.38.0-alpha.2", "0.38.0-alpha.10", true},
		{"0.38.0-alpha.2", "0.38.0-beta.0", true},
		{"0.38.0-rc.1", "0.38.0-beta.0", false},
		{"0.38.0-alpha.2", "0.38.0-alpha.0", false},
	} {
		t.Run(tc.a+"<"+tc.b, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `source hack/lib.sh && semver_lt "$1" "$2"`, "bash", tc.a, tc.b)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "K8S_VERSION=")
			err := cmd.Run()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatal(err)
			}
			if got := err == nil; got != tc.want {
				t.Errorf("semver_lt %s %s = %t, want %t", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
