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
// it, from whether it runs, whether its probes' last results were
// successes, and whether a run of its postStart hook has returned:
//   - with a readiness probe: that probe has succeeded;
//   - else with a startup probe: that probe has succeeded;
//   - else: it is running and, if it has a postStart hook, a run of the hook
//     has returned. The kubelet runs the hook inside the sync that starts
//     the container, so a later sync of the same kubelet finds it returned;
//     a kubelet restart during the hook leaves it not returned until the
//     restarted kubelet has run it again (hooks are delivered at least
//     once).
func Ready(c *v1.Container, running, readinessSucceeded, startupSucceeded, postStartReturned bool) bool {
	switch {
	case !running:
		return false
	case c.ReadinessProbe != nil:
		return readinessSucceeded
	case c.StartupProbe != nil:
		return startupSucceeded
	case c.Lifecycle != nil && c.Lifecycle.PostStart != nil:
		return postStartReturned
	default:
		return true
	}
}
