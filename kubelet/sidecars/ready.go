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

// Ready reports whether a sidecar is ready for the containers that wait on
// it, from whether it runs and whether its probes' last results were
// successes:
//   - with a readiness probe: that probe has succeeded;
//   - else with a startup probe: that probe has succeeded;
//   - else: it is running. The kubelet runs a postStart hook inside the sync
//     that starts the container, so a container seen running by a later sync
//     has returned from its hook.
func Ready(c *v1.Container, running, readinessSucceeded, startupSucceeded bool) bool {
	switch {
	case !running:
		return false
	case c.ReadinessProbe != nil:
		return readinessSucceeded
	case c.StartupProbe != nil:
		return startupSucceeded
	default:
		return true
	}
}
