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

package podorder

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
)

// FeatureGate is the kubelet's feature gate for sidecar ordering.
const FeatureGate = "SidecarContainerOrdering"

// KubeletGet reads a path of the node's kubelet server (/healthz,
// /metrics): through the API server's node proxy, or, where the API server
// refuses to proxy to the node's address (a loopback one, as on the local
// cluster of make up), directly at the node's Hostname address with the
// client's credentials.
func (c *Cluster) KubeletGet(ctx context.Context, path string) ([]byte, error) {
	body, proxyErr := c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", c.Node, "proxy", path).DoRaw(ctx)
	if proxyErr == nil {
		return body, nil
	}
	node, err := c.Client.CoreV1().Nodes().Get(ctx, c.Node, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	host := ""
	for _, a := range node.Status.Addresses {
		if a.Type == v1.NodeHostName {
			host = a.Address
		}
	}
	if host == "" {
		return nil, fmt.Errorf("node proxy: %w; and the node has no Hostname address", proxyErr)
	}
	tlsConfig, err := rest.TLSConfigFor(c.Config)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	url := fmt.Sprintf("https://%s%s", net.JoinHostPort(host, strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))), path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node proxy: %w; directly: %w", proxyErr, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, err
}

// FeatureEnabled reads the kubelet's kubernetes_feature_enabled metric for
// the gate (FeatureGate, for one): 1 or 0, or -1 when the metric does not
// name it (a kubelet without the gate: not sidecar-kubelet).
func (c *Cluster) FeatureEnabled(ctx context.Context, gate string) (int, error) {
	body, err := c.KubeletGet(ctx, "/metrics")
	if err != nil {
		return -1, fmt.Errorf("reading the kubelet's metrics: %w", err)
	}
	return featureEnabled(string(body), gate), nil
}

func featureEnabled(metrics, gate string) int {
	for _, line := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(line, "kubernetes_feature_enabled{") && strings.Contains(line, `name="`+gate+`"`) {
			f := strings.Fields(line)
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				return int(v)
			}
		}
	}
	return -1
}

// KubeletStartedSince returns when the node's kubelet last started, if that
// was after t (its "Starting" event), or the zero time.
func (c *Cluster) KubeletStartedSince(ctx context.Context, t time.Time) time.Time {
	sel := fields.Set{"involvedObject.kind": "Node", "involvedObject.name": c.Node, "reason": "Starting"}.AsSelector().String()
	evs, err := c.Client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return time.Time{}
	}
	var last time.Time
	for _, e := range evs.Items {
		at := e.LastTimestamp.Time
		if at.IsZero() {
			at = e.EventTime.Time
		}
		if at.After(t) && at.After(last) {
			last = at
		}
	}
	return last
}

// PodStatusRefusals returns how many pod status updates the API server has
// refused as invalid since it started (apiserver_request_total for the
// pods/status subresource with code 400 or 422): the kubelet wrote a
// status the API does not allow, such as a container of a Never pod
// leaving the terminated state. The status manager then retries the same
// update, and the pod's status stays frozen.
func (c *Cluster) PodStatusRefusals(ctx context.Context) (int, error) {
	body, err := c.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return podStatusRefusals(string(body)), nil
}

func podStatusRefusals(metrics string) int {
	n := 0
	for _, line := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") ||
			!strings.Contains(line, `resource="pods"`) || !strings.Contains(line, `subresource="status"`) ||
			!(strings.Contains(line, `code="422"`) || strings.Contains(line, `code="400"`)) {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			n += int(v)
		}
	}
	return n
}
