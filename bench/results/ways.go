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

// A Way is one way of running a pod with sidecars, on one kubelet.
type Way struct {
	Name    string // e.g. "fork/annotated"
	Kubelet string // "fork" or "upstream"
	Style   string // annotated, native-startup, native-startup-ready, native-wait-ready, native-wait-startup, poststart, none
	About   string
	// Period is the periodSeconds of the sidecars' probes: 1, or 10 for a
	// probe left to the API's defaults (periodSeconds 10, timeoutSeconds 1,
	// failureThreshold 3), as most pods have it.
	Period int32
}

// Ways lists every way the benchmark knows, in report order: each -p10 way
// next to the same pod with periodSeconds 1.
var Ways = []Way{
	{"fork/annotated", "fork", "annotated", "annotated regular containers, readiness probe (periodSeconds 1)", 1},
	{"fork/annotated-p10", "fork", "annotated", "the same with the readiness probe's defaults (periodSeconds 10)", 10},
	{"fork/native-startup", "fork", "native-startup", "native sidecars (restartPolicy: Always init containers), startup probe (periodSeconds 1)", 1},
	{"fork/native-wait-ready", "fork", "native-wait-ready", "native sidecars, readiness probe (periodSeconds 1), sidecar-kubelet.io/wait-ready", 1},
	{"fork/native-wait-ready-p10", "fork", "native-wait-ready", "the same with the readiness probe's defaults (periodSeconds 10)", 10},
	// upstream/native-startup's pod with the annotation: the contract's
	// "Ready" makes the startup probe's success the sidecar's readiness,
	// and the fork runs that probe between its periods too.
	{"fork/native-wait-startup", "fork", "native-wait-startup", "native sidecars, startup probe alone (periodSeconds 1), sidecar-kubelet.io/wait-ready: upstream/native-startup's pod with the annotation", 1},
	{"fork/poststart", "fork", "poststart", "regular containers, the sidecar's postStart polls until ready (preStop waits for the app); readiness probe periodSeconds 1", 1},
	{"fork/poststart-p10", "fork", "poststart", "the same with the readiness probe's defaults (periodSeconds 10); the hook polls as before", 10},
	{"fork/no-sidecars", "fork", "none", "the same containers without any ordering (baseline)", 1},
	{"upstream/native-startup", "upstream", "native-startup", "native sidecars, startup probe, unpatched kubelet", 1},
	// A mesh proxy's injected container carries a readiness probe (Istio's
	// injection template does), which upstream runs for the pod's life and
	// through its termination; the app waits for the startup probe.
	{"upstream/native-startup-ready", "upstream", "native-startup-ready", "native sidecars, startup probe and a readiness probe beside it (both periodSeconds 1), unpatched kubelet", 1},
	{"upstream/no-sidecars", "upstream", "none", "no ordering, unpatched kubelet (baseline)", 1},
}

// WaitedOnProbe is the probe type (as the kubelet's prober_probe_total
// labels it) whose success the way's next container waits for: the
// startup probe of plain native sidecars, the readiness probe otherwise;
// "" when nothing waits (no sidecars). The postStart way's apps wait for
// the hook, which polls /ready itself; its readiness probe is the one the
// kubelet runs meanwhile.
func (w Way) WaitedOnProbe() string {
	switch w.Style {
	case "none", "":
		return ""
	case "native-startup", "native-startup-ready", "native-wait-startup":
		return "Startup"
	}
	return "Readiness"
}

// WaitsOnKubeletProbe reports whether the next container waits for the
// kubelet's probe (not for a hook).
func (w Way) WaitsOnKubeletProbe() bool { return w.WaitedOnProbe() != "" && w.Style != "poststart" }

// WayByName finds a way.
func WayByName(name string) (Way, bool) {
	for _, w := range Ways {
		if w.Name == name {
			return w, true
		}
	}
	return Way{}, false
}

// Kinds of pods.
const (
	KindService = "svc" // long running app; deleted by the benchmark
	KindJob     = "job" // the app exits 0 by itself; restartPolicy Never
	// KindStop is one plain container, restartPolicy Never, whatever the
	// way, that the benchmark stops itself through the CRI: the runtime's
	// own time from a container's exit to its StopContainer returning, the
	// floor of c, in each lane of each way, under the same load as c.
	KindStop = "stop"
)

// SidecarName is the name of a pod's sidecar i (sc1, sc2, ...), as the
// records name their containers.
func SidecarName(i int) string { return fmt.Sprintf("sc%d", i) }
