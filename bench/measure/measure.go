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

package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// newAPIClient is a client of the cluster's API server for the benchmark's
// pods, with room for a burst of creates and deletes.
func newAPIClient(kubeconfig string) (*rest.Config, kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return cfg, cs, nil
}

// dialCRI is a client of the node's CRI runtime at endpoint (unix://...)
// and the connection under it, for the caller to close. The runtime's
// socket is local and speaks no TLS, hence the insecure credentials;
// grpc.NewClient does not connect yet, so a wrong endpoint shows at the
// first call, not here.
func dialCRI(endpoint string) (runtimeapi.RuntimeServiceClient, *grpc.ClientConn, error) {
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, err
	}
	return runtimeapi.NewRuntimeServiceClient(conn), conn, nil
}

// records is a JSON-lines file of a command's records. Its writes may come
// from several goroutines at once (bench run's lanes).
type records struct {
	mu sync.Mutex
	f  *os.File
}

// openRecords opens a JSON-lines file of records for appending, creating
// it if need be: hack/bench/run.sh runs each command once per kubelet into
// the same file, and the records of the first must stay.
func openRecords(path string) (*records, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &records{f: f}, nil
}

// write appends v as one line of JSON.
func (r *records) write(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.f.Write(append(line, '\n'))
	return err
}

// Close closes the file.
func (r *records) Close() error {
	return r.f.Close()
}

// parseWays reads a comma-separated list of ways' names.
func parseWays(list string) ([]results.Way, error) {
	var ways []results.Way
	for _, name := range strings.Split(list, ",") {
		w, ok := results.WayByName(name)
		if !ok {
			return nil, fmt.Errorf("unknown way %q", name)
		}
		ways = append(ways, w)
	}
	return ways, nil
}
