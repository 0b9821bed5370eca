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

package podorder

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// startup is the log timeline of a pod whose annotated sidecars proxy and
// logger started in order, each once the one before was ready, then app.
var startup = Merge(
	ParseLogs("proxy", strings.Join([]string{
		line("0s", "proxy", "started"), line("1s", "proxy", "ready"), line("1.1s", "proxy", "ready-served"),
		line("10s", "prestop", "hook-start"), line("11s", "prestop", "hook-end"),
		line("11.1s", "proxy", "sigterm"), line("11.2s", "proxy", "exiting"),
	}, "\n")),
	ParseLogs("logger", strings.Join([]string{
		line("1.2s", "logger", "started"), line("2s", "logger", "ready"), line("2.1s", "logger", "ready-served"),
		line("9s", "logger", "sigterm"), line("9.5s", "logger", "exiting"),
	}, "\n")),
	ParseLogs("app", strings.Join([]string{
		line("2.2s", "app", "started"), line("8s", "app", "sigterm"), line("8.5s", "app", "exiting"),
	}, "\n")),
)

// terminated is a pod whose app and logger exited within the same second,
// then proxy a second later.
func terminated() *v1.Pod {
	term := func(name, started, finished string) v1.ContainerStatus {
		return v1.ContainerStatus{Name: name, State: v1.ContainerState{Terminated: &v1.ContainerStateTerminated{
			StartedAt: metav1.NewTime(at(started)), FinishedAt: metav1.NewTime(at(finished))}}}
	}
	return &v1.Pod{Status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{
		term("proxy", "0s", "11s"), term("logger", "1s", "9s"), term("app", "2s", "9s"),
	}}}
}

// TestMatchers: each matcher on timelines it holds and fails on. The
// message is the failure message when the matcher fails, and the negated
// one when it holds: both name the entries and their times, then show the
// timeline.
func TestMatchers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		matcher types.GomegaMatcher
		actual  any
		want    bool
		// wantMsg is the message up to the timeline; wantErr, a part of
		// the error.
		wantMsg string
		wantErr string
	}{
		{
			name:    "StartInOrder holds",
			matcher: StartInOrder("proxy", "logger", "app"),
			actual:  startup,
			want:    true,
			wantMsg: "want the containers not to start in the order proxy, logger, app, but:\n" +
				`  proxy first "started" (12:00:00.000000) came 1.2s before logger first "started" (12:00:01.200000)` + "\n" +
				`  logger first "started" (12:00:01.200000) came 1s before app first "started" (12:00:02.200000)`,
		},
		{
			name:    "StartInOrder fails, naming the containers and their times",
			matcher: StartInOrder("proxy", "app", "logger"),
			actual:  startup,
			wantMsg: "want the containers to start in the order proxy, app, logger:\n" +
				`  want app first "started" (12:00:02.200000) at or before logger first "started" (12:00:01.200000), but it came 1s later`,
		},
		{
			name:    "StartInOrder: a container that never started is an error",
			matcher: StartInOrder("proxy", "worker"),
			actual:  startup,
			wantErr: `no worker first "started" in the timeline`,
		},
		{
			name:    "StopInOrder holds: the last exit of each",
			matcher: StopInOrder("app", "logger", "proxy"),
			actual:  startup,
			want:    true,
			wantMsg: "want the containers not to stop in the order app, logger, proxy, but:\n" +
				`  app last "exiting" (12:00:08.500000) came 1s before logger last "exiting" (12:00:09.500000)` + "\n" +
				`  logger last "exiting" (12:00:09.500000) came 1.7s before proxy last "exiting" (12:00:11.200000)`,
		},
		{
			name:    "StopInReverseOrder holds",
			matcher: StopInReverseOrder("proxy", "logger", "app"),
			actual:  startup,
			want:    true,
			wantMsg: "want the containers not to stop in the reverse of the order proxy, logger, app, but:\n" +
				`  app last "exiting" (12:00:08.500000) came 1s before logger last "exiting" (12:00:09.500000)` + "\n" +
				`  logger last "exiting" (12:00:09.500000) came 1.7s before proxy last "exiting" (12:00:11.200000)`,
		},
		{
			name:    "StopInReverseOrder fails",
			matcher: StopInReverseOrder("logger", "proxy"),
			actual:  startup,
			wantMsg: "want the containers to stop in the reverse of the order logger, proxy:\n" +
				`  want proxy last "exiting" (12:00:11.200000) at or before logger last "exiting" (12:00:09.500000), but it came 1.7s later`,
		},
		{
			name:    "StopInStages holds",
			matcher: StopInStages([]string{"app"}, []string{"logger"}, []string{"proxy"}),
			actual:  startup,
			want:    true,
			wantMsg: "want the containers not to stop in the stages [app], [logger], [proxy], but:\n" +
				`  app last "exiting" (12:00:08.500000) came 1s before logger last "exiting" (12:00:09.500000)` + "\n" +
				`  logger last "exiting" (12:00:09.500000) came 1.7s before proxy last "exiting" (12:00:11.200000)`,
		},
		{
			name:    "StopInStages of a pod: the same second is not an order, the next one is",
			matcher: StopInStages([]string{"app", "logger"}, []string{"proxy"}),
			actual:  terminated(),
			want:    true,
			wantMsg: "want the containers not to stop in the stages [app logger], [proxy], but:\n" +
				`  app last "exiting" (12:00:09, container status) came before proxy last "exiting" (12:00:11, container status)` + "\n" +
				`  logger last "exiting" (12:00:09, container status) came before proxy last "exiting" (12:00:11, container status)`,
		},
		{
			name:    "StopInStages fails",
			matcher: StopInStages([]string{"app", "proxy"}, []string{"logger"}),
			actual:  startup,
			wantMsg: "want the containers to stop in the stages [app proxy], [logger]:\n" +
				`  want proxy last "exiting" (12:00:11.200000) at or before logger last "exiting" (12:00:09.500000), but it came 1.7s later`,
		},
		{
			name:    "StopInOrder of a pod: two exits in the same second cannot tell",
			matcher: StopInOrder("app", "logger", "proxy"),
			actual:  terminated(),
			wantMsg: "want the containers to stop in the order app, logger, proxy:\n" +
				`  want app last "exiting" (12:00:09, container status) at or before logger last "exiting" (12:00:09, container status), but the container status's time, to the second, cannot tell`,
		},
		{
			name:    "StartInOrder of a v1.Pod value",
			matcher: StartInOrder("proxy", "logger", "app"),
			actual:  *terminated(),
			want:    true,
			wantMsg: "want the containers not to start in the order proxy, logger, app, but:\n" +
				`  proxy first "started" (12:00:00, container status) came before logger first "started" (12:00:01, container status)` + "\n" +
				`  logger first "started" (12:00:01, container status) came before app first "started" (12:00:02, container status)`,
		},
		{
			name:    "StartAfterReady holds",
			matcher: StartAfterReady("app", "proxy", "logger"),
			actual:  startup,
			want:    true,
			wantMsg: "want app not to start after proxy, logger turned ready, but:\n" +
				`  proxy first "ready-served" (12:00:01.100000) came 1.1s before app first "started" (12:00:02.200000)` + "\n" +
				`  logger first "ready-served" (12:00:02.100000) came 100ms before app first "started" (12:00:02.200000)`,
		},
		{
			name:    "StartAfterReady fails",
			matcher: StartAfterReady("proxy", "logger"),
			actual:  startup,
			wantMsg: "want proxy to start after logger turned ready:\n" +
				`  want logger first "ready-served" (12:00:02.100000) at or before proxy first "started" (12:00:00.000000), but it came 2.1s later`,
		},
		{
			name:    "StartAfterReady: a sidecar never seen ready is an error",
			matcher: StartAfterReady("logger", "proxy", "app"),
			actual:  startup,
			wantErr: `no app first "ready-served" in the timeline` + "\ntimeline seen:\n",
		},
		{
			name:    "StartAfterReady of a pod: the API has no readiness times",
			matcher: StartAfterReady("app", "proxy"),
			actual:  terminated(),
			wantErr: `no proxy first "ready-served" in the timeline (only the test server's lines give "ready-served", and the timeline has none of proxy`,
		},
		{
			name:    "HappenInOrder holds across containers and hooks",
			matcher: HappenInOrder(First("app", "exiting"), First("logger", "sigterm"), First("proxy", HookStart("prestop")), First("proxy", HookEnd("prestop"))),
			actual:  startup,
			want:    true,
			wantMsg: `want app first "exiting", logger first "sigterm", proxy first "prestop:hook-start", proxy first "prestop:hook-end" not to happen in this order, but:` + "\n" +
				`  app first "exiting" (12:00:08.500000) came 500ms before logger first "sigterm" (12:00:09.000000)` + "\n" +
				`  logger first "sigterm" (12:00:09.000000) came 1s before proxy first "prestop:hook-start" (12:00:10.000000)` + "\n" +
				`  proxy first "prestop:hook-start" (12:00:10.000000) came 1s before proxy first "prestop:hook-end" (12:00:11.000000)`,
		},
		{
			name:    "HappenInOrder holds at the same instant",
			matcher: HappenInOrder(First("app", "started"), First("app", "started")),
			actual:  startup,
			want:    true,
			wantMsg: `want app first "started", app first "started" not to happen in this order, but:` + "\n" +
				`  app first "started" (12:00:02.200000) came at the same instant as app first "started" (12:00:02.200000)`,
		},
		{
			name:    "HappenInOrder fails",
			matcher: HappenInOrder(First("proxy", "sigterm"), First("proxy", HookEnd("prestop"))),
			actual:  startup,
			wantMsg: `want proxy first "sigterm", proxy first "prestop:hook-end" to happen in this order:` + "\n" +
				`  want proxy first "sigterm" (12:00:11.100000) at or before proxy first "prestop:hook-end" (12:00:11.000000), but it came 100ms later`,
		},
		{
			name:    "HappenBefore: the same instant is not before",
			matcher: HappenBefore(First("app", "started"), First("app", "started")),
			actual:  startup,
			wantMsg: `want app first "started" to happen before app first "started":` + "\n" +
				`  want app first "started" (12:00:02.200000) before app first "started" (12:00:02.200000), but they came at the same instant`,
		},
		{
			name:    "HappenBefore holds",
			matcher: HappenBefore(First("proxy", "started"), First("app", "started")),
			actual:  startup,
			want:    true,
			wantMsg: `want proxy first "started" not to happen before app first "started", but:` + "\n" +
				`  proxy first "started" (12:00:00.000000) came 2.2s before app first "started" (12:00:02.200000)`,
		},
		{
			name:    "HappenBefore: a test server line within a status's second cannot tell",
			matcher: HappenBefore(First("app", "started"), First("proxy", "exiting")),
			actual: Merge(ParseLogs("app", line("9.5s", "app", "started")),
				Timeline{{At: at("9s"), Container: "proxy", Label: EventExiting, Source: SourceStatus, Line: "state.terminated.finishedAt", Resolution: time.Second}}),
			wantMsg: `want app first "started" to happen before proxy first "exiting":` + "\n" +
				`  want app first "started" (12:00:09.500000) before proxy first "exiting" (12:00:09, container status), but the container status's time, to the second, cannot tell`,
		},
		{
			name:    "not a timeline",
			matcher: StartInOrder("a"),
			actual:  "a",
			wantErr: "want a podorder.Timeline, *v1.Pod or v1.Pod, got string",
		},
		{
			name:    "a nil pod",
			matcher: StartInOrder("a"),
			actual:  (*v1.Pod)(nil),
			wantErr: "nil *v1.Pod",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.matcher.Match(tc.actual)
			if tc.wantErr != "" {
				// A matcher that needs a missing entry errs, so that
				// Eventually tries again.
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Match error %q, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Match error: %v", err)
			}
			if got != tc.want {
				t.Fatalf("Match = %v, want %v; failure message:\n%s", got, tc.want, tc.matcher.FailureMessage(tc.actual))
			}
			msg := tc.matcher.FailureMessage(tc.actual)
			if got {
				msg = tc.matcher.NegatedFailureMessage(tc.actual)
			}
			tl, _ := asTimeline(tc.actual)
			if diff := cmp.Diff(tc.wantMsg+"\ntimeline seen:\n"+tl.String(), msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMatchersWithGomega: the matchers in assertions, with a description,
// and in Eventually, which tries again while an event is missing.
func TestMatchersWithGomega(t *testing.T) {
	var failure string
	g := gomega.NewGomega(func(message string, _ ...int) { failure = message })
	g.Expect(startup).To(StartInOrder("app", "proxy"), "contract rule %s:", "2")
	if !strings.HasPrefix(failure, "contract rule 2:\n") || !strings.Contains(failure, `want app first "started"`) {
		t.Errorf("failure message:\n%s", failure)
	}

	failure = ""
	polls := 0
	g.Eventually(func() Timeline {
		polls++
		if polls < 3 {
			return startup[:1] // only proxy's start yet
		}
		return startup
	}).WithTimeout(5 * time.Second).WithPolling(time.Millisecond).Should(StartAfterReady("app", "proxy"))
	if failure != "" || polls != 3 {
		t.Errorf("Eventually polled %d times, failure %q; want 3 polls and no failure", polls, failure)
	}
}
