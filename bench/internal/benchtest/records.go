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

package benchtest

import (
	"math"
	"strings"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

// ServiceSample is a service pod of one sidecar and an app, times in ms.
func ServiceSample(way string, ready, appStart, appExit, signal int64) results.Sample {
	return results.Sample{
		Way: way, Kind: results.KindService, Sidecars: 1, Create: 0,
		ContainersReady: (appStart + 100) * msNS, Delete: (appStart + 500) * msNS, Gone: (signal + 400) * msNS,
		Containers: []results.Container{
			{Name: "sc1", Sidecar: true, Started: 100 * msNS, Up: (ready - 50) * msNS, Ready: ready * msNS, Signal: signal * msNS, Exited: (signal + 5) * msNS},
			{Name: "app", Created: (appStart - 30) * msNS, Started: appStart * msNS, Exited: appExit * msNS},
		},
	}
}

// ChainContainers builds a chain's containers: sidecar i starts at
// starts[i] ms, its /ready turns 200 at +own, is seen detect later; the
// next container is created kubelet ms after that and starts runtime ms
// after its creation. The app comes last.
func ChainContainers(n int, first, own, detect, kubelet, runtime float64) []results.Container {
	at := func(msec float64) int64 { return int64(msec * 1e6) }
	var out []results.Container
	start := first
	created := first - runtime
	for i := 1; i <= n; i++ {
		up := start + own
		seen := up + detect
		out = append(out, results.Container{Name: results.SidecarName(i), Sidecar: true, Created: at(created), Started: at(start), Up: at(up), Ready: at(seen)})
		created = seen + kubelet
		start = created + runtime
	}
	return append(out, results.Container{Name: "app", Created: at(created), Started: at(start)})
}

// DensityPodOf is a pod whose sidecar's /ready turned 200 at upAt ns and
// whose app started aPrime ms later.
func DensityPodOf(name string, upAt int64, aPrime float64) results.DensityPod {
	return results.DensityPod{Name: name, Containers: []results.Container{
		{Name: "sc1", Sidecar: true, Started: upAt - 500*msNS, Up: upAt, Ready: upAt + 20*msNS},
		{Name: "app", Created: upAt + 25*msNS, Started: upAt + int64(aPrime*1e6)},
	}}
}

// DensityRun is a run of n pods from 100 s: every pod Ready readyMs
// after the first create, the kubelet kubeletMs CPU per pod above an idle
// rate of 0 (containerd not read), extra probe runs at extra/s and one
// periodic run per pod and second, over scrapes 1 s apart; a′ of its pods.
func DensityRun(way string, n, run int, readyMs, kubeletMs, extra float64, aPrimes ...float64) results.DensityRun {
	start := 100 * sec
	ready := start + int64(readyMs*1e6)
	used := kubeletMs / 1000 * float64(n)
	r := results.DensityRun{Way: way, Kubelet: strings.Split(way, "/")[0], N: n, Run: run, Start: start, AllReady: ready,
		Delete: ready + sec, AllGone: ready + 3*sec,
		Idle: results.DensityIdle{Seconds: 10, KubeletKnown: true},
		CPU: results.DensityCPU{
			Start:  results.CPUMark{At: start, Kubelet: 10},
			Ready:  results.CPUMark{At: ready, Kubelet: 10 + used/2},
			Delete: results.CPUMark{At: ready + sec, Kubelet: 10 + used/2 + 1}, // the benchmark's own reading: not counted
			Gone:   results.CPUMark{At: ready + 3*sec, Kubelet: 10 + used + 1},
		},
	}
	for i := int64(0); i*sec <= ready-start; i++ {
		r.Scrapes = append(r.Scrapes, results.ProbeScrape{At: start + i*sec, Runs: float64(i) * (float64(n) + extra), Extra: float64(i) * extra})
	}
	for i, a := range aPrimes {
		r.Pods = append(r.Pods, DensityPodOf("p"+string(rune('a'+i)), start+sec, a))
	}
	return r
}

// WholeNodeRun is a run of 10 pods whose marks read every serve group,
// the API server's counters and the TIME_WAIT sockets: the start window
// 100 → 104 s, the end's 105 → 107 s, 6 s in all.
func WholeNodeRun() results.DensityRun {
	mark := func(at int64, kubelet, containerd, apiserver, etcd float64) results.CPUMark {
		return results.CPUMark{At: at * sec, Kubelet: kubelet, KubeletStart: 7,
			Groups: map[string]float64{"kubelet": kubelet, "containerd": containerd, "kube-apiserver": apiserver, "etcd": etcd}}
	}
	return results.DensityRun{Way: "fork/annotated", Kubelet: "fork", N: 10, Start: 100 * sec, AllReady: 104 * sec,
		Idle: results.DensityIdle{Seconds: 10, Kubelet: 0.1, KubeletKnown: true,
			Groups:     map[string]float64{"kubelet": 0.1, "containerd": 0.05, "kube-apiserver": 0.2, "etcd": 0.1},
			API:        &results.APICounts{All: 50, EventCreates: 0, PodStatus: 0},
			RuntimeOps: results.RuntimeOps{"list_podsandbox": 20, "list_containers": 20, "list_images": 1}},
		CPU: results.DensityCPU{
			Start: mark(100, 10, 5, 20, 8), Ready: mark(104, 10.5, 6, 20.4, 8.1),
			Delete: mark(105, 10.6, 6.1, 20.5, 8.1), Gone: mark(107, 10.9, 6.9, 20.8, 8.2),
		},
		API: &results.DensityAPI{
			Start: results.APICounts{All: 1000, EventCreates: 100, EventUpdates: 10, PodStatus: 200}, Ready: results.APICounts{All: 1150, EventCreates: 140, EventUpdates: 12, PodStatus: 230},
			Delete: results.APICounts{All: 1160, EventCreates: 140, EventUpdates: 12, PodStatus: 230}, Gone: results.APICounts{All: 1230, EventCreates: 160, EventUpdates: 42, PodStatus: 250},
			ByRequest: map[string]float64{"POST events": 60, "PATCH events": 32, "PATCH pods/status": 50, "GET pods": 128},
		},
		TimeWait:   &results.DensitySockets{Start: 12, Ready: 300, Peak: 420},
		RuntimeOps: results.RuntimeOps{"list_podsandbox": 60, "list_containers": 40, "container_status": 100},
	}
}

// extraChecksUpTo is the extra checks of a sidecar waited on for age
// seconds as the fork makes them (20/s for 2 s, halving every 2 s to 1.25/s
// from 8 s), then rate a second from 10 s, none after 60 s.
func extraChecksUpTo(age, rate float64) float64 {
	clamp := func(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
	n := 0.0
	for i, r := range []float64{20, 10, 5, 2.5, 1.25} {
		n += r * clamp(age-2*float64(i), 0, 2)
	}
	return n + rate*clamp(age-10, 0, 50)
}

// NeverReadyT0 is when every sidecar of the constructed runs starts.
const NeverReadyT0 = 100 * sec

// SteadyNeverReadyRun is a run of two never-ready sidecars whose extra
// checks settle at rateA and rateB a second (their probes' periodic runs
// one in 10 s on top), and one sidecar ready after 15 s, seen 300 ms later,
// its app started 400 ms after its /ready turned 200; all three start at
// NeverReadyT0, scraped once a second from 1 s before to 62 s after.
func SteadyNeverReadyRun(way string, rateA, rateB float64) results.NeverReadyRun {
	w, _ := results.WayByName(way)
	at := func(age float64) int64 { return NeverReadyT0 + int64(age*1e9) }
	r := results.NeverReadyRun{Way: way, Kubelet: w.Kubelet, Probe: w.WaitedOnProbe(), Period: 10, Start: at(-1.5),
		Pods: []results.NeverReadyPod{
			{Name: "nr-a", Containers: []results.Container{{Name: "sc1", Sidecar: true, Started: at(0)}}},
			{Name: "nr-b", Containers: []results.Container{{Name: "sc1", Sidecar: true, Started: at(0)}}},
			{Name: "nr-late", ReadyAfter: 15000, Containers: []results.Container{
				{Name: "sc1", Sidecar: true, Started: at(0), Up: at(15), Ready: at(15.3)},
				{Name: "app", Created: at(15.35), Started: at(15.4)}}},
		}}
	for age := -1.0; age <= 62; age++ {
		x := math.Max(age, 0)
		a, b := extraChecksUpTo(x, rateA), extraChecksUpTo(x, rateB)
		late := extraChecksUpTo(math.Min(x, 15.3), 1)
		r.Scrapes = append(r.Scrapes, results.NeverReadyScrape{
			ProbeScrape: results.ProbeScrape{At: at(age), Extra: a + b + late},
			PerPod:      map[string]float64{"nr-a": a + x/10, "nr-b": b + x/10, "nr-late": late + math.Min(x, 15.3)/10},
		})
	}
	return r
}

// WithFresh adds to a steady run a fresh pod created at 30 s: its sidecar
// starts at 30.2 s, turns ready at 31.2 s, is seen ready at 31.25 s, and
// its app starts aPrime ms after its /ready turned 200; its probe runs 20
// times a second from its start to its readiness seen (21 extra runs) and
// once at its start (periodic).
func WithFresh(r results.NeverReadyRun, aPrime float64) results.NeverReadyRun {
	at := func(age float64) int64 { return NeverReadyT0 + int64(age*1e9) }
	r.Pods = append(append([]results.NeverReadyPod(nil), r.Pods...), results.NeverReadyPod{Name: "nr-fresh", ReadyAfter: 1000, Fresh: true, CreatedAfter: 30000,
		Containers: []results.Container{
			{Name: "sc1", Sidecar: true, Started: at(30.2), Up: at(31.2), Ready: at(31.25)},
			{Name: "app", Created: at(31.25), Started: at(31.2 + aPrime/1000)}}})
	scrapes := make([]results.NeverReadyScrape, len(r.Scrapes))
	for i, sc := range r.Scrapes {
		age := float64(sc.At-NeverReadyT0) / 1e9
		extra := 20 * math.Max(0, math.Min(age, 31.25)-30.2)
		periodic := 0.0
		if age >= 30.2 {
			periodic = 1
		}
		per := map[string]float64{"nr-fresh": extra + periodic}
		for k, v := range sc.PerPod {
			per[k] = v
		}
		sc.PerPod, sc.Extra = per, sc.Extra+extra
		scrapes[i] = sc
	}
	r.Scrapes = scrapes
	return r
}
