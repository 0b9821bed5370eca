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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantOut  string
		wantFile string
		wantErr  string
	}{
		{
			// hack/kind/cluster.sh reads it to know whether to add
			// EventedPLEG to the kind config.
			name:    "feature-gates, no overrides: upstream's defaults plus the fork's gate",
			args:    []string{"feature-gates", "-k8s-version", pinned[""], "-ordering-gate", "-feature-gates", ""},
			wantOut: "SidecarContainerOrdering=true\n",
		},
		{
			name:    "feature-gates, KUBELET_FEATURE_GATES=EventedPLEG=true: the alpha gate on",
			args:    []string{"feature-gates", "-k8s-version", pinned[""], "-ordering-gate", "-feature-gates", "EventedPLEG=true"},
			wantOut: "EventedPLEG=true,SidecarContainerOrdering=true\n",
		},
		{
			name:    "feature-gates prints what the kubelet gets, for the log",
			args:    []string{"feature-gates", "-k8s-version", pinned[""], "-ordering-gate", "-feature-gates", "EventedPLEG=false,Foo=true"},
			wantOut: "EventedPLEG=false,Foo=true,SidecarContainerOrdering=true\n",
		},
		{
			name:     "a file in a folder that does not exist yet",
			args:     []string{"cni", "-out", filepath.Join(dir, "net.d", "10-n.conflist"), "-name", "n", "-bridge", "b", "-subnet", "10.88.0.0/16", "-data-dir", "/d"},
			wantFile: filepath.Join(dir, "net.d", "10-n.conflist"),
		},
		{name: "no command", args: nil, wantErr: "usage: clusterconfig"},
		{name: "an unknown command", args: []string{"kubeconfig"}, wantErr: `unknown command "kubeconfig"`},
		{name: "no -out", args: []string{"cni", "-name", "n"}, wantErr: "cni: -out is required"},
		{name: "a stray argument", args: []string{"cni", "-out", "x", "extra"}, wantErr: `unexpected arguments ["extra"]`},
		{name: "a port that is no number", args: []string{"kubelet", "-out", "x", "-port", "10250x"}, wantErr: `"10250x" is not a number`},
		{
			name:    "a failing config writes nothing",
			args:    []string{"cni", "-out", filepath.Join(dir, "bad.conflist"), "-name", "n", "-bridge", "b", "-subnet", "bad", "-data-dir", "/d"},
			wantErr: `-subnet "bad"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(tc.args, &out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one with %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantOut, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if tc.wantFile != "" {
				fi, err := os.Stat(tc.wantFile)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o644 {
					t.Errorf("%s has mode %v, want 0644", tc.wantFile, fi.Mode().Perm())
				}
			}
			// Nothing but the files asked for: no temporary file is left.
			entries, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
			more, _ := filepath.Glob(filepath.Join(dir, ".*"))
			if left := append(entries, more...); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
