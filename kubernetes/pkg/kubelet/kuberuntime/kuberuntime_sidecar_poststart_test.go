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

// sidecar-kubelet's tests of an annotated sidecar's postStart hook across a
// kubelet restart (the contract's "Ready"), in the harness of
// kuberuntime_sidecar_test.go.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	v1 "k8s.io/api/core/v1"
	internalapi "k8s.io/cri-api/pkg/apis"
)

// postStartHooks wraps the fake runtime to count the exec hooks run, and to
// fail them when fail is set.
type postStartHooks struct {
	internalapi.RuntimeService
	mu   sync.Mutex
	runs int
	fail bool
}

func (h *postStartHooks) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) ([]byte, []byte, error) {
	h.mu.Lock()
	h.runs++
	fail := h.fail
	h.mu.Unlock()
	if fail {
		return nil, nil, errors.New("hook failed")
	}
	return h.RuntimeService.ExecSync(ctx, id, cmd, timeout)
}

// TestSidecarPostStartHookRunsAgainAfterARestart: sidecar logs has no
// probe and a postStart hook; the kubelet restarts while the hook runs, so
// the hook's mark is still in the pod's directory. The restarted kubelet's
// first sync runs the hook again and starts the app only once it has
// returned; a run that fails kills the sidecar, and the app keeps waiting.
// Before the fix the running sidecar counted as ready: the app started, and
// the hook never completed.
func TestSidecarPostStartHookRunsAgainAfterARestart(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rerunFails bool
		want       []string
		wantHeld   map[string]string
	}{
		{name: "the run returns: the app starts", want: []string{"app/0/RUNNING", "logs/0/RUNNING", "proxy/0/RUNNING"}, wantHeld: map[string]string{}},
		{name: "the run fails: the sidecar is killed, the app waits", rerunFails: true,
			want:     []string{"logs/0/EXITED", "proxy/0/RUNNING"},
			wantHeld: map[string]string{"app": `waiting for sidecar "logs" to be ready`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := sidecarPod(v1.RestartPolicyNever)
			pod.Spec.Containers[2].Lifecycle = &v1.Lifecycle{PostStart: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"warm-up"}}}}
			s := newSidecarTest(t, pod, true)
			// The kubelet makes the pod's directory before its first sync.
			require.NoError(t, os.MkdirAll(s.m.runtimeHelper.GetPodDir(pod.UID), 0o750))
			hooks := &postStartHooks{RuntimeService: s.m.runtimeService}
			s.m.runtimeService = hooks
			s.sync()
			s.setReady("proxy", 0)
			s.sync()
			require.Equal(t, 1, hooks.runs, "logs started, its hook ran")
			mark := filepath.Join(s.m.runtimeHelper.GetPodDir(pod.UID), "sidecar-kubelet-poststart", s.containerID("logs", 0))
			require.NoFileExists(t, mark, "the hook returned")

			// The kubelet restarted while the hook ran: its mark remains.
			require.NoError(t, os.WriteFile(mark, nil, 0o640))
			hooks.fail = tc.rerunFails
			result := s.sync()
			require.Equal(t, 2, hooks.runs, "the restarted kubelet runs the hook again")
			requireDiff(t, tc.want, s.containers(), "containers")
			requireDiff(t, tc.wantHeld, heldFor(result), "held")
		})
	}
}
