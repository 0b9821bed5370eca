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

// wantContainerd is the config as containerd reads it: the TOML tree, its
// tables named by the plugin IDs of containerd 2.x (config version 3).
func wantContainerd(dir, sock, pause string, registry map[string]any) map[string]any {
	images := map[string]any{
		"snapshotter":   "overlayfs",
		"pinned_images": map[string]any{"sandbox": pause},
	}
	if registry != nil {
		images["registry"] = registry
	}
	return map[string]any{
		"version": int64(3),
		"root":    dir + "/containerd/root",
		"state":   dir + "/containerd/state",
		"imports": []any{},
		"grpc":    map[string]any{"address": sock},
		"ttrpc":   map[string]any{"address": sock + ".ttrpc"},
		"plugins": map[string]any{
			"io.containerd.cri.v1.images": images,
			"io.containerd.cri.v1.runtime": map[string]any{
				"restrict_oom_score_adj":       true,
				"netns_mounts_under_state_dir": true,
				"cni":                          map[string]any{"bin_dirs": []any{"/usr/lib/cni"}, "conf_dir": dir + "/cni/net.d"},
				"containerd": map[string]any{
					"default_runtime_name": "runc",
					"runtimes": map[string]any{
						"runc": map[string]any{
							"runtime_type": "io.containerd.runc.v2",
							"options":      map[string]any{"BinaryName": "/usr/sbin/runc", "Root": dir + "/containerd/runc", "SystemdCgroup": false},
						},
					},
				},
			},
			"io.containerd.grpc.v1.cri":     map[string]any{"stream_server_address": "127.0.0.1", "stream_server_port": "0"},
			"io.containerd.internal.v1.opt": map[string]any{"path": dir + "/containerd/opt"},
			"io.containerd.nri.v1.nri":      map[string]any{"disable": true},
		},
	}
}

func TestContainerdConfig(t *testing.T) {
	tests := []struct {
		name string
		opts containerdOptions
		want map[string]any
	}{
		{
			name: "the local cluster",
			opts: containerdOptions{Dir: "/c", Socket: "/c/run/containerd.sock", PauseImage: "sidecar-kubelet.local/pause:1", Runc: "/usr/sbin/runc"},
			want: wantContainerd("/c", "/c/run/containerd.sock", "sidecar-kubelet.local/pause:1", nil),
		},
		{
			name: "the node e2e suite: upstream's pause image, registry mirrors",
			opts: containerdOptions{Dir: "/e", Socket: "/e/run/containerd.sock", PauseImage: "registry.k8s.io/pause:3.10", Runc: "/usr/sbin/runc", RegistryConfigPath: "/e/config/certs.d"},
			want: wantContainerd("/e", "/e/run/containerd.sock", "registry.k8s.io/pause:3.10", map[string]any{"config_path": "/e/config/certs.d"}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := containerdConfigFile(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if _, err := toml.Decode(string(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("containerd config (-want +got):\n%s\n%s", diff, out)
			}
		})
	}
}

func TestContainerdConfigRefuses(t *testing.T) {
	ok := containerdOptions{Dir: "/c", Socket: "/c/run/containerd.sock", PauseImage: "p:1", Runc: "/usr/sbin/runc"}
	tests := []struct {
		name    string
		opts    func(*containerdOptions)
		wantErr string
	}{
		{"no pause image", func(o *containerdOptions) { o.PauseImage = "" }, "missing -pause-image"},
		{"runc not found by the caller", func(o *containerdOptions) { o.Runc = "" }, "missing -runc"},
		{"a relative folder", func(o *containerdOptions) { o.Dir = "_output/cluster" }, `"_output/cluster" is not an absolute path`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.opts(&o)
			_, err := containerdConfigFile(o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}
