package main

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func node(name, podCIDR string, ips ...string) v1.Node {
	n := v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{PodCIDR: podCIDR}}
	for _, ip := range ips {
		n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	}
	return n
}

func TestPlanFor(t *testing.T) {
	cp := node("kind-control-plane", "10.244.0.0/24", "172.18.0.2")
	w1 := node("kind-worker", "10.244.1.0/24", "fc00:f853:ccd:e793::3", "172.18.0.3")
	w2 := node("kind-worker2", "10.244.2.0/24", "172.18.0.4")
	for _, tc := range []struct {
		name       string
		self       string
		nodes      []v1.Node
		wantCIDR   string
		wantRoutes []string
		wantErr    bool
	}{
		{name: "one node: no routes", self: cp.Name, nodes: []v1.Node{cp}, wantCIDR: "10.244.0.0/24"},
		{
			name: "three nodes: the others' pods through them, IPv4 address of a dual-stack node",
			self: w1.Name, nodes: []v1.Node{w2, cp, w1}, wantCIDR: "10.244.1.0/24",
			wantRoutes: []string{"kind-control-plane 10.244.0.0/24 via 172.18.0.2", "kind-worker2 10.244.2.0/24 via 172.18.0.4"},
		},
		{
			name: "a node without a pod CIDR or an address yet is skipped",
			self: cp.Name, nodes: []v1.Node{cp, node("new", ""), node("noaddr", "10.244.3.0/24")}, wantCIDR: "10.244.0.0/24",
		},
		{name: "own pod CIDR not assigned yet", self: "new", nodes: []v1.Node{cp, node("new", "")}, wantErr: true},
		{name: "not in the list", self: "gone", nodes: []v1.Node{cp}, wantErr: true},
		{name: "garbage pod CIDR", self: "bad", nodes: []v1.Node{node("bad", "10.244.0.0/33")}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planFor(tc.self, tc.nodes)
			if (err != nil) != tc.wantErr {
				t.Fatalf("planFor: err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			var got []string
			for _, r := range p.routes {
				got = append(got, r.node+" "+r.dst.String()+" via "+r.via.String())
			}
			if diff := cmp.Diff(tc.wantRoutes, got); diff != "" {
				t.Errorf("routes (-want +got):\n%s", diff)
			}
			if p.podCIDR != tc.wantCIDR {
				t.Errorf("podCIDR = %q, want %q", p.podCIDR, tc.wantCIDR)
			}
		})
	}
}

func TestCNIConf(t *testing.T) {
	b, err := cniConf(netip.MustParsePrefix("10.244.1.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		CNIVersion string `json:"cniVersion"`
		Plugins    []struct {
			Type string `json:"type"`
			IPAM struct {
				Ranges [][]map[string]string `json:"ranges"`
				Routes []map[string]string   `json:"routes"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(b, &conf); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	var types []string
	for _, p := range conf.Plugins {
		types = append(types, p.Type)
	}
	if diff := cmp.Diff([]string{"ptp", "portmap"}, types); diff != "" {
		t.Errorf("plugins (-want +got):\n%s", diff)
	}
	if got := conf.Plugins[0].IPAM.Ranges[0][0]["subnet"]; got != "10.244.1.0/24" {
		t.Errorf("subnet = %q", got)
	}
	if got := conf.Plugins[0].IPAM.Routes[0]["dst"]; got != "0.0.0.0/0" {
		t.Errorf("default route = %q", got)
	}
	b6, _ := cniConf(netip.MustParsePrefix("fd00:10:244:1::/64"))
	if !json.Valid(b6) || !strings.Contains(string(b6), `"::/0"`) {
		t.Errorf("IPv6 configuration lacks the IPv6 default route:\n%s", b6)
	}
}

type mapRoutes map[netip.Prefix]netip.Addr

func (m mapRoutes) ensure(r route) (bool, error) {
	if m[r.dst] == r.via {
		return false, nil
	}
	m[r.dst] = r.via
	return true, nil
}

// TestSyncOnce runs a sync against a fake API server twice: the first writes
// the configuration and the routes, the second changes nothing.
func TestSyncOnce(t *testing.T) {
	cp := node("kind-control-plane", "10.244.0.0/24", "172.18.0.2")
	w := node("kind-worker", "10.244.1.0/24", "172.18.0.3")
	client := fake.NewClientset(&cp, &w)
	dir := t.TempDir()
	routes := mapRoutes{}
	if err := syncOnce(context.Background(), client, "kind-worker", dir, routes); err != nil {
		t.Fatal(err)
	}
	want := mapRoutes{netip.MustParsePrefix("10.244.0.0/24"): netip.MustParseAddr("172.18.0.2")}
	if diff := cmp.Diff(want, routes, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
	p := filepath.Join(dir, confName)
	st1, err := os.Stat(p)
	if err != nil {
		t.Fatalf("no configuration written: %v", err)
	}
	if wrote, err := writeConf(dir, mustRead(t, p)); err != nil || wrote {
		t.Errorf("writeConf of the same bytes: wrote %v, err %v; want no write", wrote, err)
	}
	if err := syncOnce(context.Background(), client, "kind-worker", dir, routes); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(p)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("second sync rewrote the configuration")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only %s", len(entries), confName)
	}
	if err := syncOnce(context.Background(), client, "absent", dir, routes); err == nil {
		t.Errorf("sync of a node that is not in the list: no error")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
