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
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

func TestLatch(t *testing.T) {
	type call struct {
		forget bool     // Forget(pod) instead of First(pod, key)
		keys   []string // ForgetKeys(pod, keys...) instead
		pod    types.UID
		key    string
	}
	first := func(pod types.UID, key string) call { return call{pod: pod, key: key} }
	forget := func(pod types.UID) call { return call{forget: true, pod: pod} }
	forgetKeys := func(pod types.UID, keys ...string) call { return call{keys: keys, pod: pod} }

	testCases := []struct {
		name  string
		calls []call
		// want has one entry per First call: what it returned.
		want []bool
	}{
		{
			name:  "first time for a key",
			calls: []call{first("pod-1", sidecars.ReasonWaitingForSidecars)},
			want:  []bool{true},
		},
		{
			name: "same pod and key again",
			calls: []call{
				first("pod-1", sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonWaitingForSidecars),
			},
			want: []bool{true, false, false},
		},
		{
			name: "other key of the same pod is independent",
			calls: []call{
				first("pod-1", sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonSidecarsReady),
				first("pod-1", sidecars.ReasonWaitingForSidecars+"/b"),
				first("pod-1", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, true, true, false},
		},
		{
			name: "same key of another pod is independent",
			calls: []call{
				first("pod-1", sidecars.ReasonTerminatingSidecars),
				first("pod-2", sidecars.ReasonTerminatingSidecars),
				first("pod-2", sidecars.ReasonTerminatingSidecars),
				first("pod-1", sidecars.ReasonTerminatingSidecars),
			},
			want: []bool{true, true, false, false},
		},
		{
			name: "Forget resets the pod",
			calls: []call{
				first("pod-1", sidecars.ReasonInvalidSidecarAnnotation),
				first("pod-1", sidecars.ReasonSidecarsReady),
				forget("pod-1"),
				first("pod-1", sidecars.ReasonInvalidSidecarAnnotation),
				first("pod-1", sidecars.ReasonInvalidSidecarAnnotation),
				first("pod-1", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, true, true, false, true},
		},
		{
			name: "Forget leaves other pods alone",
			calls: []call{
				first("pod-1", sidecars.ReasonSidecarsReady),
				first("pod-2", sidecars.ReasonSidecarsReady),
				forget("pod-1"),
				first("pod-2", sidecars.ReasonSidecarsReady),
				first("pod-1", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, true, false, true},
		},
		{
			name: "Forget of an unknown pod, and on the zero value",
			calls: []call{
				forget("pod-1"),
				first("pod-1", sidecars.ReasonSidecarsReady),
				forget("pod-2"),
				first("pod-1", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, false},
		},
		{
			name: "ForgetKeys resets those keys of the pod only",
			calls: []call{
				first("pod-1", sidecars.ReasonSidecarsReady),
				first("pod-1", sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonInvalidSidecarAnnotation),
				first("pod-2", sidecars.ReasonSidecarsReady),
				forgetKeys("pod-1", sidecars.ReasonSidecarsReady, sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonSidecarsReady),
				first("pod-1", sidecars.ReasonWaitingForSidecars),
				first("pod-1", sidecars.ReasonInvalidSidecarAnnotation),
				first("pod-2", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, true, true, true, true, true, false, false},
		},
		{
			name: "ForgetKeys of an unknown pod or key",
			calls: []call{
				forgetKeys("pod-1", sidecars.ReasonSidecarsReady),
				first("pod-1", sidecars.ReasonSidecarsReady),
				forgetKeys("pod-1", "nope"),
				first("pod-1", sidecars.ReasonSidecarsReady),
			},
			want: []bool{true, false},
		},
		{
			name: "empty key and empty UID are keys like any other",
			calls: []call{
				first("", ""),
				first("", ""),
				first("pod-1", ""),
			},
			want: []bool{true, false, true},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var latch Latch // the zero value is ready to use
			var got []bool
			for _, c := range tc.calls {
				if c.forget {
					latch.Forget(c.pod)
					continue
				}
				if c.keys != nil {
					latch.ForgetKeys(c.pod, c.keys...)
					continue
				}
				got = append(got, latch.First(c.pod, c.key))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("First() results mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLatchConcurrent(t *testing.T) {
	const goroutines = 64
	var latch Latch
	var firsts, otherPodFirsts atomic.Int32
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range goroutines {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			if latch.First("pod-1", sidecars.ReasonWaitingForSidecars) {
				firsts.Add(1)
			}
			// Traffic on other pods and Forget of them meanwhile must not
			// disturb pod-1.
			if latch.First("pod-2", sidecars.ReasonSidecarsReady) {
				otherPodFirsts.Add(1)
			}
			if i%2 == 0 {
				latch.Forget("pod-3")
			} else {
				latch.First("pod-3", sidecars.ReasonSidecarsReady)
			}
		}()
	}
	start.Done()
	done.Wait()

	if got := firsts.Load(); got != 1 {
		t.Errorf("First() returned true in %d of %d goroutines for the same pod and key, want exactly 1", got, goroutines)
	}
	if got := otherPodFirsts.Load(); got != 1 {
		t.Errorf("First() returned true in %d of %d goroutines for another pod, want exactly 1", got, goroutines)
	}
	if latch.First("pod-1", sidecars.ReasonWaitingForSidecars) {
		t.Errorf("First() returned true after the concurrent calls, want false")
	}
}
