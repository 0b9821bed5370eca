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

// Package bootclock reads the node's boot clock for sidecar-kubelet's
// termination deadline (sidecars.BootClock): the one clock that neither a
// step of the wall clock nor a restart of the kubelet moves.
package bootclock

import "github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"

// Read returns the boot clock now, or an error where the node has none the
// kubelet can read; the kubelet then counts a deadline from the time it
// learns of it, as upstream does.
func Read() (sidecars.BootClock, error) { return read() }
