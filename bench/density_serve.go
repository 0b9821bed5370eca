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

package main

// What the whole node spends on a density run's pods, beyond the
// kubelet: the CPU of every process group that serves them, read from the
// cpuacct cgroups the local cluster starts its components in
// (hack/cluster/node.sh, start_proc: <cgroup root>-serve/<component>);
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
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// A ServeGroup is one group of processes that serve the pods, measured
// from its own cpuacct cgroup: Cgroup is its folder under the cluster's
// serve cgroup (the component's name in hack/cluster/lib.sh).
type ServeGroup struct {
	Cgroup string
	Label  string // what the report calls it
}

// ServeGroups are the groups whose CPU the density runs add up to the
// node's CPU per pod. The scheduler and the controller manager run in
// cgroups of their own too, but a pod costs them one binding and nothing
// more, the same in every way: they are left out of the node's total.
var ServeGroups = [...]ServeGroup{
	{"kubelet", "kubelet"},
	{"containerd", "containerd + shims + runc"},
	{"kube-apiserver", "kube-apiserver"},
	{"etcd", "etcd"},
}

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
	for _, g := range ServeGroups {
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

// CountTimeWait counts the sockets in state TIME_WAIT (06) in the text of
// /proc/net/tcp or /proc/net/tcp6.
func CountTimeWait(r io.Reader) (int, error) {
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
		n, err := CountTimeWait(f)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("%s: %v", p, err)
		}
		total += n
	}
	return total, nil
}

// DensitySockets are the host's TIME_WAIT sockets over a density run: just
// before the first create, when the last pod turned Ready, and the most
// seen by a reading once a second from the first create to the last pod
// gone (a socket stays in TIME_WAIT for 60 s: the peak is near the run's
// end, where the counts of its start and its deletion add up).
type DensitySockets struct {
	Start int `json:"start"`
	Ready int `json:"ready"`
	Peak  int `json:"peak"`
}

// APICounts are the API server's requests since it started
// (apiserver_request_total, every code): all of them, the events created
// (resource events, POST: one per event a component records) and the
// pods' status writes (pods/status, PATCH or PUT: the kubelet's status
// manager).
type APICounts struct {
	All          float64 `json:"all"`
	EventCreates float64 `json:"eventCreates"`
	PodStatus    float64 `json:"podStatus"`
	// ByRequest: every count by "VERB resource[/subresource]". Not written
	// at each mark (the API server's cumulative counts of every kind of
	// request it ever served): a run keeps what its windows added
	// (DensityAPI.ByRequest).
	ByRequest map[string]float64 `json:"-"`
}

// Sub is c - o; ByRequest keeps the requests that changed.
func (c APICounts) Sub(o APICounts) APICounts {
	d := APICounts{All: c.All - o.All, EventCreates: c.EventCreates - o.EventCreates, PodStatus: c.PodStatus - o.PodStatus}
	for k, v := range c.ByRequest {
		if v != o.ByRequest[k] {
			if d.ByRequest == nil {
				d.ByRequest = map[string]float64{}
			}
			d.ByRequest[k] = v - o.ByRequest[k]
		}
	}
	return d
}

// requestKind is a request's key in APICounts.ByRequest.
func requestKind(labels map[string]string) string {
	kind := labels["verb"] + " " + labels["resource"]
	if sub := labels["subresource"]; sub != "" {
		kind += "/" + sub
	}
	return kind
}

// ParseAPICounts sums apiserver_request_total from the API server's
// /metrics text.
func ParseAPICounts(r io.Reader) (APICounts, error) {
	var c APICounts
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
func readAPICounts(ctx context.Context, cs kubernetes.Interface) (APICounts, error) {
	rc, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").Stream(ctx)
	if err != nil {
		return APICounts{}, fmt.Errorf("the API server's metrics: %w", err)
	}
	defer rc.Close()
	return ParseAPICounts(rc)
}

// perPodAboveIdle is what a counter gained over a run's two windows (the
// pods' start and their end: from[0] → to[0], from[1] → to[1], wall
// seconds in all), less its idle rate (idle over idleSeconds) over the
// same time, per pod.
func perPodAboveIdle(gained, wall, idle, idleSeconds float64, n int) float64 {
	if n == 0 || idleSeconds <= 0 {
		return math.NaN()
	}
	return (gained - idle/idleSeconds*wall) / float64(n)
}

// windows are the run's two windows' wall time in seconds, 0 when a mark
// was not taken.
func (r DensityRun) windows() float64 {
	c := r.CPU
	for _, m := range []CPUMark{c.Start, c.Ready, c.Delete, c.Gone} {
		if m.At == 0 {
			return 0
		}
	}
	return float64(c.Ready.At-c.Start.At+c.Gone.At-c.Delete.At) / 1e9
}

// GroupPerPodMs is one serve group's CPU per pod above idle, in ms, from
// its cgroup; NaN when the run did not read it (a run of an older
// benchmark, or a cluster without the serve cgroups).
func (r DensityRun) GroupPerPodMs(cgroup string) float64 {
	c := r.CPU
	wall := r.windows()
	idle, ok := r.Idle.Groups[cgroup]
	if wall == 0 || !ok {
		return math.NaN()
	}
	var v [4]float64
	for i, m := range []CPUMark{c.Start, c.Ready, c.Delete, c.Gone} {
		x, ok := m.Groups[cgroup]
		if !ok {
			return math.NaN()
		}
		v[i] = x
	}
	return perPodAboveIdle(v[1]-v[0]+v[3]-v[2], wall, idle, r.Idle.Seconds, r.N) * 1000
}

// NodePerPodMs is the CPU per pod above idle of every serve group, added
// up: NaN unless every group was read.
func (r DensityRun) NodePerPodMs() float64 {
	total := 0.0
	for _, g := range ServeGroups {
		total += r.GroupPerPodMs(g.Cgroup)
	}
	return total
}

// APIPerPod are the API server's requests per pod above idle over the
// run's two windows; false when the run did not count them.
func (r DensityRun) APIPerPod() (APICounts, bool) {
	a := r.API
	wall := r.windows()
	if a == nil || r.Idle.API == nil || wall == 0 || r.N == 0 || r.Idle.Seconds <= 0 {
		return APICounts{}, false
	}
	gained := a.Ready.Sub(a.Start)
	end := a.Gone.Sub(a.Delete)
	idle := *r.Idle.API
	per := func(g, e, i float64) float64 { return perPodAboveIdle(g+e, wall, i, r.Idle.Seconds, r.N) }
	return APICounts{
		All:          per(gained.All, end.All, idle.All),
		EventCreates: per(gained.EventCreates, end.EventCreates, idle.EventCreates),
		PodStatus:    per(gained.PodStatus, end.PodStatus, idle.PodStatus),
	}, true
}

// DensityAPI are the API server's request counts at a run's four marks.
type DensityAPI struct {
	Start  APICounts `json:"start"`
	Ready  APICounts `json:"ready"`
	Delete APICounts `json:"delete"`
	Gone   APICounts `json:"gone"`
	// ByRequest: the requests of the two windows (start → ready, delete →
	// gone) by "VERB resource[/subresource]", so that a run's requests can
	// be told apart after it (the reports use the three sums). Runs of
	// older benchmarks have none.
	ByRequest map[string]float64 `json:"byRequest,omitempty"`
}

// newDensityAPI is a run's API counts at its four marks, with the
// requests its two windows added by kind.
func newDensityAPI(start, ready, del, gone APICounts) *DensityAPI {
	a := &DensityAPI{Start: start, Ready: ready, Delete: del, Gone: gone}
	for _, w := range []APICounts{ready.Sub(start), gone.Sub(del)} {
		for k, v := range w.ByRequest {
			if a.ByRequest == nil {
				a.ByRequest = map[string]float64{}
			}
			a.ByRequest[k] += v
		}
	}
	return a
}

// KubeletFigureMs is the kubelet's CPU per pod above idle as the report
// gives it: from its serve cgroup (its children, mount and iptables
// included), or from /proc in runs without one.
func (r DensityRun) KubeletFigureMs() float64 {
	if v := r.GroupPerPodMs("kubelet"); !math.IsNaN(v) {
		return v
	}
	return r.KubeletPerPodMs()
}
