// Command crisweep stops and removes every pod sandbox and container of a CRI
// runtime, through the CRI API as the kubelet would, so that the runtime
// tears the pods' networks down too (the CNI DEL releases their IPs). The
// local cluster's teardown (hack/cluster/down.sh) runs it once the kubelet is
// stopped and before containerd is. (crictl would do; it is not packaged
// here.)
//
//	crisweep -endpoint unix:///path/to/containerd.sock [-list]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func main() {
	endpoint := flag.String("endpoint", "", "CRI endpoint, unix:///path/to/socket (required)")
	list := flag.Bool("list", false, "only list the pod sandboxes and containers")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up after this long")
	flag.Parse()
	if *endpoint == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *endpoint, *list); err != nil {
		fmt.Fprintln(os.Stderr, "crisweep:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, endpoint string, listOnly bool) error {
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)

	pods, err := rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("list pod sandboxes: %w", err)
	}
	ctrs, err := rt.ListContainers(ctx, &cri.ListContainersRequest{})
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	if listOnly {
		for _, p := range pods.Items {
			fmt.Printf("pod %s %s/%s %s\n", p.Id[:13], p.Metadata.Namespace, p.Metadata.Name, p.State)
		}
		for _, c := range ctrs.Containers {
			fmt.Printf("container %s %s (pod %s) %s\n", c.Id[:13], c.Metadata.Name, c.PodSandboxId[:13], c.State)
		}
		return nil
	}
	// Removing a sandbox removes its containers; stopping it first tears its
	// network down. Containers without a sandbox are removed afterwards.
	for _, p := range pods.Items {
		what := fmt.Sprintf("pod sandbox %s (%s/%s)", p.Id[:13], p.Metadata.Namespace, p.Metadata.Name)
		if _, err := rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			return fmt.Errorf("stop %s: %w", what, err)
		}
		if _, err := rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			return fmt.Errorf("remove %s: %w", what, err)
		}
		fmt.Println("removed", what)
	}
	if ctrs, err = rt.ListContainers(ctx, &cri.ListContainersRequest{}); err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	for _, c := range ctrs.Containers {
		if _, err := rt.StopContainer(ctx, &cri.StopContainerRequest{ContainerId: c.Id}); err != nil {
			return fmt.Errorf("stop container %s: %w", c.Id[:13], err)
		}
		if _, err := rt.RemoveContainer(ctx, &cri.RemoveContainerRequest{ContainerId: c.Id}); err != nil {
			return fmt.Errorf("remove container %s: %w", c.Id[:13], err)
		}
		fmt.Println("removed container", c.Id[:13], c.Metadata.Name)
	}
	return nil
}
