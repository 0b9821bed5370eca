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

// What bench density records of a run (measure/density.go takes it): its
// pods' times, the CPU marks of the kubelet and containerd around the
// pods' start and their end, the idle rates to take away, and the probe
// counters; and the figures one run gives: the time to all Ready, every
// pod's a′, the CPU per pod above idle and the probe rates.

import (
	"fmt"
	"math"
	"time"
)

// A CPUMark is the CPU time (user + system, seconds, /proc/<pid>/stat) of
// the kubelet and of containerd at one moment; 0: not read. The start
// times tell a restarted process (or a reused pid) apart.
type CPUMark struct {
	At              int64   `json:"at"` // Unix ns
	Kubelet         float64 `json:"kubelet"`
	Containerd      float64 `json:"containerd"`
	KubeletStart    uint64  `json:"kubeletStart,omitempty"`
	ContainerdStart uint64  `json:"containerdStart,omitempty"`
	// Groups: the CPU seconds of each serve group (ServeGroups, by its
	// cgroup's name) from its cpuacct cgroup; a group not read is absent,
	// and a run of an older benchmark has none.
	Groups map[string]float64 `json:"groups,omitempty"`
}

// DensityCPU are a run's CPU marks: the pods' start (first create → the
// last pod Ready) and their end (the delete → the last pod gone, and the
// node settled: DensityRun.Settle). The benchmark's own reading of the
// runtime and the logs falls between the two, outside both.
type DensityCPU struct {
	Start  CPUMark `json:"start"`
	Ready  CPUMark `json:"ready"`
	Delete CPUMark `json:"delete"`
	Gone   CPUMark `json:"gone"`
}

// DensityIdle is the kubelet's and containerd's CPU time with no pod of
// ours, measured once before the runs on each kubelet.
type DensityIdle struct {
	Seconds    float64 `json:"seconds"` // wall time measured
	Kubelet    float64 `json:"kubelet"` // CPU seconds over it
	Containerd float64 `json:"containerd"`
	// Which of the two were read (a process without a pid, or restarted
	// while measured, is not).
	KubeletKnown    bool `json:"kubeletKnown"`
	ContainerdKnown bool `json:"containerdKnown"`
	// Groups: each serve group's CPU seconds over it, for the groups read
	// at both ends; API: the API server's requests over it (nil: not
	// counted).
	Groups map[string]float64 `json:"groups,omitempty"`
	API    *APICounts         `json:"api,omitempty"`
	// RuntimeOps: the kubelet's runtime calls over it (nil: not counted).
	RuntimeOps RuntimeOps `json:"runtimeOps,omitempty"`
}

// DensityPod is one pod of a density run.
type DensityPod struct {
	Name       string  `json:"name"`
	ReadyAfter float64 `json:"readyAfterMs"` // its sidecar's READY_AFTER
	UID        string  `json:"uid,omitempty"`
	Created    int64   `json:"created,omitempty"` // its create call returned, Unix ns
	Ready      int64   `json:"ready,omitempty"`   // the watch saw it Ready
	Gone       int64   `json:"gone,omitempty"`    // the watch saw it deleted
	// Containers: the CRI's times and the test server's logged ones, read
	// once every pod was Ready (bench run's recorder).
	Containers []Container `json:"containers,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// APrime is the pod's a′ in ms: its sidecar's /ready turning 200 → the
// app's start, as bench run's scenario a0 computes it; false for a pod
// without a sidecar or without those times.
func (p DensityPod) APrime() (float64, bool) {
	s := Sample{Kind: KindService, Sidecars: 1, Containers: p.Containers}
	iv, ok := Intervals(&s)["a0"]
	if !ok {
		return 0, false
	}
	return ms(iv[0], iv[1]), true
}

// APrimeParts splits the pod's a′ where its times allow, in ms: the
// sidecar's /ready turning 200 → the kubelet seeing it (the first
// successful probe, or the postStart hook's poll returning), that → the
// app's CreateContainer (the kubelet's sync and the runtime's create),
// and CreateContainer → the app's start (the runtime). The trace of what
// bounds a′ when many pods start at once.
func (p DensityPod) APrimeParts() ([3]float64, bool) {
	s := Sample{Kind: KindService, Sidecars: 1, Containers: p.Containers}
	iv := Intervals(&s)
	a0, ok0 := iv["a0"]
	a, ok := iv["a"]
	a3, ok3 := iv["a3"]
	if !ok0 || !ok || !ok3 {
		return [3]float64{}, false
	}
	return [3]float64{ms(a0[0], a[0]), ms(a[0], a3[0]), ms(a3[0], a3[1])}, true
}

// DensityRun is one run of one way at one N: a JSON line of bench density.
type DensityRun struct {
	Way     string `json:"way"`
	Kubelet string `json:"kubelet"`
	Probe   string `json:"probe"` // the probe type counted in Scrapes
	N       int    `json:"n"`
	Run     int    `json:"run"`
	Seed    uint64 `json:"seed"`
	// Unix ns: the first create call, the last pod's Ready on the watch,
	// the delete call, the last pod's deletion on the watch.
	Start    int64 `json:"start"`
	AllReady int64 `json:"allReady,omitempty"`
	Delete   int64 `json:"delete,omitempty"`
	AllGone  int64 `json:"allGone,omitempty"`
	// WatchRestarts: the watch was opened again while the pods ran (the
	// API server ends a watch whose reader falls behind, as in a burst of
	// events on 2 busy cores). LateTimes: the Ready and gone times that
	// the list of a reopened watch recorded, late by up to the gap; a run
	// with any is an error, a restart alone is not.
	WatchRestarts int         `json:"watchRestarts,omitempty"`
	LateTimes     int         `json:"lateTimes,omitempty"`
	CPU           DensityCPU  `json:"cpu"`
	Idle          DensityIdle `json:"idle"`
	// API: the API server's request counts at the CPU marks (nil: not
	// counted); TimeWait: the host's TIME_WAIT sockets (nil: not counted).
	// Runs of older benchmarks have neither.
	API      *DensityAPI     `json:"api,omitempty"`
	TimeWait *DensitySockets `json:"timeWait,omitempty"`
	// RuntimeOps: the kubelet's runtime calls over the two windows (the
	// pods' start, their end), by operation, each window from a reading
	// just outside its CPU marks; nil: not counted (runs of older
	// benchmarks).
	RuntimeOps RuntimeOps `json:"runtimeOps,omitempty"`
	// Settle: how long after the last pod left the API the end's window
	// went on, until the node was back to idle (settle); Unsettled: it was
	// not within the bound. Runs of older benchmarks ended the window when
	// the last pod left the API, so that what the kubelet still did for
	// the run's pods (its event queue, the last stops) fell into the next
	// run's window.
	Settle    float64 `json:"settle,omitempty"` // seconds
	Unsettled bool    `json:"unsettled,omitempty"`
	// Removed: how long after the last pod left the API the runtime held
	// none of the run's sandboxes and containers any more: the benchmark
	// removes them once stopped, what the kubelet's garbage collection
	// does once a minute; the end's window includes it. Runs of older
	// benchmarks left them to that collection, in the next run's window.
	Removed float64       `json:"removed,omitempty"` // seconds
	Scrapes []ProbeScrape `json:"scrapes"`           // from just before the first create to every pod Ready
	// MissedScrapes: scrapes of the kubelet's metrics while the pods
	// started that did not answer within their timeout (a saturated
	// kubelet), left out: the windows around them are longer. Runs of
	// older benchmarks failed at the first.
	MissedScrapes int `json:"missedScrapes,omitempty"`
	// MemoryCgroups: the host's memory cgroups at the run's start (from
	// /proc/cgroups, dying ones included; 0: not read, runs of older
	// benchmarks). Reclaimed: the host's page cache was dropped just
	// before (bench density -reclaim). Every run of pods leaves dying
	// memory cgroups behind, held by the page cache charged to them, and
	// a host with thousands runs everything slower: a run's count says
	// whether it began on the same host as the run it is paired with.
	MemoryCgroups int          `json:"memoryCgroups,omitempty"`
	Reclaimed     bool         `json:"reclaimed,omitempty"`
	Pods          []DensityPod `json:"pods"`
	Error         string       `json:"error,omitempty"`
}

// AllReadyMs is the time from the first create to the last pod Ready.
func (r DensityRun) AllReadyMs() (float64, bool) {
	if r.AllReady == 0 || r.Start == 0 {
		return 0, false
	}
	return ms(r.Start, r.AllReady), true
}

// APrimeParts are its pods' a′ parts (DensityPod.APrimeParts), part by
// part.
func (r DensityRun) APrimeParts() [3][]float64 {
	var out [3][]float64
	for _, p := range r.Pods {
		if parts, ok := p.APrimeParts(); ok {
			for i, v := range parts {
				out[i] = append(out[i], v)
			}
		}
	}
	return out
}

// APrimes are the a′ of the run's pods, ms, in pod order.
func (r DensityRun) APrimes() []float64 {
	var out []float64
	for _, p := range r.Pods {
		if v, ok := p.APrime(); ok {
			out = append(out, v)
		}
	}
	return out
}

// cpuPerPodMs is a process's CPU time over the run's two windows (its
// pods' start and their end) less its idle rate over the same wall time,
// per pod, in ms; NaN when unknown. cpu picks the process of a mark, known
// whether it was read at all.
func (r DensityRun) cpuPerPodMs(cpu func(CPUMark) float64, idleCPU float64, known bool) float64 {
	c := r.CPU
	if !known || r.N == 0 || r.Idle.Seconds <= 0 {
		return math.NaN()
	}
	for _, m := range []CPUMark{c.Start, c.Ready, c.Delete, c.Gone} {
		if cpu(m) == 0 || m.At == 0 {
			return math.NaN()
		}
	}
	used := cpu(c.Ready) - cpu(c.Start) + cpu(c.Gone) - cpu(c.Delete)
	wall := float64(c.Ready.At-c.Start.At+c.Gone.At-c.Delete.At) / 1e9
	return (used - idleCPU/r.Idle.Seconds*wall) / float64(r.N) * 1000
}

// KubeletPerPodMs is the kubelet's CPU per pod above idle (cpuPerPodMs).
func (r DensityRun) KubeletPerPodMs() float64 {
	return r.cpuPerPodMs(func(m CPUMark) float64 { return m.Kubelet }, r.Idle.Kubelet, r.Idle.KubeletKnown)
}

// ContainerdPerPodMs is containerd's CPU per pod above idle.
func (r DensityRun) ContainerdPerPodMs() float64 {
	return r.cpuPerPodMs(func(m CPUMark) float64 { return m.Containerd }, r.Idle.Containerd, r.Idle.ContainerdKnown)
}

// Restarted says whether the kubelet or containerd was restarted between
// the run's marks (another process's CPU time would be mixed in).
func (c DensityCPU) Restarted() string {
	var kubelet, containerd uint64
	for _, m := range []CPUMark{c.Start, c.Ready, c.Delete, c.Gone} {
		if m.KubeletStart != 0 {
			if kubelet != 0 && m.KubeletStart != kubelet {
				return "the kubelet was restarted during the run"
			}
			kubelet = m.KubeletStart
		}
		if m.ContainerdStart != 0 {
			if containerd != 0 && m.ContainerdStart != containerd {
				return "containerd was restarted during the run"
			}
			containerd = m.ContainerdStart
		}
	}
	return ""
}

// spacedScrapes keeps scrapes at least gap apart, so that no one-second
// rate is taken over a sliver of a second: the last scrape (taken when the
// last pod turned Ready, at any moment) replaces the one before it when it
// falls within gap of it, and the span still ends with it.
func spacedScrapes(scrapes []ProbeScrape, gap time.Duration) []ProbeScrape {
	var out []ProbeScrape
	for i, s := range scrapes {
		switch {
		case len(out) == 0 || s.At-out[len(out)-1].At >= int64(gap):
			out = append(out, s)
		case i == len(scrapes)-1 && len(out) > 1:
			out[len(out)-1] = s
		}
	}
	return out
}

// ProbeRates are the run's probe rates from just before the first create
// to every pod Ready, as bench probe-rate computes them.
func (r DensityRun) ProbeRates() (Rates, error) {
	sc := spacedScrapes(r.Scrapes, 500*time.Millisecond)
	if len(sc) < 2 {
		return Rates{}, fmt.Errorf("%s, %d pods: %d scrapes, need 2", r.Way, r.N, len(sc))
	}
	return ProbeRate{Way: r.Way, Pods: r.N, From: sc[0].At, To: sc[len(sc)-1].At, Scrapes: sc}.RatesOf()
}

// ReadDensityRuns reads a JSON-lines file of DensityRun.
func ReadDensityRuns(path string) ([]DensityRun, error) { return readJSONLines[DensityRun](path) }
