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

package sidecars

import v1 "k8s.io/api/core/v1"

// ProbeResult is the last result the kubelet's prober has for a probe of a
// container.
type ProbeResult int

const (
	// ProbeUnknown: the probe has not reported yet (or the container has no
	// such probe).
	ProbeUnknown ProbeResult = iota
	// ProbeSuccess: the probe's last result was success.
	ProbeSuccess
	// ProbeFailure: the probe's last result was failure.
	ProbeFailure
)

// IsReady reports whether a sidecar is ready for the containers that wait
// on it:
//   - with a readiness probe: that probe has succeeded;
//   - else with a startup probe: that probe has succeeded;
//   - else: it is running. The kubelet runs a postStart hook inside the sync
//     that starts the container, so a container seen running by a later sync
//     has returned from its hook.
func IsReady(c *v1.Container, running bool, readiness, startup ProbeResult) bool {
	switch {
	case !running:
		return false
	case c.ReadinessProbe != nil:
		return readiness == ProbeSuccess
	case c.StartupProbe != nil:
		return startup == ProbeSuccess
	default:
		return true
	}
}
