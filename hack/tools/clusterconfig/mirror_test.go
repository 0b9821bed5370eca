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

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

func TestMirrorHostsFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       mirrorOptions
		want    map[string]any // the file as containerd reads it
		wantErr string
	}{{
		name: "loopback mirror",
		o:    mirrorOptions{Host: "registry.k8s.io", Mirror: "http://127.0.0.1:41234"},
		want: map[string]any{
			"server": "https://registry.k8s.io",
			"host":   map[string]any{"http://127.0.0.1:41234": map[string]any{"capabilities": []any{"pull", "resolve"}}},
		},
	}, {
		name: "host with a port",
		o:    mirrorOptions{Host: "localhost:5000", Mirror: "https://mirror.example:8443"},
		want: map[string]any{
			"server": "https://localhost:5000",
			"host":   map[string]any{"https://mirror.example:8443": map[string]any{"capabilities": []any{"pull", "resolve"}}},
		},
	}, {
		name:    "no host",
		o:       mirrorOptions{Mirror: "http://127.0.0.1:1"},
		wantErr: "-host must be a registry host",
	}, {
		name:    "an image name, not a host",
		o:       mirrorOptions{Host: "registry.k8s.io/pause", Mirror: "http://127.0.0.1:1"},
		wantErr: "-host must be a registry host",
	}, {
		name:    "mirror without a scheme",
		o:       mirrorOptions{Host: "docker.io", Mirror: "127.0.0.1:41234"},
		wantErr: "-mirror must be an http:// or https:// URL",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := mirrorHostsFile(tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if _, err := toml.Decode(string(data), &got); err != nil {
				t.Fatalf("not TOML: %v\n%s", err, data)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hosts.toml (-want +got):\n%s\n%s", diff, data)
			}
		})
	}
}
