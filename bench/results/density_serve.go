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

package results

// The whole node's part of a density run's record: the CPU of every group
// of processes serving the pods, the API server's requests and the host's
// TIME_WAIT sockets (measure/density_serve.go reads them, and says why the
// CPU comes from cgroups), and what they come to per pod above idle.

import "math"

// A ServeGroup is one group of processes that serve the pods, measured
// from its own cpuacct cgroup: Cgroup is its folder under the cluster's
// serve cgroup (the component's name in hack/lib/cluster.sh).
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
// (resource events, POST: one per event a component records), the events
// updated (resource events, PATCH: a recorder that sees an event again
// raises the count of the one it created, e.g. a readiness probe that
// fails every period) and the pods' status writes (pods/status, PATCH or
// PUT: the kubelet's status manager).
type APICounts struct {
	All          float64 `json:"all"`
	EventCreates float64 `json:"eventCreates"`
	// EventUpdates: none at the marks of older runs, which did not count
	// them apart (their ByRequest has them, over both windows).
	EventUpdates float64 `json:"eventUpdates,omitempty"`
	PodStatus    float64 `json:"podStatus"`
	// ByRequest: every count by "VERB resource[/subresource]". Not written
	// at each mark (the API server's cumulative counts of every kind of
	// request it ever served): a run keeps what its windows added
	// (DensityAPI.ByRequest).
	ByRequest map[string]float64 `json:"-"`
}

// Sub is c - o; ByRequest keeps the requests that changed.
func (c APICounts) Sub(o APICounts) APICounts {
	d := APICounts{All: c.All - o.All, EventCreates: c.EventCreates - o.EventCreates,
		EventUpdates: c.EventUpdates - o.EventUpdates, PodStatus: c.PodStatus - o.PodStatus}
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
	updated, updatedAtEnd := gained.EventUpdates, end.EventUpdates
	if !r.eventUpdatesAtMarks() {
		// An older run: its windows' requests by kind have them, its idle
		// span did not count them (an idle node patches no event).
		updated, updatedAtEnd = a.ByRequest[eventUpdateKind], 0
	}
	return APICounts{
		All:          per(gained.All, end.All, idle.All),
		EventCreates: per(gained.EventCreates, end.EventCreates, idle.EventCreates),
		EventUpdates: per(updated, updatedAtEnd, idle.EventUpdates),
		PodStatus:    per(gained.PodStatus, end.PodStatus, idle.PodStatus),
	}, true
}

// eventUpdateKind is the event updates' key in APICounts.ByRequest.
const eventUpdateKind = "PATCH events"

// eventUpdatesAtMarks reports whether the run counted the event updates
// at its marks: runs of older benchmarks have them only in ByRequest.
func (r DensityRun) eventUpdatesAtMarks() bool {
	a := r.API
	return a.ByRequest[eventUpdateKind] == 0 || a.Gone.EventUpdates > 0
}

// EventUpdatesWhileGoingPerPod are the events updated per pod above idle
// in the run's second window alone (delete → gone and the node's
// settling): the readiness probes that fail, every period, at containers
// that their pod's deletion has stopped while the kubelet still sees them
// running. False when the run did not count them at its marks.
func (r DensityRun) EventUpdatesWhileGoingPerPod() (float64, bool) {
	a, c := r.API, r.CPU
	if a == nil || r.Idle.API == nil || r.N == 0 || r.Idle.Seconds <= 0 || c.Delete.At == 0 || c.Gone.At == 0 || !r.eventUpdatesAtMarks() {
		return math.NaN(), false
	}
	wall := float64(c.Gone.At-c.Delete.At) / 1e9
	return perPodAboveIdle(a.Gone.EventUpdates-a.Delete.EventUpdates, wall, r.Idle.API.EventUpdates, r.Idle.Seconds, r.N), true
}

// RuntimeOps are the kubelet's calls to the container runtime by
// operation (kubelet_runtime_operations_total's operation_type:
// list_podsandbox, container_status, ...): since it started at a reading,
// or gained over a span in a run's record. The benchmark's own CRI calls
// (its reading of the containers' times, its removal of stopped ones) are
// not the kubelet's and are not in them.
type RuntimeOps map[string]float64

// Sub is c - o, keeping the operations that changed.
func (c RuntimeOps) Sub(o RuntimeOps) RuntimeOps {
	d := RuntimeOps{}
	for k, v := range c {
		if v != o[k] {
			d[k] = v - o[k]
		}
	}
	return d
}

// Total is every operation's count added up.
func (c RuntimeOps) Total() float64 {
	t := 0.0
	for _, v := range c {
		t += v
	}
	return t
}

// RuntimeOpsPerPod are the kubelet's runtime calls per pod above idle over
// the run's two windows, by operation; false when the run did not count
// them (a run of an older benchmark, or a reading that failed).
func (r DensityRun) RuntimeOpsPerPod() (RuntimeOps, bool) {
	wall := r.windows()
	if r.RuntimeOps == nil || r.Idle.RuntimeOps == nil || wall == 0 || r.N == 0 || r.Idle.Seconds <= 0 {
		return nil, false
	}
	per := RuntimeOps{}
	for k, v := range r.RuntimeOps {
		per[k] = perPodAboveIdle(v, wall, r.Idle.RuntimeOps[k], r.Idle.Seconds, r.N)
	}
	// An operation of the idle span the windows did not see (the periodic
	// ones, e.g. the image list) still counts against them.
	for k, v := range r.Idle.RuntimeOps {
		if _, ok := r.RuntimeOps[k]; !ok {
			per[k] = perPodAboveIdle(0, wall, v, r.Idle.Seconds, r.N)
		}
	}
	return per, true
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

// KubeletFigureMs is the kubelet's CPU per pod above idle as the report
// gives it: from its serve cgroup (its children, mount and iptables
// included), or from /proc in runs without one.
func (r DensityRun) KubeletFigureMs() float64 {
	if v := r.GroupPerPodMs("kubelet"); !math.IsNaN(v) {
		return v
	}
	return r.KubeletPerPodMs()
}
