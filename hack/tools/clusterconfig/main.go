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

// Command clusterconfig writes the configuration files of a node that
// hack/lib/node.sh runs on this machine (the local cluster's, and the one
// of upstream's node e2e suite): the kubelet's KubeletConfiguration, the CNI
// bridge network, containerd's config and its registry mirrors. The shell
// keeps starting and stopping the processes; what they are configured with
// is built here from typed values (the kubelet's own config types),
// validated, and tested.
//
//	clusterconfig kubelet -out kubelet.yaml -node cluster -address 127.0.0.1 ...
//	clusterconfig feature-gates -k8s-version X.Y.Z[-pre] -ordering-gate -feature-gates EventedPLEG=true
//	clusterconfig cni -out 10-net.conflist -name NAME -bridge cni-sk0 -subnet 10.88.0.0/16 -data-dir DIR
//	clusterconfig containerd -out containerd.toml -dir DIR -socket SOCK -pause-image IMAGE -runc PATH
//	clusterconfig mirror -out certs.d/registry.k8s.io/hosts.toml -host registry.k8s.io -mirror http://127.0.0.1:41234
//
// Every file is written whole or not at all (a temporary file renamed into
// place), so a kubelet or containerd never reads half a config.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "clusterconfig:", err)
		os.Exit(1)
	}
}

const usage = "usage: clusterconfig kubelet|feature-gates|cni|containerd|mirror [flags] (-h for the flags)"

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("clusterconfig "+cmd, flag.ContinueOnError)
	out := fs.String("out", "", "the file to write (required)")
	var gates gateOptions
	gateFlags := func() {
		fs.StringVar(&gates.K8sVersion, "k8s-version", "", "the kubelet's release, X.Y.Z or X.Y.Z-pre (required)")
		fs.BoolVar(&gates.OrderingGate, "ordering-gate", false, "the kubelet knows SidecarContainerOrdering (the fork's): turn it on by default")
		fs.StringVar(&gates.Overrides, "feature-gates", "", "Gate=true|false,... on top of the defaults, upstream's plus the fork's gate (KUBELET_FEATURE_GATES, e.g. EventedPLEG=true)")
		fs.BoolVar(&gates.None, "no-feature-gates", false, "write no featureGates at all (the node e2e suite's unpatched kubelet)")
	}
	var write func() ([]byte, error)
	switch cmd {
	case "kubelet":
		var o kubeletOptions
		gateFlags()
		fs.StringVar(&o.Node, "node", "", "whose kubelet: cluster (the local cluster's) or e2e-node (upstream's node e2e suite's base config) (required)")
		fs.StringVar(&o.Address, "address", "", "the address the kubelet listens on (required)")
		fs.Var(int32Flag{&o.Port}, "port", "the kubelet's port (cluster)")
		fs.Var(int32Flag{&o.HealthzPort}, "healthz-port", "the kubelet's healthz port on 127.0.0.1 (cluster)")
		fs.StringVar(&o.PKIDir, "pki-dir", "", "holds kubelet.crt, kubelet.key and the clients' ca.crt (cluster)")
		fs.StringVar(&o.RuntimeEndpoint, "runtime-endpoint", "", "containerd's CRI endpoint, unix:///... (cluster)")
		fs.StringVar(&o.CgroupRoot, "cgroup-root", "", "the pods' cgroup parent (required)")
		fs.StringVar(&o.PodLogsDir, "pod-logs-dir", "", "where the pods' logs go (required)")
		fs.StringVar(&o.Disk.EvictionHard, "eviction-hard", "", "signal<value,... hard eviction thresholds (KUBELET_EVICTION_HARD); empty: the kubelet's defaults")
		fs.StringVar(&o.Disk.ImageGCHigh, "image-gc-high", "", "percent of disk use that starts image garbage collection, 1-100 (KUBELET_IMAGE_GC_HIGH); empty: the kubelet's default")
		write = func() ([]byte, error) { o.Gates = gates; return kubeletConfig(o) }
	case "feature-gates":
		gateFlags()
		if err := fs.Parse(args); err != nil {
			return err
		}
		g, err := featureGates(gates)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, formatGates(g))
		return err
	case "cni":
		var o cniOptions
		fs.StringVar(&o.Name, "name", "", "the network's name (required)")
		fs.StringVar(&o.Bridge, "bridge", "", "the bridge's name (required)")
		fs.StringVar(&o.Subnet, "subnet", "", "the pods' subnet, a.b.c.d/n (required)")
		fs.StringVar(&o.Gateway, "gateway", "", "the pods' gateway in the subnet (default: host-local's, the subnet's first address)")
		fs.StringVar(&o.DataDir, "data-dir", "", "host-local's IPAM state (required)")
		write = func() ([]byte, error) { return cniConflist(o) }
	case "containerd":
		var o containerdOptions
		fs.StringVar(&o.Dir, "dir", "", "the node's folder: containerd's root, state, runc root, opt under DIR/containerd, CNI networks in DIR/cni/net.d (required)")
		fs.StringVar(&o.Socket, "socket", "", "containerd's gRPC socket; the ttrpc one is SOCKET.ttrpc (required)")
		fs.StringVar(&o.PauseImage, "pause-image", "", "the pods' sandbox image (required)")
		fs.StringVar(&o.Runc, "runc", "", "the runc binary (required)")
		fs.StringVar(&o.RegistryConfigPath, "registry-config-path", "", "a certs.d folder of registry hosts (mirrors)")
		write = func() ([]byte, error) { return containerdConfigFile(o) }
	case "mirror":
		var o mirrorOptions
		fs.StringVar(&o.Host, "host", "", "the registry host the images are named after (required)")
		fs.StringVar(&o.Mirror, "mirror", "", "the mirror's URL, http://ADDR (required)")
		write = func() ([]byte, error) { return mirrorHostsFile(o) }
	default:
		return fmt.Errorf("unknown command %q; %s", cmd, usage)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", cmd, fs.Args())
	}
	if *out == "" {
		return fmt.Errorf("%s: -out is required", cmd)
	}
	data, err := write()
	if err != nil {
		return err
	}
	return writeFile(*out, data)
}

// writeFile writes data to path through a temporary file beside it.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// required fails naming the first of the flags whose value is empty.
func required(kv ...string) error {
	var missing []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			missing = append(missing, "-"+kv[i])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

type int32Flag struct{ p *int32 }

func (f int32Flag) String() string {
	if f.p == nil {
		return "0"
	}
	return fmt.Sprint(*f.p)
}

func (f int32Flag) Set(s string) error {
	var v int32
	if _, err := fmt.Sscan(s, &v); err != nil || fmt.Sprint(v) != s {
		return fmt.Errorf("%q is not a number", s)
	}
	*f.p = v
	return nil
}
