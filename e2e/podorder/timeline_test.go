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
)

// at is 12:00:00 plus the offset, in UTC.
func at(offset string) time.Time {
	d, err := time.ParseDuration(offset)
	if err != nil {
		panic(err)
	}
	return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC).Add(d)
}

// line is a test server line, as e2e/images/testserver's Line writes it.
func line(offset, name, event string, kv ...string) string {
	s := at(offset).Format(time.RFC3339Nano) + " name=" + name + " event=" + event
	for i := 0; i+1 < len(kv); i += 2 {
		s += " " + kv[i] + "=" + kv[i+1]
	}
	return s
}

func TestParseLogs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		container string
		logs      string
		want      Timeline
	}{
		{
			name: "empty",
			logs: "",
		},
		{
			name:      "server lines, hook lines labelled by the hook's name, other lines skipped",
			container: "proxy",
			logs: strings.Join([]string{
				line("0s", "proxy", "started", "pid", "1", "port", "8080"),
				"some other output",
				line("1.5s", "proxy", "ready"),
				"2026-11-24T12:00:02Z name=proxy", // too short
				"yesterday name=proxy event=sigterm",
				line("2.25s", "prestop", "hook-start", "sleep", "1s"),
				line("3.25s", "prestop", "hook-end"),
				line("4s", "proxy", "exiting", "code", "0"),
				"",
			}, "\n"),
			want: Timeline{
				{At: at("0s"), Container: "proxy", Label: EventStarted, Source: SourceTestServer, Line: line("0s", "proxy", "started", "pid", "1", "port", "8080")},
				{At: at("1.5s"), Container: "proxy", Label: EventReady, Source: SourceTestServer, Line: line("1.5s", "proxy", "ready")},
				{At: at("2.25s"), Container: "proxy", Label: HookStart("prestop"), Source: SourceTestServer, Line: line("2.25s", "prestop", "hook-start", "sleep", "1s")},
				{At: at("3.25s"), Container: "proxy", Label: HookEnd("prestop"), Source: SourceTestServer, Line: line("3.25s", "prestop", "hook-end")},
				{At: at("4s"), Container: "proxy", Label: EventExiting, Source: SourceTestServer, Line: line("4s", "proxy", "exiting", "code", "0")},
			},
		},
		{
			// A hook writes to the container's stdout: its line may come
			// before an earlier line of the server.
			name:      "sorted by time",
			container: "app",
			logs:      line("2s", "app", "exiting") + "\n" + line("1s", "prestop", "hook-end") + "\n",
			want: Timeline{
				{At: at("1s"), Container: "app", Label: "prestop:hook-end", Source: SourceTestServer, Line: line("1s", "prestop", "hook-end")},
				{At: at("2s"), Container: "app", Label: "exiting", Source: SourceTestServer, Line: line("2s", "app", "exiting")},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParseLogs(tc.container, tc.logs)); diff != "" {
				t.Errorf("ParseLogs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimelinePoints(t *testing.T) {
	tl := Merge(
		ParseLogs("proxy", line("0s", "proxy", "started")+"\n"+line("3s", "proxy", "started")),
		ParseLogs("app", line("1s", "app", "started")),
	)
	for _, tc := range []struct {
		point  Point
		want   time.Time
		wantOK bool
	}{
		{First("proxy", EventStarted), at("0s"), true},
		{Last("proxy", EventStarted), at("3s"), true},
		{First("app", EventStarted), at("1s"), true},
		{Last("app", EventStarted), at("1s"), true},
		{First("app", EventExiting), time.Time{}, false},
		{First("nosuch", EventStarted), time.Time{}, false},
	} {
		t.Run(tc.point.String(), func(t *testing.T) {
			got, ok := tl.At(tc.point)
			if !got.Equal(tc.want) || ok != tc.wantOK {
				t.Errorf("At(%s) = %v, %v; want %v, %v", tc.point, got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if n := len(tl.All("proxy", EventStarted)); n != 2 {
		t.Errorf("All(proxy, started): %d events, want 2", n)
	}
	if got, want := First("app", "prestop:hook-end").String(), `app first "prestop:hook-end"`; got != want {
		t.Errorf("Point.String() = %q, want %q", got, want)
	}
}

func TestNotAfterAndBefore(t *testing.T) {
	exact := func(offset string) TimelineEntry { return TimelineEntry{At: at(offset)} }
	second := func(offset string) TimelineEntry { return TimelineEntry{At: at(offset), Resolution: time.Second} }
	for _, tc := range []struct {
		name                string
		a, b                TimelineEntry
		notAfter, beforeToo bool
	}{
		{"exact, earlier", exact("1s"), exact("1.001s"), true, true},
		{"exact, the same instant", exact("1s"), exact("1s"), true, false},
		{"exact, later", exact("1.5s"), exact("1s"), false, false},
		{"seconds, an earlier second", second("1s"), second("2s"), true, true},
		{"seconds, the same second cannot tell", second("1s"), second("1s"), false, false},
		{"seconds, later", second("2s"), second("1s"), false, false},
		// a's second is [1 s, 2 s): before an exact 2 s, not before 1.5 s.
		{"a to the second, b exact, after a's second", second("1s"), exact("2s"), true, true},
		{"a to the second, b exact, within a's second", second("1s"), exact("1.5s"), false, false},
		{"a exact, b to the second, before b's second", exact("0.5s"), second("1s"), true, true},
		{"a exact, b to the second, within b's second", exact("1.5s"), second("1s"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NotAfter(tc.a, tc.b); got != tc.notAfter {
				t.Errorf("NotAfter = %v, want %v", got, tc.notAfter)
			}
			if got := Before(tc.a, tc.b); got != tc.beforeToo {
				t.Errorf("Before = %v, want %v", got, tc.beforeToo)
			}
		})
	}
}

func TestTimelineString(t *testing.T) {
	tl := Merge(
		ParseLogs("proxy", line("0.123456789s", "proxy", "started")),
		Timeline{{At: at("2s"), Container: "app", Label: EventExiting, Source: SourceStatus, Line: "state.terminated.finishedAt", Resolution: time.Second}},
		Timeline{{At: at("3.000001s"), Container: WholePod, Label: KubeletEvent("Killing"), Source: SourceKubeletEvent, Line: "metadata.name: Stopping container app"}},
	)
	want := "12:00:00.123456  proxy      started\n" +
		"12:00:02         app        exiting (state.terminated.finishedAt)\n" +
		"12:00:03.000001  (pod)      kubelet:Killing (metadata.name: Stopping container app)\n"
	if diff := cmp.Diff(want, tl.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}

func TestMissingError(t *testing.T) {
	fromStatus := Timeline{{At: at("0s"), Container: "proxy", Label: EventStarted, Source: SourceStatus, Resolution: time.Second}}
	_, err := fromStatus.MustEntry(First("proxy", EventReadyServed))
	if err == nil || !strings.Contains(err.Error(), `no proxy first "ready-served" in the timeline (only the test server's lines give "ready-served"`) {
		t.Errorf("MustEntry of a status timeline: %v", err)
	}
	_, err = fromStatus.MustEntry(First("proxy", KubeletEvent("Killing")))
	if err == nil || strings.Contains(err.Error(), "only the test server") {
		t.Errorf("MustEntry of an entry the API gives: %v", err)
	}
	fromLogs := ParseLogs("proxy", line("0s", "proxy", "started"))
	_, err = fromLogs.MustEntry(First("proxy", EventReadyServed))
	if err == nil || strings.Contains(err.Error(), "only the test server") || !strings.Contains(err.Error(), "timeline seen:\n12:00:00.000000  proxy") {
		t.Errorf("MustEntry of a log timeline: %v", err)
	}
	if _, err := fromLogs.MustEntry(First("proxy", EventStarted)); err != nil {
		t.Errorf("MustEntry of an entry the timeline has: %v", err)
	}
}
