// Command podnet is the pod network of the project's kind node images when
// they are built without a registry (hack/kind/node-image.sh build), in the
// place of kind's kindnetd, which no Go module serves. It runs on every node
// as a host-network DaemonSet (hack/kind/node/kind/manifests/default-cni.yaml,
// applied by kind itself) and does two things, every few seconds:
//
//   - writes this node's CNI configuration (ptp + host-local on the node's
//     spec.podCIDR, then portmap), so that the kubelet reports the node's
//     network ready;
//   - routes every other node's pod CIDR through that node's InternalIP, so
//     that pods reach pods on other nodes (all kind nodes share one Docker
//     network).
//
// What it leaves out, compared with kindnetd: masquerading of pod traffic
// that leaves the cluster (pods reach pods, services and nodes, not the
// outside) and network policies.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

func main() {
	confDir := flag.String("cni-conf-dir", "/etc/cni/net.d", "where the node's container runtime reads CNI configurations")
	interval := flag.Duration("interval", 5*time.Second, "how often the node list is read")
	klog.InitFlags(nil)
	flag.Parse()
	nodeName := os.Getenv("NODE_NAME")
	if nodeName == "" {
		klog.ErrorS(nil, "NODE_NAME is not set (the DaemonSet passes spec.nodeName)")
		os.Exit(2)
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		klog.ErrorS(err, "No in-cluster configuration")
		os.Exit(1)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		klog.ErrorS(err, "Cannot make a client")
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	routes := netlinkRoutes{}
	for {
		if err := syncOnce(ctx, client, nodeName, *confDir, routes); err != nil {
			klog.ErrorS(err, "Sync failed; trying again", "in", interval.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(*interval):
		}
	}
}

// syncOnce reads the nodes and brings this node's CNI configuration and
// routes to what they say.
func syncOnce(ctx context.Context, client kubernetes.Interface, nodeName, confDir string, routes routeTable) error {
	list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	plan, err := planFor(nodeName, list.Items)
	if err != nil {
		return err
	}
	if wrote, err := writeConf(confDir, plan.conf); err != nil {
		return err
	} else if wrote {
		klog.InfoS("Wrote the CNI configuration", "node", nodeName, "podCIDR", plan.podCIDR, "dir", confDir)
	}
	for _, r := range plan.routes {
		changed, err := routes.ensure(r)
		if err != nil {
			return fmt.Errorf("routing %s via %s (node %s): %w", r.dst, r.via, r.node, err)
		}
		if changed {
			klog.InfoS("Routed a node's pods", "node", r.node, "podCIDR", r.dst, "via", r.via)
		}
	}
	return nil
}
