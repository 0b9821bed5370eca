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

// sidecar-kubelet's tests of the events of sidecar ordering, in the harness
// of kuberuntime_sidecar_test.go.

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
)

// reportedWait is how long the apps waited, as the SidecarsReady event says.
var reportedWait = regexp.MustCompile(`after [^;]+;`)

// withoutWaits hides the waits that SidecarsReady events report: real time
// in this harness (the e2e suite checks the value against a timeline).
func withoutWaits(events []string) []string {
	for i, e := range events {
		events[i] = reportedWait.ReplaceAllString(e, "after <wait>;")
	}
	return events
}

// events drains the recorded events and returns those of sidecar ordering.
func (s *sidecarTest) events() []string {
	var got []string
	for {
		select {
		case e := <-s.recorder.Events:
			for _, reason := range []string{"WaitingForSidecars", "SidecarsReady", "TerminatingSidecars", "InvalidSidecarAnnotation"} {
				if strings.Contains(e, " "+reason+" ") {
					got = append(got, e)
				}
			}
		default:
			return got
		}
	}
}

// trimWaited drops what SidecarsReady says of the time waited, which the
// test does not control.
func trimWaited(events []string) []string {
	for i, e := range events {
		if before, after, ok := strings.Cut(e, " are ready"); ok {
			if _, rest, ok := strings.Cut(after, ";"); ok {
				events[i] = before + " are ready;" + rest
			}
		}
	}
	return events
}

// TestNewSandboxRecordsTheStartEventsAgain checks that the start of a pod
// in a new sandbox is a new occurrence of its start events (the contract's
// Observability): WaitingForSidecars and SidecarsReady are recorded again,
// and with SidecarsReady the apps' wait goes to the metric. Before the fix
// they were remembered from the first sandbox, since a sandbox change
// kills the pod without going through KillPod.
func TestNewSandboxRecordsTheStartEventsAgain(t *testing.T) {
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyAlways), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{
		"Normal WaitingForSidecars Waiting for sidecar proxy to be ready before starting app",
		"Normal SidecarsReady Sidecars proxy, logs are ready; starting the app containers",
	}, trimWaited(s.events()), "the first sandbox's start events")

	s.sandboxDied(137)
	s.sync()
	s.setReady("proxy", 1)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/EXITED", "app/1/RUNNING", "logs/0/EXITED", "logs/1/RUNNING", "proxy/0/EXITED", "proxy/1/RUNNING"}, s.containers(), "started again in order")
	requireDiff(t, []string{
		"Normal WaitingForSidecars Waiting for sidecar proxy to be ready before starting app",
		"Normal SidecarsReady Sidecars proxy, logs are ready; starting the app containers",
	}, trimWaited(s.events()), "the new sandbox's start events")
}

// TestInPlaceRestartRecordsTheStartEventsAgain checks the same for a pod
// whose containers start again in its sandbox: KEP-5532's
// RestartAllContainers (beta, on by default from v1.36) removes every
// container and keeps the sandbox, so the sandbox's change does not say
// that the start is a new one. The sync that removes them does. Before the
// fix the second start recorded no event.
func TestInPlaceRestartRecordsTheStartEventsAgain(t *testing.T) {
	featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
		features.ContainerRestartRules: true, features.NodeDeclaredFeatures: true, features.RestartAllContainersOnContainerExits: true})
	s := newSidecarTest(t, sidecarPod(v1.RestartPolicyAlways), true)
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started in order")
	s.events()

	// The pod is marked for RestartAllContainers: its sync removes every
	// container, and the next ones start them again, in order.
	result := s.m.SyncPod(s.tCtx, s.pod, s.status(), nil, s.backOff, true)
	require.NoError(t, result.Error())
	requireDiff(t, []string(nil), s.containers(), "every container removed, the sandbox kept")
	s.sync()
	s.setReady("proxy", 0)
	s.sync()
	s.sync()
	requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "started again in order")
	requireDiff(t, []string{
		"Normal WaitingForSidecars Waiting for sidecar proxy to be ready before starting app",
		"Normal SidecarsReady Sidecars proxy, logs are ready; starting the app containers",
	}, trimWaited(s.events()), "the second start's events")
}

// TestNativeSidecarGateEvents checks that native sidecars under wait-ready
// record the start events too (the contract's Observability), which the KEP draft
// names as the signals of the gate in use: WaitingForSidecars while a
// gating native sidecar holds the next container, SidecarsReady when the
// last one is ready; once each, again in a new sandbox, and none for a
// native sidecar that does not gate.
func TestNativeSidecarGateEvents(t *testing.T) {
	t.Run("named form: the named sidecar's wait, and its readiness", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("logs"), true)
		s.sync()
		s.sync()
		requireDiff(t, []string{"logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "proxy does not gate: logs starts")
		requireDiff(t, []string(nil), s.events(), "proxy does not gate: no event")
		s.sync()
		s.sync()
		requireDiff(t, []string{
			"Normal WaitingForSidecars Waiting for sidecar logs to be ready before starting app",
		}, s.events(), "logs holds the app: one event for two syncs")
		s.setReady("logs", 0)
		s.sync()
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "logs ready: the app starts")
		requireDiff(t, []string{
			"Normal SidecarsReady Sidecars logs are ready; starting app",
		}, trimWaited(s.events()), "one SidecarsReady")

		s.sandboxDied(137)
		s.sync()
		s.sync()
		s.sync()
		requireDiff(t, []string{"app/0/EXITED", "logs/0/RUNNING", "proxy/1/RUNNING"}, s.containers(), "the new sandbox: the app waits for logs")
		s.setReady("logs", 0)
		s.sync()
		requireDiff(t, []string{"app/0/EXITED", "app/1/RUNNING", "logs/0/RUNNING", "proxy/1/RUNNING"}, s.containers(), "logs ready: the app starts again")
		requireDiff(t, []string{
			"Normal WaitingForSidecars Waiting for sidecar logs to be ready before starting app",
			"Normal SidecarsReady Sidecars logs are ready; starting app",
		}, trimWaited(s.events()), "the new sandbox's start events")
	})
	t.Run("wait-ready true: each sidecar's wait, one event; SidecarsReady names both", func(t *testing.T) {
		s := newSidecarTest(t, twoNativeSidecarsPod("true"), true)
		s.sync()
		s.sync()
		s.setReady("proxy", 0)
		s.sync()
		s.sync()
		s.setReady("logs", 0)
		s.sync()
		requireDiff(t, []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, s.containers(), "both ready: the app starts")
		requireDiff(t, []string{
			"Normal WaitingForSidecars Waiting for sidecar proxy to be ready before starting logs",
			"Normal SidecarsReady Sidecars proxy, logs are ready; starting app",
		}, trimWaited(s.events()), "the first wait, and the release of the app")
	})
	t.Run("no annotation: no event, as upstream", func(t *testing.T) {
		s := newSidecarTest(t, nativeSidecarPod(false), true)
		s.sync()
		s.sync()
		requireDiff(t, []string(nil), s.events(), "no event")
	})
}
