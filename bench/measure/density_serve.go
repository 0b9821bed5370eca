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

// What the whole node spends on a density run's pods, beyond the
// kubelet: the CPU of every process group that serves them, read from the
// cpuacct cgroups the local cluster starts its components in
// (hack/lib/node.sh, start_proc: <cgroup root>-serve/<component>);
// the TIME_WAIT sockets their probes and API calls leave; and the API
// server's requests (apiserver_request_total).
//
// Why cgroups: containerd's shims (containerd-shim-runc-v2) and the runc
// they run are processes of their own. runc's CPU is reaped into its
// shim's cutime and cstime, but a shim exits with its pod, and its times
// leave /proc with it: a /proc reading after the pods are gone misses them.
// A cgroup v1 cpuacct group charges every task's CPU to the group it runs
// in at the moment it runs (cpuacct.usage, ns), and children start in
// their parent's group: containerd, every shim it starts, every runc and
// CNI plugin those start, until runc's init joins the container's own
// cgroup, all add to containerd's group, and nothing is taken away when
// they exit.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// readCPUAcct reads a cpuacct cgroup's usage, in seconds.
func readCPUAcct(dir string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s/cpuacct.usage: %v", dir, err)
	}
	return float64(ns) / 1e9, nil
}

// readServeGroups reads every group's CPU seconds under root (the serve
// cgroup's folder in the cpuacct hierarchy); a group whose cgroup cannot be
// read is absent. nil for no root.
func readServeGroups(root string) map[string]float64 {
	if root == "" {
		return nil
	}
	out := map[string]float64{}
	for _, g := range results.ServeGroups {
		if v, err := readCPUAcct(filepath.Join(root, g.Cgroup)); err == nil {
			out[g.Cgroup] = v
		}
	}
	return out
}

// checkServeCgroup makes sure the processes whose pids the caller knows
// run in their groups' cgroups under root: a component started before its
// cluster's scripts put it there (make up of an older checkout) would be
// counted as nothing.
func checkServeCgroup(root string, pids map[string]int) error {
	for name, pid := range pids {
		if pid == 0 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name, "cgroup.procs"))
		if err != nil {
			return fmt.Errorf("the serve cgroup of %s: %v", name, err)
		}
		found := false
		for _, f := range strings.Fields(string(b)) {
			if f == strconv.Itoa(pid) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s (pid %d) is not in its serve cgroup %s (restart the cluster: make down, make up)", name, pid, filepath.Join(root, name))
		}
	}
	return nil
}

// countTimeWait counts the sockets in state TIME_WAIT (06) in the text of
// /proc/net/tcp or /proc/net/tcp6.
func countTimeWait(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	n := 0
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		if f[3] == "06" {
			n++
		}
	}
	return n, sc.Err()
}

// readTimeWait counts the host's TIME_WAIT sockets, IPv4 and IPv6: those
// of the kubelet's probes (it closes each probe's connection), of the
// benchmark's scrapes and of the components' API calls. The pods' own are
// in their network namespaces, not counted.
func readTimeWait() (int, error) {
	total := 0
	for _, p := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return 0, err
		}
		n, err := countTimeWait(f)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("%s: %v", p, err)
		}
		total += n
	}
	return total, nil
}

// requestKind is a request's key in APICounts.ByRequest.
func requestKind(labels map[string]string) string {
	kind := labels["verb"] + " " + labels["resource"]
	if sub := labels["subresource"]; sub != "" {
		kind += "/" + sub
	}
	return kind
}

// parseAPICounts sums apiserver_request_total from the API server's
// /metrics text.
func parseAPICounts(r io.Reader) (results.APICounts, error) {
	var c results.APICounts
	seen := false
	err := forEachCounter(r, "apiserver_request_total", func(labels map[string]string, v float64) {
		seen = true
		c.All += v
		if c.ByRequest == nil {
			c.ByRequest = map[string]float64{}
		}
		c.ByRequest[requestKind(labels)] += v
		switch {
		case labels["resource"] == "events" && labels["verb"] == "POST" && labels["subresource"] == "":
			c.EventCreates += v
		case labels["resource"] == "events" && labels["verb"] == "PATCH" && labels["subresource"] == "":
			c.EventUpdates += v
		case labels["resource"] == "pods" && labels["subresource"] == "status" && (labels["verb"] == "PATCH" || labels["verb"] == "PUT"):
			c.PodStatus += v
		}
	})
	if err == nil && !seen {
		err = fmt.Errorf("no apiserver_request_total in the metrics")
	}
	return c, err
}

// forEachCounter calls f with the labels and value of every sample of the
// metric name in Prometheus text (the kubelet's probe counters and the API
// server's request counters are read through it).
func forEachCounter(r io.Reader, name string, f func(labels map[string]string, v float64)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	prefix := name + "{"
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		end := strings.LastIndex(rest, "}")
		if end < 0 {
			return fmt.Errorf("%s: no closing brace in %q", name, line)
		}
		labels, err := parseLabels(rest[:end])
		if err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		value, err := strconv.ParseFloat(strings.Fields(rest[end+1:] + " x")[0], 64)
		if err != nil {
			return fmt.Errorf("%q: %v", line, err)
		}
		f(labels, value)
	}
	return sc.Err()
}

// readAPICounts scrapes the API server's /metrics.
func readAPICounts(ctx context.Context, cs kubernetes.Interface) (results.APICounts, error) {
	rc, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").Stream(ctx)
	if err != nil {
		return results.APICounts{}, fmt.Errorf("the API server's metrics: %w", err)
	}
	defer rc.Close()
	return parseAPICounts(rc)
}

// parseRuntimeOps reads kubelet_runtime_operations_total from the
// kubelet's metrics (Prometheus text), by operation_type.
func parseRuntimeOps(r io.Reader) (results.RuntimeOps, error) {
	ops := results.RuntimeOps{}
	seen := false
	err := forEachCounter(r, "kubelet_runtime_operations_total", func(labels map[string]string, v float64) {
		seen = true
		ops[labels["operation_type"]] += v
	})
	if err == nil && !seen {
		err = fmt.Errorf("no kubelet_runtime_operations_total in the kubelet's metrics")
	}
	return ops, err
}

// newDensityAPI is a run's API counts at its four marks, with the
// requests its two windows added by kind.
func newDensityAPI(start, ready, del, gone results.APICounts) *results.DensityAPI {
	a := &results.DensityAPI{Start: start, Ready: ready, Delete: del, Gone: gone}
	for _, w := range []results.APICounts{ready.Sub(start), gone.Sub(del)} {
		for k, v := range w.ByRequest {
			if a.ByRequest == nil {
				a.ByRequest = map[string]float64{}
			}
			a.ByRequest[k] += v
		}
	}
	return a
}
