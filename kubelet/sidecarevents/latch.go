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

package sidecarevents

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Latch remembers which events were recorded for which pod, so that each
// is recorded once per occurrence rather than once per sync. It is memory
// that decides nothing: it only saves duplicate events, and a restarted
// kubelet may record an event again. (What the fork keeps that does decide
// is rebuilt from the runtime or kept on disk: the layout from the
// sandbox's annotations, the termination deadline and the hooks' records
// in the pod's directory; contract rule 15.)
// The zero value is ready to use.
type Latch struct {
	mu   sync.Mutex
	seen map[types.UID]map[string]struct{}
}

// First reports whether key is new for the pod, and remembers it.
func (l *Latch) First(pod types.UID, key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[types.UID]map[string]struct{}{}
	}
	keys := l.seen[pod]
	if keys == nil {
		keys = map[string]struct{}{}
		l.seen[pod] = keys
	}
	if _, ok := keys[key]; ok {
		return false
	}
	keys[key] = struct{}{}
	return true
}

// Forget drops what is remembered of the pod; its next occurrences are
// recorded again.
func (l *Latch) Forget(pod types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.seen, pod)
}

// ForgetKeys drops the given keys of the pod, so that those events are
// recorded again at their next occurrence: the start events of a pod whose
// sandbox is recreated, which starts its sidecars and apps anew.
func (l *Latch) ForgetKeys(pod types.UID, keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, key := range keys {
		delete(l.seen[pod], key)
	}
}
