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

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the tests run this very binary as the testserver.
func TestMain(m *testing.M) {
	if os.Getenv("TESTSERVER_BE_MAIN") == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "defaults", env: map[string]string{"HOSTNAME": "pod"}, want: Config{Name: "pod", Port: 8080}},
		{
			name: "everything",
			env: map[string]string{
				"NAME": "proxy", "PORT": "9000", "READY_AFTER": "2s", "DRAIN": "1500ms",
				"TERM_EXIT_CODE": "143", "IGNORE_SIGTERM": "true", "EXIT_AFTER": "3s", "EXIT_CODE": "1",
				"NOT_READY_AFTER": "4s", "UNHEALTHY_AFTER": "5s", "EXIT_WHEN_FILE": "/shared/stop",
				"TOUCH_ON_EXIT": "/shared/done", "READY_FLAP": "true", "REMOVE_SEEN_FILE": "true",
				"FILL_FILE": "/fill", "FILL_MIB": "20", "FILL_AFTER": "6s", "UNREADY_ON_SIGTERM": "true",
			},
			want: Config{
				Name: "proxy", Port: 9000, ReadyAfter: 2 * time.Second, Drain: 1500 * time.Millisecond,
				TermExitCode: 143, IgnoreSIGTERM: true, ExitAfter: 3 * time.Second, ExitCode: 1,
				NotReadyAfter: 4 * time.Second, UnhealthyAfter: 5 * time.Second, ExitWhenFile: "/shared/stop",
				TouchOnExit: "/shared/done", ReadyFlap: true, RemoveSeenFile: true,
				FillFile: "/fill", FillMiB: 20, FillAfter: 6 * time.Second, UnreadyOnTerm: true,
			},
		},
		{name: "never ready", env: map[string]string{"NAME": "n", "READY_AFTER": "never"}, want: Config{Name: "n", Port: 8080, ReadyAfter: Never}},
		{name: "crash mode is never ready", env: map[string]string{"NAME": "n", "READY_AFTER": "1s", "CRASH_AFTER": "2s"}, want: Config{Name: "n", Port: 8080, ReadyAfter: Never, CrashAfter: 2 * time.Second}},
		{name: "bad duration", env: map[string]string{"DRAIN": "3"}, wantErr: `DRAIN="3"`},
		{name: "negative duration", env: map[string]string{"EXIT_AFTER": "-1s"}, wantErr: `EXIT_AFTER="-1s"`},
		{name: "bad port", env: map[string]string{"PORT": "http"}, wantErr: `PORT="http"`},
		{name: "bad bool", env: map[string]string{"IGNORE_SIGTERM": "yes please"}, wantErr: `IGNORE_SIGTERM`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	at := time.Date(2026, 11, 22, 20, 0, 0, 123456789, time.FixedZone("x", 3600))
	got := Line(at, "proxy", "exiting", "code", "143")
	want := "2026-11-22T19:00:00.123456789Z name=proxy event=exiting code=143"
	if got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestDone(t *testing.T) {
	refused := errors.New("connection refused")
	for _, tt := range []struct {
		up     bool
		err    error
		status int
		want   bool
	}{
		{true, nil, 200, true},
		{true, nil, 503, false},
		{true, refused, 0, false},
		{false, refused, 0, true},
		{false, nil, 503, false},
		{false, nil, 200, false},
	} {
		if got := Done(tt.up, tt.err, tt.status); got != tt.want {
			t.Errorf("Done(up=%v, err=%v, %d) = %v, want %v", tt.up, tt.err, tt.status, got, tt.want)
		}
	}
}

func TestPoll(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		if calls < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	if err := poll(context.Background(), srv.URL, true, time.Millisecond); err != nil || calls != 3 {
		t.Fatalf("poll up: err=%v after %d calls, want nil after 3", err, calls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := poll(ctx, srv.URL, false, time.Millisecond); err == nil {
		t.Fatal("poll down on a live server: want a timeout")
	}
	srv.Close()
	if err := poll(context.Background(), srv.URL, false, time.Millisecond); err != nil {
		t.Fatalf("poll down on a closed server: %v", err)
	}
}

// start runs the testserver binary (this test binary) with args and env.
func start(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), append([]string{"TESTSERVER_BE_MAIN=1"}, env...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(stdout)
}

// expect reads lines until one has the event, and returns it.
func expect(t *testing.T, lines *bufio.Scanner, event string) string {
	t.Helper()
	for lines.Scan() {
		if strings.Contains(lines.Text(), " event="+event) {
			return lines.Text()
		}
	}
	t.Fatalf("no line with event=%s", event)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

func TestServeReadyThenDrainOnSIGTERM(t *testing.T) {
	port := freePort(t)
	cmd, lines := start(t, []string{"NAME=side", fmt.Sprintf("PORT=%d", port), "READY_AFTER=200ms", "DRAIN=300ms", "TERM_EXIT_CODE=143"})
	expect(t, lines, "started")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	if resp, err := http.Get(url + "/ready"); err != nil || resp.StatusCode != 503 {
		t.Fatalf("/ready before READY_AFTER: %v %v, want 503", resp, err)
	}
	if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v, want 200", resp, err)
	}
	expect(t, lines, "ready")
	if err := poll(context.Background(), url+"/ready", true, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	expect(t, lines, "ready-served")

	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	expect(t, lines, "sigterm")
	last := expect(t, lines, "exiting")
	if !strings.HasSuffix(last, "code=143") {
		t.Errorf("last line %q, want code=143", last)
	}
	if code := exitCode(t, cmd); code != 143 {
		t.Errorf("exit code %d, want 143", code)
	}
	if d := time.Since(sent); d < 300*time.Millisecond {
		t.Errorf("exited %v after SIGTERM, want after the 300ms drain", d)
	}
}

// TestServeUnreadyWhileDraining checks UNREADY_ON_SIGTERM: from SIGTERM on
// /ready answers 503 while the server drains, and /healthz still 200.
func TestServeUnreadyWhileDraining(t *testing.T) {
	port := freePort(t)
	cmd, lines := start(t, []string{"NAME=proxy", fmt.Sprintf("PORT=%d", port), "DRAIN=2s", "UNREADY_ON_SIGTERM=true"})
	expect(t, lines, "started")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := poll(context.Background(), url+"/ready", true, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	expect(t, lines, "draining")
	if resp, err := http.Get(url + "/ready"); err != nil || resp.StatusCode != 503 {
		t.Errorf("/ready while draining: %v %v, want 503", resp, err)
	}
	if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz while draining: %v %v, want 200", resp, err)
	}
	expect(t, lines, "exiting")
	exitCode(t, cmd)
}

func TestServeIgnoresSIGTERM(t *testing.T) {
	cmd, lines := start(t, []string{"NAME=stubborn", fmt.Sprintf("PORT=%d", freePort(t)), "IGNORE_SIGTERM=true", "EXIT_AFTER=1s", "EXIT_CODE=7"})
	expect(t, lines, "started")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	expect(t, lines, "sigterm-ignored")
	if code := exitCode(t, cmd); code != 7 {
		t.Errorf("exit code %d, want the job's 7 (SIGTERM ignored)", code)
	}
}

func TestServeCrashes(t *testing.T) {
	cmd, lines := start(t, []string{"NAME=crash", fmt.Sprintf("PORT=%d", freePort(t)), "READY_AFTER=0s", "CRASH_AFTER=100ms"})
	expect(t, lines, "started")
	expect(t, lines, "crashing")
	if code := exitCode(t, cmd); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

func TestHookAndWaitCommands(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hooks.log")
	cmd, _ := start(t, nil, "hook", "--name", "prestop", "--sleep", "50ms", "--out", out)
	if code := exitCode(t, cmd); code != 0 {
		t.Fatalf("hook exit code %d", code)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	cmd, _ = start(t, nil, "wait-ready", "--out", out, srv.URL)
	if code := exitCode(t, cmd); code != 0 {
		t.Fatalf("wait-ready exit code %d", code)
	}
	cmd, _ = start(t, nil, "wait-down", "--out", out, "--timeout", "200ms", srv.URL)
	if code := exitCode(t, cmd); code == 0 {
		t.Fatal("wait-down on a live server: want a failure after --timeout")
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		if _, err := time.Parse(time.RFC3339Nano, f[0]); err != nil {
			t.Errorf("line %q: %v", l, err)
		}
		events = append(events, f[1]+" "+f[2])
	}
	want := "name=prestop event=hook-start|name=prestop event=hook-end|" +
		"name=wait-ready event=hook-start|name=wait-ready event=hook-end|" +
		"name=wait-down event=hook-start|name=wait-down event=hook-failed"
	if got := strings.Join(events, "|"); got != want {
		t.Errorf("hook log:\n%s\nwant events %s", data, want)
	}
}

func TestServeTurnsUnreadyAndUnhealthy(t *testing.T) {
	port := freePort(t)
	_, lines := start(t, []string{"NAME=flaky", fmt.Sprintf("PORT=%d", port), "NOT_READY_AFTER=100ms", "UNHEALTHY_AFTER=150ms"})
	expect(t, lines, "unhealthy")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for path, want := range map[string]int{"/ready": 503, "/healthz": 500} {
		if resp, err := http.Get(url + path); err != nil || resp.StatusCode != want {
			t.Errorf("%s: %v %v, want %d", path, resp, err, want)
		}
	}
}

func TestServeExitsWhenFileAppears(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "stop")
	cmd, lines := start(t, []string{"NAME=watcher", fmt.Sprintf("PORT=%d", freePort(t)), "EXIT_WHEN_FILE=" + stop, "EXIT_CODE=3"})
	expect(t, lines, "started")
	hook, _ := start(t, nil, "hook", "--name", "prestop", "--touch", stop, "--out", os.DevNull)
	if code := exitCode(t, hook); code != 0 {
		t.Fatalf("hook exit code %d", code)
	}
	expect(t, lines, "file-seen")
	if code := exitCode(t, cmd); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
}

func TestServeRemovesTheSeenFile(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "stop")
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, lines := start(t, []string{"NAME=once", fmt.Sprintf("PORT=%d", freePort(t)), "EXIT_WHEN_FILE=" + stop, "EXIT_CODE=1", "REMOVE_SEEN_FILE=true"})
	expect(t, lines, "file-seen")
	if code := exitCode(t, cmd); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if _, err := os.Stat(stop); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file is still there after the exit: %v", err)
	}
}

func TestServeFillsAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fill")
	_, lines := start(t, []string{"NAME=filler", fmt.Sprintf("PORT=%d", freePort(t)), "FILL_FILE=" + path, "FILL_MIB=3"})
	expect(t, lines, "filled")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != 3<<20 {
		t.Errorf("the file has %d bytes, want 3 MiB", info.Size())
	}
}

func TestServeTouchesFileOnExit(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	cmd, lines := start(t, []string{"NAME=job", fmt.Sprintf("PORT=%d", freePort(t)), "EXIT_AFTER=50ms", "TOUCH_ON_EXIT=" + done})
	expect(t, lines, "touched")
	if code := exitCode(t, cmd); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if _, err := os.Stat(done); err != nil {
		t.Errorf("the file was not created: %v", err)
	}
}

func TestServeFlapsReadiness(t *testing.T) {
	port := freePort(t)
	_, lines := start(t, []string{"NAME=flapping", fmt.Sprintf("PORT=%d", port), "READY_FLAP=true"})
	expect(t, lines, "ready")
	var got []int
	for range 6 {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/ready", port))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if want := []int{503, 200, 503, 200, 503, 200}; !slices.Equal(got, want) {
		t.Errorf("/ready answered %v, want %v", got, want)
	}
}
