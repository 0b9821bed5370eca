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

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// TestEndIsFinalUntilRemove checks End (sidecar-kubelet): it turns a
// container's result into a final Failure, with one update, that no later
// Set changes until Remove; it leaves a container without a result alone,
// so that nothing is kept that no worker's Remove would forget.
func TestEndIsFinalUntilRemove(t *testing.T) {
	m := NewManager()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", UID: "uid"}}
	id := kubecontainer.ContainerID{Type: "test", ID: "sidecar"}
	unseen := kubecontainer.ContainerID{Type: "test", ID: "unseen"}

	updates := func() []Update {
		var got []Update
		for {
			select {
			case u := <-m.Updates():
				got = append(got, u)
			default:
				return got
			}
		}
	}
	expect := func(step string, id kubecontainer.ContainerID, wantResult Result, wantFound, wantEnded bool, wantUpdates int) {
		t.Helper()
		result, found := m.Get(id)
		if found != wantFound || (found && result != wantResult) {
			t.Errorf("%s: Get() = %v, %v; want %v, %v", step, result, found, wantResult, wantFound)
		}
		if ended := m.Ended(id); ended != wantEnded {
			t.Errorf("%s: Ended() = %v, want %v", step, ended, wantEnded)
		}
		if got := updates(); len(got) != wantUpdates {
			t.Errorf("%s: updates %v, want %d", step, got, wantUpdates)
		}
	}

	m.End(unseen, pod)
	expect("End of a container no worker has seen", unseen, Failure, false, false, 0)

	m.Set(id, Success, pod)
	expect("Set", id, Success, true, false, 1)
	m.End(id, pod)
	expect("End", id, Failure, true, true, 1)
	m.Set(id, Success, pod)
	expect("Set after End (a run that was under way)", id, Failure, true, true, 0)
	m.End(id, pod)
	expect("End again", id, Failure, true, true, 0)
	m.Remove(id)
	expect("Remove", id, Failure, false, false, 0)
	m.Set(id, Success, pod)
	expect("Set after Remove", id, Success, true, false, 1)

	// A result that was already Failure ends without an update: nothing
	// changed for whoever reads the updates.
	failed := kubecontainer.ContainerID{Type: "test", ID: "failed"}
	m.Set(failed, Failure, pod)
	expect("Set Failure", failed, Failure, true, false, 1)
	m.End(failed, pod)
	expect("End of a Failure", failed, Failure, true, true, 0)
}
