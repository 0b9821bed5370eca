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
	"fmt"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

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
