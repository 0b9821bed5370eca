//go:build e2e

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

package e2e

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpcstatus "google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	. "github.com/sidecar-kubelet/sidecar-kubelet/e2e/podorder"
)

// The container runtime of the node, when the suite runs on the node and
// CONTAINER_RUNTIME_ENDPOINT names its CRI socket: its timestamps have
// nanosecond resolution where the API's have one second.
var (
	runtimeOnce   sync.Once
	runtimeClient runtimeapi.RuntimeServiceClient
)

func containerRuntime() runtimeapi.RuntimeServiceClient {
	GinkgoHelper()
	runtimeOnce.Do(func() {
		endpoint := os.Getenv("CONTAINER_RUNTIME_ENDPOINT")
		if endpoint == "" {
			return
		}
		conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
		Expect(err).NotTo(HaveOccurred(), "connecting to CONTAINER_RUNTIME_ENDPOINT=%s", endpoint)
		runtimeClient = runtimeapi.NewRuntimeServiceClient(conn)
	})
	return runtimeClient
}

// exitWatcher records, from the runtime, when each container of a pod
// exited, before the kubelet removes the containers of a finished pod.
type exitWatcher struct {
	mu       sync.Mutex
	finished map[string]time.Time // container name -> exit time
	err      error
	done     chan struct{}
}

// watchExits polls the runtime every 100 ms for the exit of the pod's
// running containers, or returns nil without a runtime endpoint.
func watchExits(ctx context.Context, p *v1.Pod) *exitWatcher {
	rt := containerRuntime()
	if rt == nil {
		return nil
	}
	ids := map[string]string{}
	for _, st := range AllStatuses(p) {
		if st.State.Running != nil {
			_, id, _ := strings.Cut(st.ContainerID, "://")
			ids[st.Name] = id
		}
	}
	w := &exitWatcher{finished: map[string]time.Time{}, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	go func() {
		defer close(w.done)
		for len(ids) > 0 {
			for name, id := range ids {
				resp, err := rt.ContainerStatus(ctx, &runtimeapi.ContainerStatusRequest{ContainerId: id})
				switch {
				case grpcstatus.Code(err) == codes.NotFound:
					delete(ids, name) // removed before it was seen exited
				case err != nil:
					w.mu.Lock()
					w.err = err
					w.mu.Unlock()
					return
				case resp.Status.FinishedAt != 0:
					w.mu.Lock()
					w.finished[name] = time.Unix(0, resp.Status.FinishedAt)
					w.mu.Unlock()
					delete(ids, name)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

// wait returns each container's exit time, once all have exited.
func (w *exitWatcher) wait(timeout time.Duration) map[string]time.Time {
	GinkgoHelper()
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	Expect(w.err).NotTo(HaveOccurred(), "reading container statuses from the runtime")
	return w.finished
}
