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
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantConflist is the conflist as containerd's CNI library reads it: plain
// JSON, the keys the reference plugins know.
func wantConflist(name, bridge string, ipRange map[string]any, dataDir string) map[string]any {
	return map[string]any{
		"cniVersion": "1.0.0",
		"name":       name,
		"plugins": []any{
			map[string]any{
				"type": "bridge", "bridge": bridge, "isGateway": true, "ipMasq": false, "hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": dataDir,
					"ranges":  []any{[]any{ipRange}},
					"routes":  []any{map[string]any{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]any{"portMappings": true}},
		},
	}
}

func TestCNIConflist(t *testing.T) {
	tests := []struct {
		name string
		opts cniOptions
		want map[string]any
	}{
		{
			name: "the local cluster: host-local picks the gateway",
			opts: cniOptions{Name: "sidecar-kubelet", Bridge: "cni-sk0", Subnet: "10.88.0.0/16", DataDir: "/c/cni/ipam"},
			want: wantConflist("sidecar-kubelet", "cni-sk0", map[string]any{"subnet": "10.88.0.0/16"}, "/c/cni/ipam"),
		},
		{
			name: "the local cluster, instance 2",
			opts: cniOptions{Name: "sidecar-kubelet", Bridge: "cni-sk2", Subnet: "10.90.0.0/16", DataDir: "/c2/cni/ipam"},
			want: wantConflist("sidecar-kubelet", "cni-sk2", map[string]any{"subnet": "10.90.0.0/16"}, "/c2/cni/ipam"),
		},
		{
			name: "the node e2e suite: the gateway is the node's IP",
			opts: cniOptions{Name: "sidecar-kubelet-e2e-node", Bridge: "cni-ske2e0", Subnet: "10.199.0.0/16", Gateway: "10.199.0.1", DataDir: "/e/cni/ipam"},
			want: wantConflist("sidecar-kubelet-e2e-node", "cni-ske2e0", map[string]any{"subnet": "10.199.0.0/16", "gateway": "10.199.0.1"}, "/e/cni/ipam"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cniConflist(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("conflist (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCNIConflistRefuses(t *testing.T) {
	ok := cniOptions{Name: "n", Bridge: "b", Subnet: "10.88.0.0/16", DataDir: "/d"}
	tests := []struct {
		name    string
		opts    func(*cniOptions)
		wantErr string
	}{
		{"no bridge", func(o *cniOptions) { o.Bridge = "" }, "missing -bridge"},
		{"a subnet that is no prefix", func(o *cniOptions) { o.Subnet = "10.88.0.0" }, `-subnet "10.88.0.0" is not a network address/prefix`},
		{"a host address for a subnet", func(o *cniOptions) { o.Subnet = "10.88.0.1/16" }, `-subnet "10.88.0.1/16" is not a network`},
		{"a gateway outside the subnet", func(o *cniOptions) { o.Gateway = "10.89.0.1" }, `-gateway "10.89.0.1" is not an address in 10.88.0.0/16`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.opts(&o)
			_, err := cniConflist(o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}
