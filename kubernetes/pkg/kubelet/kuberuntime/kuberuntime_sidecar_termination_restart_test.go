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

// sidecar-kubelet's tests of contract rule 14: an annotated sidecar that exits
// during termination before its turn, while some app container still runs,
// is started again while time remains; on the testing/synctest clock.
import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	internalapi "k8s.io/cri-api/pkg/apis"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// sidecarExit is a container of the pod that exits by itself, with code 1,
// at a time after the kill began.
type sidecarExit struct {
	name    string
	attempt uint32
	at      time.Duration
}

func TestSidecarExitingBeforeItsTurnIsStartedAgain(t *testing.T) {
	forever := time.Hour
	testCases := []struct {
		name string
		// grace is the pod's grace period; stopDelay how long each
		// container takes to exit after SIGTERM (the others at once).
		grace     int64
		stopDelay map[string]time.Duration
		exits     []sidecarExit
		// restarts says, if the kill may start sidecars again at all.
		restarts bool
		// events: the kubelet follows the runtime's container stop events
		// and hands each exit to the kill at once.
		events bool
		// exitAfterFirstStatus names the containers (name/attempt) that
		// exit right after the first read of their status (the one after
		// their start), before the kill watches them for a stop event.
		exitAfterFirstStatus map[string]bool
		// want lists the containers after the kill as
		// name/attempt/started-at, the time since the kill began at which
		// the container started (- for the pod's first ones).
		want []string
		// wantStatuses lists the pod's statuses the kill wrote, each as the
		// exiting sidecar's latest container: name/restart count/state.
		wantStatuses []string
	}{
		{
			name:  "b exits while the apps drain: started again, stopped at its turn",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			exits:        []sidecarExit{{"b", 0, 2500 * time.Millisecond}},
			restarts:     true,
			want:         []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "b/1/3s", "n/0/-"},
			wantStatuses: []string{"b/1/running"},
		},
		{
			name:  "b crashes three times: the back-off applies",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			// The test's back-off starts at 1 second and doubles; the exits
			// are seen at the next check, a second after the last. The
			// first start waits for nothing; the second for 1 second from
			// b/1's exit at 5.5 s; the third for 2 seconds from b/2's at
			// 8.2 s.
			exits:    []sidecarExit{{"b", 0, 2500 * time.Millisecond}, {"b", 1, 5500 * time.Millisecond}, {"b", 2, 8200 * time.Millisecond}},
			restarts: true,
			want:     []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "b/1/3s", "b/2/6.5s", "b/3/10.2s", "n/0/-"},
			// An exit in its back-off is written when it is seen, and the
			// new container when it starts.
			wantStatuses: []string{"b/1/running", "b/1/exited", "b/2/running", "b/2/exited", "b/3/running"},
		},
		{
			name:  "b exits while the apps drain, the stop events followed: started again at once",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			exits:        []sidecarExit{{"b", 0, 2500 * time.Millisecond}},
			restarts:     true,
			events:       true,
			want:         []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "b/1/2.5s", "n/0/-"},
			wantStatuses: []string{"b/1/running"},
		},
		{
			name:  "b crashes three times, the stop events followed: only the back-off waits",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			// The second start waits 1 second from b/1's exit at 5.5 s;
			// the third 2 seconds from b/2's at 8.2 s.
			exits:        []sidecarExit{{"b", 0, 2500 * time.Millisecond}, {"b", 1, 5500 * time.Millisecond}, {"b", 2, 8200 * time.Millisecond}},
			restarts:     true,
			events:       true,
			want:         []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "b/1/2.5s", "b/2/6.5s", "b/3/10.2s", "n/0/-"},
			wantStatuses: []string{"b/1/running", "b/1/exited", "b/2/running", "b/2/exited", "b/3/running"},
		},
		{
			name:  "b exits again before the kill watches it, the stop events followed: its new container is checked at once",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			// b/1 runs after its start and exits before the kill watches
			// it, so no stop event tells of its exit: the check right after
			// the start finds it, and b/2 starts after the back-off's 1
			// second, not at the safety check 10 s later.
			exits:                []sidecarExit{{"b", 0, 2500 * time.Millisecond}},
			exitAfterFirstStatus: map[string]bool{"b/1": true},
			restarts:             true,
			events:               true,
			want:                 []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "b/1/2.5s", "b/2/3.5s", "n/0/-"},
			wantStatuses:         []string{"b/1/exited", "b/1/exited", "b/2/running"},
		},
		{
			name:  "a exits with less than 2 seconds left: it stays down",
			grace: 10, stopDelay: map[string]time.Duration{"app1": forever, "app2": forever},
			exits:        []sidecarExit{{"a", 0, 8500 * time.Millisecond}},
			restarts:     true,
			want:         []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "n/0/-"},
			wantStatuses: []string{"a/0/exited"},
		},
		{
			name: "a exits once the apps have stopped, while b stops: its turn came",
			// The apps stop at 2 s; b takes 5 seconds after its SIGTERM.
			grace: 30, stopDelay: map[string]time.Duration{"app1": 2 * time.Second, "app2": 2 * time.Second, "b": 5 * time.Second},
			exits:    []sidecarExit{{"a", 0, 4 * time.Second}},
			restarts: true,
			want:     []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "n/0/-"},
		},
		{
			name:  "the native sidecar exits while the apps drain: upstream leaves it down",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			exits:    []sidecarExit{{"n", 0, 2500 * time.Millisecond}},
			restarts: true,
			want:     []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "n/0/-"},
		},
		{
			name:  "a kill that may not start containers leaves b down",
			grace: 30, stopDelay: map[string]time.Duration{"app1": 20 * time.Second, "app2": 20 * time.Second},
			exits: []sidecarExit{{"b", 0, 2500 * time.Millisecond}},
			want:  []string{"a/0/-", "app1/0/-", "app2/0/-", "b/0/-", "n/0/-"},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := newOrderedKillTest(t, tc.grace)
				k.recorder.stopDelay = tc.stopDelay
				k.recorder.exitAfterFirstStatus = tc.exitAfterFirstStatus
				start := time.Now()
				k.s.m.SidecarStopEventsFollowed(tc.events)
				for _, e := range tc.exits {
					go func() {
						time.Sleep(e.at)
						k.s.exit(e.name, e.attempt, 1)
						if tc.events {
							// As the kubelet does on the runtime's stop event.
							k.s.m.SidecarContainerStopped(k.s.containerID(e.name, e.attempt))
						}
					}()
				}
				var ctx context.Context = k.s.tCtx
				var statuses []string
				if tc.restarts {
					ctx = WithSidecarRestarts(ctx, nil, k.s.backOff, func(s *kubecontainer.PodStatus) {
						c := s.FindContainerStatusByName(tc.exits[0].name)
						statuses = append(statuses, fmt.Sprintf("%s/%d/%s", c.Name, c.RestartCount, c.State))
					})
				}
				require.NoError(t, k.s.m.KillPod(ctx, k.s.pod, *k.running, nil))
				synctest.Wait()
				requireDiff(t, tc.wantStatuses, statuses, "statuses written during the kill")

				var got, running []string
				k.s.runtime.Lock()
				for _, c := range k.s.runtime.Containers {
					if c.State == runtimeapi.ContainerState_CONTAINER_RUNNING {
						running = append(running, c.Metadata.Name)
					}
					at := "-"
					if started := time.Unix(0, c.StartedAt); started.After(start) {
						at = started.Sub(start).String()
					}
					got = append(got, fmt.Sprintf("%s/%d/%s", c.Metadata.Name, c.Metadata.Attempt, at))
				}
				k.s.runtime.Unlock()
				slices.Sort(got)
				requireDiff(t, tc.want, got, "containers after the kill")

				// The kill stops a sidecar's last container, not the one
				// that exited.
				require.Empty(t, running, "containers still running after the kill")
				for _, entry := range k.log() {
					require.False(t, strings.HasPrefix(entry, "cancelled"), "no stop is cancelled: %s", entry)
				}
				if took := time.Since(start); took > time.Duration(tc.grace+2)*time.Second {
					t.Errorf("the pod took %s to stop, more than its grace period plus 2 seconds", took)
				}
			})
		})
	}
}

// statusCounter counts the runtime's ContainerStatus calls per container.
type statusCounter struct {
	internalapi.RuntimeService
	mu    sync.Mutex
	calls map[string]int
}

func (r *statusCounter) ContainerStatus(ctx context.Context, id string, verbose bool) (*runtimeapi.ContainerStatusResponse, error) {
	r.mu.Lock()
	r.calls[id]++
	r.mu.Unlock()
	return r.RuntimeService.ContainerStatus(ctx, id, verbose)
}

// TestSidecarsWaitingForTheirTurnAreCheckedSeldomWithStopEvents checks how
// often the kill asks the runtime whether the annotated sidecars it keeps
// up have exited, while the apps drain for 15.5 seconds and nothing exits:
// every second without the runtime's stop events, as upstream's PLEG
// relists; every 10 seconds while the kubelet follows them, since an exit
// wakes the kill at once.
func TestSidecarsWaitingForTheirTurnAreCheckedSeldomWithStopEvents(t *testing.T) {
	testCases := []struct {
		name   string
		events bool
		// want is the ContainerStatus calls per sidecar: at 0 s, then at
		// each period until the apps stop at 15.5 s.
		want map[string]int
	}{
		{name: "no stop events: every second", want: map[string]int{"a": 16, "b": 16}},
		{name: "stop events followed: every 10 seconds", events: true, want: map[string]int{"a": 2, "b": 2}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := newOrderedKillTest(t, 30)
				k.recorder.stopDelay = map[string]time.Duration{"app1": 15500 * time.Millisecond, "app2": 15500 * time.Millisecond}
				counter := &statusCounter{RuntimeService: k.s.m.runtimeService, calls: map[string]int{}}
				k.s.m.runtimeService = counter
				k.s.m.SidecarStopEventsFollowed(tc.events)
				ctx := WithSidecarRestarts(k.s.tCtx, nil, k.s.backOff, nil)
				require.NoError(t, k.s.m.KillPod(ctx, k.s.pod, *k.running, nil))
				synctest.Wait()
				got := map[string]int{}
				for _, name := range []string{"a", "b"} {
					got[name] = counter.calls[k.s.containerID(name, 0)]
				}
				requireDiff(t, tc.want, got, "ContainerStatus calls per kept-up sidecar")
			})
		})
	}
}

func TestSidecarStopEventsWakeOnlyTheirContainersWaiters(t *testing.T) {
	var s sidecarStopEvents
	a, unwatchA := s.watch("a")
	b, unwatchB := s.watch("b")
	s.stopped("a")
	s.stopped("a") // a second event must not block
	s.stopped("unknown")
	select {
	case <-a:
	default:
		t.Error("the waiter of a was not woken by a's stop")
	}
	select {
	case <-b:
		t.Error("the waiter of b was woken by another container's stop")
	default:
	}
	unwatchA()
	unwatchB()
	if len(s.waiting) != 0 {
		t.Errorf("waiters left after unwatch: %v", s.waiting)
	}
	if got := s.checkPeriod(); got != sidecarExitCheckPeriod {
		t.Errorf("check period without events = %s, want %s", got, sidecarExitCheckPeriod)
	}
	s.followed.Store(true)
	if got := s.checkPeriod(); got != sidecarExitSafetyPeriod {
		t.Errorf("check period with events = %s, want %s", got, sidecarExitSafetyPeriod)
	}
}
