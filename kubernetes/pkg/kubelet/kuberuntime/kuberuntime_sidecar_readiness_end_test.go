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

package kuberuntime

// sidecar-kubelet's tests of the readiness an ordered termination ends
// (kuberuntime_sidecar_readiness_end.go), in the harness of
// kuberuntime_sidecar_test.go, on the testing/synctest clock.
import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/utils/ptr"
)

// readinessAtStops records, as each container is signalled, whose
// readiness the kill has ended so far.
type readinessAtStops struct {
	*stopRecorder
	readiness proberesults.Manager
	ids       map[string]kubecontainer.ContainerID
}

func (r *readinessAtStops) StopContainer(ctx context.Context, id string, timeout int64) error {
	r.record("signal %s, readiness ended: %v", r.name(id), r.ended())
	return r.stopRecorder.StopContainer(ctx, id, timeout)
}

func (r *readinessAtStops) ended() []string {
	var ended []string
	for name, id := range r.ids {
		if r.readiness.Ended(id) {
			ended = append(ended, name)
		}
	}
	slices.Sort(ended)
	return ended
}

// killProbedPod runs the pod, with a readiness result for each container
// that has a readiness probe (as its probe worker would have set), kills
// it, and returns the log of the signals and whose readiness the kill
// ended by the end. The apps take a second to exit after SIGTERM.
func killProbedPod(t *testing.T, pod *v1.Pod, gate bool) (log []string, endedAfter []string) {
	s := newSidecarTest(t, pod, gate)
	setSidecarFakePod(s, pod)
	runningPod, err := s.runningPod()
	require.NoError(t, err)
	ids := map[string]kubecontainer.ContainerID{}
	for _, c := range runningPod.Containers {
		ids[c.Name] = c.ID
		if spec := kubecontainer.GetContainerSpec(pod, c.Name); spec != nil && spec.ReadinessProbe != nil {
			s.m.readinessManager.Set(c.ID, proberesults.Success, pod)
		}
	}
	recorder := &readinessAtStops{
		stopRecorder: &stopRecorder{RuntimeService: s.m.runtimeService, fake: s.runtime, start: time.Now(),
			stopDelay: map[string]time.Duration{"app1": time.Second, "app2": time.Second}},
		readiness: s.m.readinessManager,
		ids:       ids,
	}
	s.m.runtimeService = recorder
	require.NoError(t, s.m.KillPod(s.tCtx, pod, *runningPod, nil))
	// The stopRecorder's own entries say the same without the readiness.
	for _, entry := range recorder.stopRecorder.log {
		if strings.Contains(entry, "readiness ended") {
			log = append(log, entry)
		}
	}
	return log, recorder.ended()
}

// probedPod has apps app1 (probed) and app2 (not probed), annotated
// sidecars a and b, and the native sidecar n, every sidecar probed.
func probedPod(annotations map[string]string) *v1.Pod {
	probe := &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/ready"}}}
	container := func(name string, probed bool) v1.Container {
		c := v1.Container{Name: name, Image: "busybox"}
		if probed {
			c.ReadinessProbe = probe
		}
		return c
	}
	native := container("n", true)
	native.RestartPolicy = ptr.To(v1.ContainerRestartPolicyAlways)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "12345678", Name: "probed", Namespace: "new", Annotations: annotations},
		Spec: v1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(int64(30)),
			InitContainers:                []v1.Container{native},
			Containers:                    []v1.Container{container("app1", true), container("a", true), container("b", true), container("app2", false)},
		},
	}
}

// TestOrderedTerminationEndsReadiness checks when an ordered termination
// ends its containers' readiness (sidecars.ReadinessEnd): an app's once it
// has exited, not while it drains; a sidecar's as its turn comes and it is
// signalled. Before the change none was ended, and each probe failed
// against its container until the kill was over.
func TestOrderedTerminationEndsReadiness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, endedAfter := killProbedPod(t, probedPod(map[string]string{"sidecar-kubelet.io/sidecars": "a,b"}), true)
		require.Len(t, log, 5)
		requireDiff(t, []string{
			"signal app1, readiness ended: [] at 0s",
			"signal app2, readiness ended: [] at 0s",
		}, sortedWithin(log[:2]), "readiness ended as the apps are signalled")
		requireDiff(t, []string{
			"signal b, readiness ended: [app1 b] at 1s",
			"signal a, readiness ended: [a app1 b] at 1s",
			"signal n, readiness ended: [a app1 b n] at 1s",
		}, log[2:], "readiness ended as the sidecars are signalled, in their order")
		// app2 has no readiness probe, hence no result to end.
		requireDiff(t, []string{"a", "app1", "b", "n"}, endedAfter, "readiness ended by the kill")
	})
}

// TestUnorderedTerminationEndsNoReadiness checks that a kill the fork does
// not order leaves every readiness to its probe, as upstream: the gate off,
// or a pod without annotations (upstream orders its native sidecar).
func TestUnorderedTerminationEndsNoReadiness(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		gate        bool
	}{
		{name: "gate off", annotations: map[string]string{"sidecar-kubelet.io/sidecars": "a,b"}, gate: false},
		{name: "no annotations", gate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log, endedAfter := killProbedPod(t, probedPod(tc.annotations), tc.gate)
				requireDiff(t, []string{
					"signal a, readiness ended: [] at 0s",
					"signal app1, readiness ended: [] at 0s",
					"signal app2, readiness ended: [] at 0s",
					"signal b, readiness ended: [] at 0s",
					"signal n, readiness ended: [] at 1s",
				}, sortedWithin(log), "readiness ended at each signal")
				requireDiff(t, []string(nil), endedAfter, fmt.Sprintf("readiness ended by the kill (%s)", tc.name))
			})
		})
	}
}
