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
	"fmt"
	"net/netip"
)

// cniOptions describe the node's pod network: a bridge with host-local IPAM.
type cniOptions struct {
	Name   string
	Bridge string
	Subnet string
	// Gateway is the bridge's address, the pods' default route; empty leaves
	// it to host-local (the subnet's first address).
	Gateway string
	DataDir string
}

// The CNI network configuration list (CNI spec 1.0.0) that containerd's CRI
// plugin reads from its conf_dir: the reference plugins bridge (with
// host-local IPAM) and portmap, as Debian's containernetworking-plugins ship
// them.
type cniConfList struct {
	CNIVersion string `json:"cniVersion"`
	Name       string `json:"name"`
	Plugins    []any  `json:"plugins"`
}

type cniBridge struct {
	Type        string  `json:"type"`
	Bridge      string  `json:"bridge"`
	IsGateway   bool    `json:"isGateway"`
	IPMasq      bool    `json:"ipMasq"`
	HairpinMode bool    `json:"hairpinMode"`
	IPAM        cniIPAM `json:"ipam"`
}

type cniIPAM struct {
	Type    string       `json:"type"`
	DataDir string       `json:"dataDir"`
	Ranges  [][]cniRange `json:"ranges"`
	Routes  []cniRoute   `json:"routes"`
}

type cniRange struct {
	Subnet  string `json:"subnet"`
	Gateway string `json:"gateway,omitempty"`
}

type cniRoute struct {
	Dst string `json:"dst"`
}

type cniPortmap struct {
	Type         string          `json:"type"`
	Capabilities map[string]bool `json:"capabilities"`
}

func cniConflist(o cniOptions) ([]byte, error) {
	if err := required("name", o.Name, "bridge", o.Bridge, "subnet", o.Subnet, "data-dir", o.DataDir); err != nil {
		return nil, fmt.Errorf("cni: %w", err)
	}
	subnet, err := netip.ParsePrefix(o.Subnet)
	if err != nil || subnet != subnet.Masked() {
		return nil, fmt.Errorf("cni: -subnet %q is not a network address/prefix", o.Subnet)
	}
	if o.Gateway != "" {
		gw, err := netip.ParseAddr(o.Gateway)
		if err != nil || !subnet.Contains(gw) {
			return nil, fmt.Errorf("cni: -gateway %q is not an address in %s", o.Gateway, subnet)
		}
	}
	c := cniConfList{
		CNIVersion: "1.0.0",
		Name:       o.Name,
		Plugins: []any{
			cniBridge{
				Type:   "bridge",
				Bridge: o.Bridge,
				// The bridge has the gateway address; the pods' traffic
				// stays on this machine, so no masquerading.
				IsGateway:   true,
				IPMasq:      false,
				HairpinMode: true,
				IPAM: cniIPAM{
					Type:    "host-local",
					DataDir: o.DataDir,
					Ranges:  [][]cniRange{{{Subnet: o.Subnet, Gateway: o.Gateway}}},
					Routes:  []cniRoute{{Dst: "0.0.0.0/0"}},
				},
			},
			cniPortmap{Type: "portmap", Capabilities: map[string]bool{"portMappings": true}},
		},
	}
	out, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
