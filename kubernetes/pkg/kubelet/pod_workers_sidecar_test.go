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

package kubelet

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// TestPodWorkerRelistsOnTransition checks that the pod worker hands a pod to
// relistOnTransition each time it moves it on, to terminating and then to
// terminated, after the sync that did it ended and before the next one: the
// next sync waits for a runtime cache newer than that end, which a relist
// of the pod at that moment provides. Without the hook both moves wait for
// the next periodic relist, up to a second each.
func TestPodWorkerRelistsOnTransition(t *testing.T) {
	logger, tCtx := ktesting.NewTestContext(t)
	podWorkers, _, processed := createPodWorkers(logger)
	var channels WorkChannel
	podWorkers.workerChannelFn = channels.Intercept
	terminalPhaseSyncer := newTerminalPhaseSync(podWorkers.podSyncer.(*podSyncerFuncs).syncPod)
	podWorkers.podSyncer.(*podSyncerFuncs).syncPod = terminalPhaseSyncer.SyncPod

	// Each relist request records how many syncs of the pod had ended.
	var lock sync.Mutex
	var relistedAfter []int
	podWorkers.relistOnTransition = func(_ klog.Logger, pod *v1.Pod) {
		lock.Lock()
		defer lock.Unlock()
		relistedAfter = append(relistedAfter, len(processed[pod.UID]))
	}

	pod := newNamedPod("1", "test1", "pod1", false)
	podWorkers.UpdatePod(tCtx, UpdatePodOptions{Pod: pod, UpdateType: kubetypes.SyncPodCreate})
	drainAllWorkers(podWorkers)
	if len(relistedAfter) != 0 {
		t.Fatalf("a sync that keeps the pod running asked for relists after syncs %v, want none", relistedAfter)
	}

	terminalPhaseSyncer.SetTerminal(pod.UID)
	podWorkers.UpdatePod(tCtx, UpdatePodOptions{Pod: pod, UpdateType: kubetypes.SyncPodUpdate})
	drainAllWorkers(podWorkers)

	// Syncs: 1 create, 2 the update that finds the pod terminal, 3 the
	// terminating sync, 4 the terminated sync.
	if got := len(processed[pod.UID]); got != 4 {
		t.Fatalf("the pod had %d syncs, want 4: %+v", got, processed[pod.UID])
	}
	if diff := cmp.Diff([]int{2, 3}, relistedAfter); diff != "" {
		t.Errorf("relists requested after these many syncs (-want +got):\n%s", diff)
	}
}
