package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"

	v1 "k8s.io/api/core/v1"
)

// confName is the file the node's runtime reads; the "10-" sorts it before
// anything else a user drops in the folder.
const confName = "10-podnet.conflist"

// route sends the pods of another node through that node.
type route struct {
	node string
	dst  netip.Prefix
	via  netip.Addr
}

// routeTable is where routes go: the node's main table, or a test's map.
type routeTable interface {
	// ensure makes r the route to r.dst and reports whether it changed
	// anything.
	ensure(r route) (bool, error)
}

// plan is what one node should have: its CNI configuration and its routes.
type plan struct {
	podCIDR string
	conf    []byte
	routes  []route
}

// planFor computes the plan of node self from the node list. A node without a
// pod CIDR (the controller manager has not assigned one yet) is an error for
// self and skipped for the others, as is a node without an InternalIP.
func planFor(self string, nodes []v1.Node) (plan, error) {
	var p plan
	found := false
	for _, n := range nodes {
		if n.Name == self {
			found = true
			prefix, err := netip.ParsePrefix(n.Spec.PodCIDR)
			if err != nil {
				return plan{}, fmt.Errorf("node %s has no pod CIDR yet (spec.podCIDR %q)", self, n.Spec.PodCIDR)
			}
			p.podCIDR = prefix.String()
			if p.conf, err = cniConf(prefix); err != nil {
				return plan{}, err
			}
			continue
		}
		prefix, err := netip.ParsePrefix(n.Spec.PodCIDR)
		if err != nil {
			continue
		}
		ip, ok := internalIP(n, prefix.Addr().Is4())
		if !ok {
			continue
		}
		p.routes = append(p.routes, route{node: n.Name, dst: prefix.Masked(), via: ip})
	}
	if !found {
		return plan{}, fmt.Errorf("node %s is not in the node list", self)
	}
	sort.Slice(p.routes, func(i, j int) bool { return p.routes[i].node < p.routes[j].node })
	return p, nil
}

// internalIP is the node's first InternalIP of the pod CIDR's family.
func internalIP(n v1.Node, v4 bool) (netip.Addr, bool) {
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeInternalIP {
			continue
		}
		ip, err := netip.ParseAddr(a.Address)
		if err == nil && ip.Is4() == v4 {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

// cniConf is the node's CNI configuration: a point-to-point veth per pod
// (the node routes to each pod, as kindnetd's does), addresses from the
// node's pod CIDR, and host ports.
func cniConf(podCIDR netip.Prefix) ([]byte, error) {
	defaultRoute := "0.0.0.0/0"
	if podCIDR.Addr().Is6() {
		defaultRoute = "::/0"
	}
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "podnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": false,
				"mtu":    1500,
				"ipam": map[string]any{
					"type":   "host-local",
					"ranges": [][]map[string]string{{{"subnet": podCIDR.Masked().String()}}},
					"routes": []map[string]string{{"dst": defaultRoute}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeConf writes conf into dir unless it is there already, atomically
// (the runtime may read the folder at any moment). It reports whether it
// wrote.
func writeConf(dir string, conf []byte) (bool, error) {
	p := filepath.Join(dir, confName)
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, conf) {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, ".podnet-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(conf); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp.Name(), p)
}
