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

import "fmt"

// Container is one container's timeline, every time in Unix nanoseconds
// (0: did not happen or was not seen).
type Container struct {
	Name    string `json:"name"`
	Sidecar bool   `json:"sidecar"`
	Created int64  `json:"created"`          // CRI CreatedAt
	Started int64  `json:"started"`          // CRI StartedAt
	Ready   int64  `json:"ready,omitempty"`  // testserver: first 200 on /ready (the probe, or the hook, that saw it ready)
	Up      int64  `json:"up,omitempty"`     // testserver: /ready turned 200
	Hook    int64  `json:"hook,omitempty"`   // postStart hook returned (poststart way)
	Signal  int64  `json:"signal,omitempty"` // testserver: SIGTERM received
	Exited  int64  `json:"exited"`           // CRI FinishedAt
	Code    int32  `json:"exitCode"`
	// CreateCalled and CreateReturned: when the runtime received the
	// CreateContainer call of the container and when it returned, as
	// containerd logs them (0: not read).
	CreateCalled   int64 `json:"createCalled,omitempty"`
	CreateReturned int64 `json:"createReturned,omitempty"`
	// StopCalled and StopReturned: when the runtime received the first
	// StopContainer call of the container and when the first returned, as
	// containerd logs them (0: not read, or not stopped through the CRI).
	StopCalled   int64 `json:"stopCalled,omitempty"`
	StopReturned int64 `json:"stopReturned,omitempty"`
	// Probes: what the kubelet counted of the container's probes (see
	// ProbeCount), when the run scraped its metrics.
	Probes []ProbeCount `json:"probes,omitempty"`
}

// Probe returns the container's count of probe type t, if any.
func (c Container) Probe(t string) (ProbeCount, bool) {
	for _, p := range c.Probes {
		if p.Type == t {
			return p, true
		}
	}
	return ProbeCount{}, false
}

// ProbeCount is what the kubelet counted of one probe of one container.
type ProbeCount struct {
	Type string `json:"type"` // probe_type: Readiness, Startup, Liveness
	// prober_probe_total by result, scraped at Sample.ProbesAt (the
	// kubelet drops a container's series when its probe worker stops, so
	// the scrape is taken while the pod runs, once its containers are
	// ready).
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
	Unknown    int `json:"unknown,omitempty"`
	// FailedLog are the times (Unix ns, the kubelet's clock, µs) of the
	// kubelet's "Probe failed" log lines for this probe over the pod's whole
	// life: every failed run, also those the kubelet does not count in
	// prober_probe_total (a fork's extra runs of a waited-on probe throw
	// their failures away before the metric). Only set when the log was
	// read (Sample.KubeletLog).
	FailedLog []int64 `json:"failedLog,omitempty"`
}

// Runs is the number of runs of the probe up to t (Unix ns): the metric's
// successes and unknowns, and the failures of the metric or, when the log
// was read and saw more, of the log.
func (p ProbeCount) Runs(logRead bool, t int64) int {
	failed := p.Failed
	if logRead {
		failed = max(failed, p.FailedLogUntil(t))
	}
	return p.Successful + p.Unknown + failed
}

// FailedLogUntil counts the logged failures at or before t (Unix ns).
func (p ProbeCount) FailedLogUntil(t int64) int {
	n := 0
	for _, f := range p.FailedLog {
		if f <= t {
			n++
		}
	}
	return n
}

// Sample is one pod's run.
type Sample struct {
	Way      string `json:"way"`
	Kind     string `json:"kind"` // svc or job
	Sidecars int    `json:"sidecars"`
	Repeat   int    `json:"repeat"`
	Lane     int    `json:"lane,omitempty"`     // which of the way's parallel lanes ran it
	Parallel int    `json:"parallel,omitempty"` // lanes of the way that ran at once (0: 1)
	Pod      string `json:"pod"`
	// Pod events, Unix ns: the benchmark's create and delete calls, and the
	// receive times of the API server's watch events.
	Create          int64 `json:"create"`
	ContainersReady int64 `json:"containersReady,omitempty"`
	Succeeded       int64 `json:"succeeded,omitempty"`
	Delete          int64 `json:"delete,omitempty"`
	// StopCall and StopReturn: the benchmark's own StopContainer call of a
	// KindStop pod's container, Unix ns.
	StopCall   int64       `json:"stopCall,omitempty"`
	StopReturn int64       `json:"stopReturn,omitempty"`
	Gone       int64       `json:"gone,omitempty"`
	Containers []Container `json:"containers"`
	// ProbesAt is when the kubelet's probe metrics were scraped (0: not):
	// once the containers were ready, before anything terminated.
	ProbesAt int64 `json:"probesAt,omitempty"`
	// KubeletLog: the kubelet's log was read for this pod's failed probe
	// runs (ProbeCount.FailedLog).
	KubeletLog bool    `json:"kubeletLog,omitempty"`
	Metrics    Metrics `json:"metrics"` // scenario -> milliseconds
	Error      string  `json:"error,omitempty"`
}

// A Segment is one way's run of one repeat (all its lanes), or the
// kubelet's idle time before the ways (Way "idle"), with the CPU time the
// kubelet process spent over it.
type Segment struct {
	Way        string  `json:"way"`
	Repeat     int     `json:"repeat"`
	Parallel   int     `json:"parallel,omitempty"`
	Pods       int     `json:"pods"`
	Start      int64   `json:"start"` // Unix ns
	End        int64   `json:"end"`
	KubeletCPU float64 `json:"kubeletCPU"` // seconds, user + system, from /proc/<pid>/stat
	KubeletPID int     `json:"kubeletPid,omitempty"`
	Error      string  `json:"error,omitempty"` // the CPU time is not known
}

// Metrics maps a scenario key (see Scenarios) to a duration in ms.
type Metrics map[string]float64

// Scenario is one row group of the report.
type Scenario struct {
	Key, Title, Goal string
}

// Scenarios in report order.
var Scenarios = []Scenario{
	{"a", "a. sidecar ready (probe result) → first app start", "p95 < 100 ms"},
	{"a1", "a, the kubelet's part: sidecar ready → the app's CreateContainer (CRI created)", "—"},
	{"a0", "a'. sidecar /ready turns 200 → first app start (includes the probe period)", "p95 ≤ 250 ms, and < the postStart hook's"},
	{"a2", "a', the wait's part: sidecar /ready turns 200 → the app's CreateContainer (detection and the kubelet)", "—"},
	{"a3", "a', the runtime's part: the app's CreateContainer → its start (the same call in every way)", "—"},
	{"a4", "a', the runtime's create: the app's CreateContainer call → its return (containerd's log; in a2, and the most that creating the app before its sidecar is ready could save)", "—"},
	{"a5", "a' less the runtime's create (each pod's a' − a4): its a' had the app been created before its sidecar was ready (docs/kep/create-before-ready.md)", "—"},
	{"b", "b. Job: last app exit → pod Succeeded (API watch)", "p95 ≤ 1000 ms, and ≤ no sidecars"},
	{"c", "c. delete: last app exit → first sidecar SIGTERM", "p95 within 20 ms of c's floor"},
	{"c0", "c's floor: a plain container's exit → its StopContainer returning (the benchmark's own CRI call)", "—"},
	{"c1", "the runtime's kill path: StopContainer called → the container's SIGTERM", "—"},
	{"c2", "c, the kubelet's part: the last app's StopContainer returning → the first sidecar's StopContainer call (containerd's log)", "p95 ≤ 20 ms"},
	{"d1", "d. delete → pod gone, 1 sidecar", "—"},
	{"d3", "d. delete → pod gone, 3 sidecars", "—"},
	{"d5", "d. delete → pod gone, 5 sidecars", "—"},
	{"e1", "e. create → containers ready, 1 sidecar", "—"},
	{"e3", "e. create → containers ready, 3 sidecars", "—"},
	{"e5", "e. create → containers ready, 5 sidecars", "—"},
}

// Intervals derives, from a sample's times, the interval each scenario it
// measures spans: [from, to] in Unix ns.
func Intervals(s *Sample) map[string][2]int64 {
	m := map[string][2]int64{}
	var lastReady, lastUp, firstAppStart, firstAppCreated, lastAppExit, firstSignal int64
	var firstAppCreateCall [2]int64 // the create of the app created first
	var lastAppStopReturned, firstSidecarStopCalled int64
	appsStopped := true // every app's StopContainer return is known
	sidecars := 0
	for _, c := range s.Containers {
		if c.Sidecar {
			sidecars++
			ready := c.Ready
			if c.Hook != 0 && (ready == 0 || c.Hook < ready) {
				ready = c.Hook
			}
			lastReady = maxNZ(lastReady, ready)
			lastUp = maxNZ(lastUp, c.Up)
			if c.Signal != 0 && (firstSignal == 0 || c.Signal < firstSignal) {
				firstSignal = c.Signal
			}
			if c.StopCalled != 0 && (firstSidecarStopCalled == 0 || c.StopCalled < firstSidecarStopCalled) {
				firstSidecarStopCalled = c.StopCalled
			}
			continue
		}
		if c.Started != 0 && (firstAppStart == 0 || c.Started < firstAppStart) {
			firstAppStart = c.Started
		}
		if c.Created != 0 && (firstAppCreated == 0 || c.Created < firstAppCreated) {
			firstAppCreated = c.Created
			firstAppCreateCall = [2]int64{c.CreateCalled, c.CreateReturned}
		}
		lastAppExit = maxNZ(lastAppExit, c.Exited)
		lastAppStopReturned = maxNZ(lastAppStopReturned, c.StopReturned)
		appsStopped = appsStopped && c.StopReturned != 0
	}
	if sidecars > 0 && lastReady != 0 && firstAppStart != 0 {
		m["a"] = [2]int64{lastReady, firstAppStart}
		if firstAppCreated != 0 {
			m["a1"] = [2]int64{lastReady, firstAppCreated}
		}
		if lastUp != 0 {
			m["a0"] = [2]int64{lastUp, firstAppStart}
			if firstAppCreated != 0 {
				m["a2"] = [2]int64{lastUp, firstAppCreated}
			}
		}
		if firstAppCreated != 0 {
			m["a3"] = [2]int64{firstAppCreated, firstAppStart}
		}
		if firstAppCreateCall[0] != 0 && firstAppCreateCall[1] != 0 {
			m["a4"] = firstAppCreateCall
		}
	}
	if s.Kind == KindJob && lastAppExit != 0 && s.Succeeded != 0 {
		m["b"] = [2]int64{lastAppExit, s.Succeeded}
	}
	if s.Kind == KindStop && s.StopCall != 0 {
		for _, c := range s.Containers {
			if c.Exited != 0 && s.StopReturn != 0 {
				m["c0"] = [2]int64{c.Exited, s.StopReturn}
			}
			if c.Signal != 0 {
				m["c1"] = [2]int64{s.StopCall, c.Signal}
			}
		}
	}
	if s.Kind == KindService {
		if sidecars > 0 && lastAppExit != 0 && firstSignal != 0 {
			m["c"] = [2]int64{lastAppExit, firstSignal}
			// The kubelet's own part of c: the runtime told it that the
			// last app stopped (that app's StopContainer returned) → it
			// asked the runtime to stop a sidecar. It is negative where
			// the sidecar's stop was asked before the apps were down (a
			// kubelet that stops all containers at once).
			if appsStopped && lastAppStopReturned != 0 && firstSidecarStopCalled != 0 {
				m["c2"] = [2]int64{lastAppStopReturned, firstSidecarStopCalled}
			}
		}
		if s.Delete != 0 && s.Gone != 0 {
			m[fmt.Sprintf("d%d", s.Sidecars)] = [2]int64{s.Delete, s.Gone}
		}
		if s.ContainersReady != 0 {
			m[fmt.Sprintf("e%d", s.Sidecars)] = [2]int64{s.Create, s.ContainersReady}
		}
	}
	return m
}

// ComputeMetrics gives each interval of Intervals in milliseconds, and a5,
// the one figure that is not an interval: a′ less a4, per pod, since the
// percentiles of the two apart do not subtract.
func ComputeMetrics(s *Sample) Metrics {
	m := Metrics{}
	for k, iv := range Intervals(s) {
		m[k] = ms(iv[0], iv[1])
	}
	a0, ok0 := m["a0"]
	a4, ok4 := m["a4"]
	if ok0 && ok4 {
		m["a5"] = a0 - a4
	}
	return m
}

func maxNZ(a, b int64) int64 {
	if b > a {
		return b
	}
	return a
}
