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

package prober

import (
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/utils/exec"
)

// countingExecProber fails every run, and counts them.
type countingExecProber struct{ runs atomic.Int32 }

func (p *countingExecProber) Probe(exec.Cmd) (probe.Result, string, error) {
	p.runs.Add(1)
	return probe.Failure, "connection refused", nil
}

// TestEndedReadinessRunsNoProbe checks that a readiness probe whose result
// an ordered termination ended (results.Manager.End, sidecar-kubelet) runs
// no more and records no event, although the status the worker reads still
// says the container runs (the kubelet writes it once the kill is over);
// and that a new container of the same name is probed again. Before the
// change every run failed against the container that was gone, each a
// Warning event.
func TestEndedReadinessRunsNoProbe(t *testing.T) {
	logger, ctx := ktesting.NewTestContext(t)
	// The events' references name the pod's kind.
	if err := v1.AddToScheme(legacyscheme.Scheme); err != nil {
		t.Fatal(err)
	}
	m := newTestManager()
	recorder := record.NewFakeRecorder(100)
	m.prober.recorder = recorder
	w := newTestWorker(m, readiness, v1.Probe{SuccessThreshold: 1, FailureThreshold: 3})
	m.statusManager.SetPodStatus(logger, w.pod, getTestRunningStatus())

	expectContinue(t, w, w.doProbe(ctx), "a ready container")
	expectResult(t, w, results.Success, "a ready container")

	m.readinessManager.End(w.containerID, w.pod)
	prober := &countingExecProber{}
	m.prober.exec = prober
	for i := 0; i < 5; i++ {
		expectContinue(t, w, w.doProbe(ctx), "ended")
		expectResult(t, w, results.Failure, "ended")
	}
	if runs := prober.runs.Load(); runs != 0 {
		t.Errorf("%d runs of an ended readiness probe, want none", runs)
	}
	if n := len(recorder.Events); n != 0 {
		t.Errorf("%d events after the readiness ended, want none: %q", n, <-recorder.Events)
	}

	// The sidecar is started again (a kubelet restart under an ordered
	// termination, or the pod's containers restarted in its sandbox): its
	// new container is probed.
	status := getTestRunningStatus()
	newID := kubecontainer.ContainerID{Type: "test", ID: "new"}
	status.ContainerStatuses[0].ContainerID = newID.String()
	m.statusManager.SetPodStatus(logger, w.pod, status)
	expectContinue(t, w, w.doProbe(ctx), "a new container")
	if runs := prober.runs.Load(); runs != 1 {
		t.Errorf("%d runs of the new container's probe, want 1", runs)
	}
	if m.readinessManager.Ended(testContainerID) {
		t.Error("the old container's end outlived its result")
	}
}
