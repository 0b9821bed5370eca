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

package measure

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecar-kubelet/sidecar-kubelet/bench/results"
)

const (
	idApp     = "9454481063232ffecfa5b8fa5611ea10c9f884fd198b2eb3f92aa92797df1d6b"
	idSidecar = "0c39f0dc8fa59c20087dd4729778da859e96e226d6af1b2b4e09d8b244c4d622"
	idSandbox = "bc6d84cf7956f5bbede7044929bd6990d642d4d94d2f849a6ccfc2fce183f192"
)

func unixNano(t *testing.T, s string) int64 {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at.UnixNano()
}

func TestParseStopLine(t *testing.T) {
	type parsed struct {
		ID       string
		At       int64
		Returned bool
		OK       bool
	}
	tests := []struct {
		name string
		line string
		want parsed
	}{
		{
			name: "a call",
			line: `time="2026-11-28T03:34:35.683008967Z" level=info msg="StopContainer for \"` + idApp + `\" with timeout 30 (s)"`,
			want: parsed{ID: idApp, At: unixNano(t, "2026-11-28T03:34:35.683008967Z"), OK: true},
		},
		{
			name: "its return",
			line: `time="2026-11-28T03:34:35.821383629Z" level=info msg="StopContainer for \"` + idApp + `\" returns successfully"`,
			want: parsed{ID: idApp, At: unixNano(t, "2026-11-28T03:34:35.821383629Z"), Returned: true, OK: true},
		},
		{
			name: "a failed stop is no stop",
			line: `time="2026-11-28T03:34:35.821383629Z" level=error msg="StopContainer for \"` + idApp + `\" failed" error="rpc error"`,
		},
		{
			name: "another call",
			line: `time="2026-11-28T03:34:35.821383629Z" level=info msg="RemoveContainer for \"` + idApp + `\" returns successfully"`,
		},
		{
			name: "no time",
			line: `level=info msg="StopContainer for \"` + idApp + `\" with timeout 30 (s)"`,
		},
		{
			name: "a bad time",
			line: `time="yesterday" level=info msg="StopContainer for \"` + idApp + `\" with timeout 30 (s)"`,
		},
		{
			name: "cut short",
			line: `time="2026-11-28T03:34:35.821383629Z" level=info msg="StopContainer for \"` + idApp[:10],
		},
		{name: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got parsed
			got.ID, got.At, got.Returned, got.OK = parseStopLine(tt.line)
			if !got.OK {
				got = parsed{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseStopLine (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCreateLine(t *testing.T) {
	type parsed struct {
		Key, ID  string
		At       int64
		Returned bool
		OK       bool
	}
	tests := []struct {
		name string
		line string
		want parsed
	}{
		{
			name: "a call",
			line: `time="2026-11-28T09:27:05.689891663Z" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for container name:\"app\""`,
			want: parsed{Key: idSandbox + ` name:\"app\"`, At: unixNano(t, "2026-11-28T09:27:05.689891663Z"), OK: true},
		},
		{
			name: "its return",
			line: `time="2026-11-28T09:27:05.713098762Z" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for name:\"app\" returns container id \"` + idApp + `\""`,
			want: parsed{Key: idSandbox + ` name:\"app\"`, ID: idApp, At: unixNano(t, "2026-11-28T09:27:05.713098762Z"), Returned: true, OK: true},
		},
		{
			name: "a second attempt has its own key",
			line: `time="2026-11-28T09:27:05.689891663Z" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for container name:\"app\" attempt:1"`,
			want: parsed{Key: idSandbox + ` name:\"app\" attempt:1`, At: unixNano(t, "2026-11-28T09:27:05.689891663Z"), OK: true},
		},
		{
			name: "a failed create is no return",
			line: `time="2026-11-28T09:27:05.713098762Z" level=error msg="CreateContainer within sandbox \"` + idSandbox + `\" for &ContainerMetadata{Name:app,} failed" error="rpc error"`,
		},
		{
			name: "a return without an id",
			line: `time="2026-11-28T09:27:05.713098762Z" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for name:\"app\" returns container id \"\""`,
		},
		{
			name: "no sandbox",
			line: `time="2026-11-28T09:27:05.689891663Z" level=info msg="CreateContainer within sandbox \"\" for container name:\"app\""`,
		},
		{
			name: "a bad time",
			line: `time="now" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for container name:\"app\""`,
		},
		{
			name: "cut short",
			line: `time="2026-11-28T09:27:05.689891663Z" level=info msg="CreateContainer within sandbox \"` + idSandbox[:8],
		},
		{
			name: "another call",
			line: `time="2026-11-28T09:27:05.607498676Z" level=info msg="StartContainer for \"` + idApp + `\""`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got parsed
			got.Key, got.ID, got.At, got.Returned, got.OK = parseCreateLine(tt.line)
			if !got.OK {
				got = parsed{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseCreateLine (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCRICallLog follows a log that containerd appends to while the run goes
// on: what was there before the run is not read, a line still being
// written waits, the first stop call and the first return of a container
// count, and a create pairs with its return by sandbox and container.
func TestCRICallLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "containerd.log")
	line := func(ts, id, what string) string {
		return `time="` + ts + `" level=info msg="StopContainer for \"` + id + `\" ` + what + `"` + "\n"
	}
	appendLog := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	create := func(ts, name string) string {
		return `time="` + ts + `" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for container name:\"` + name + `\""` + "\n"
	}
	created := func(ts, name, id string) string {
		return `time="` + ts + `" level=info msg="CreateContainer within sandbox \"` + idSandbox + `\" for name:\"` + name + `\" returns container id \"` + id + `\""` + "\n"
	}
	appendLog(line("2026-11-28T03:00:00Z", idApp, "with timeout 30 (s)") + // before the run
		create("2026-11-28T03:00:00Z", "sc1"))
	l, err := newCRICallLog(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := created("2026-11-28T03:34:30.05Z", "sc1", idSidecar) + // its call came before the run
		create("2026-11-28T03:34:31Z", "app") +
		created("2026-11-28T03:34:31.03Z", "app", idApp) +
		line("2026-11-28T03:34:35.5Z", idApp, "with timeout 30 (s)") +
		line("2026-11-28T03:34:35.7Z", idApp, "returns successfully") +
		line("2026-11-28T03:34:35.71Z", idSidecar, "with timeout 30 (s)")
	half := line("2026-11-28T03:34:35.9Z", idSidecar, "returns successfully")
	appendLog(whole + half[:20])
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	appendLog(half[20:] +
		line("2026-11-28T03:34:36Z", idApp, "with timeout 2 (s)") + // a second stop of the app
		line("2026-11-28T03:34:36.1Z", idApp, "returns successfully"))
	if err := l.catchUp(); err != nil {
		t.Fatal(err)
	}
	containers := []results.Container{{Name: "app"}, {Name: "sc1", Sidecar: true}, {Name: "unseen"}}
	applyCRICalls(containers, map[string]string{"app": idApp, "sc1": idSidecar}, l)
	want := []results.Container{
		{
			Name:         "app",
			CreateCalled: unixNano(t, "2026-11-28T03:34:31Z"), CreateReturned: unixNano(t, "2026-11-28T03:34:31.03Z"),
			StopCalled: unixNano(t, "2026-11-28T03:34:35.5Z"), StopReturned: unixNano(t, "2026-11-28T03:34:35.7Z"),
		},
		{Name: "sc1", Sidecar: true, StopCalled: unixNano(t, "2026-11-28T03:34:35.71Z"), StopReturned: unixNano(t, "2026-11-28T03:34:35.9Z")},
		{Name: "unseen"},
	}
	if diff := cmp.Diff(want, containers); diff != "" {
		t.Errorf("containers (-want +got):\n%s", diff)
	}
	if got := l.take([]string{idApp, idSidecar}); len(got) != 0 {
		t.Errorf("take after take: %v, want nothing (taken ones are forgotten)", got)
	}
}
