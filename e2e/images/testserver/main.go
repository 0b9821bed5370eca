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

// Command testserver plays every container role in sidecar-kubelet's e2e
// suite: sidecar, app, Job, crashing sidecar, hook. Each event it logs is one
// line that the suite parses (see Line):
//
//	2026-11-22T20:00:00.123456789Z name=proxy event=ready
//
// Usage:
//
//	testserver [serve]                    the server, configured by env (below)
//	testserver hook --name N [--sleep D] [--touch FILE] [--out FILE]
//	                                      log hook-start, create FILE, sleep,
//	                                      log hook-end
//	testserver wait-ready URL [--timeout D] [--out FILE]
//	                                      poll URL until it answers 200
//	testserver wait-down URL [--timeout D] [--out FILE]
//	                                      poll URL until it no longer answers
//
// The server's env (durations as Go durations, "2s", "500ms"):
//
//	NAME            name in the log lines (default: $HOSTNAME)
//	PORT            HTTP port (default 8080); /healthz is always 200, /ready
//	                is 200 once READY_AFTER has passed
//	READY_AFTER     delay before /ready answers 200 (default 0; "never")
//	NOT_READY_AFTER /ready answers 503 again from this long after the start
//	READY_FLAP      "true": once ready, /ready answers 503 and 200 in turn,
//	                request by request (never three 200s in a row)
//	UNHEALTHY_AFTER /healthz answers 500 from this long after the start
//	DRAIN           on SIGTERM, keep serving this long, then exit (default 0)
//	UNREADY_ON_SIGTERM "true": from SIGTERM on, /ready answers 503 (a proxy
//	                that drains fails its readiness, as Envoy's does)
//	TERM_EXIT_CODE  exit code after SIGTERM and drain (default 0)
//	IGNORE_SIGTERM  "true": log SIGTERM and go on (only SIGKILL stops it)
//	EXIT_AFTER      job mode: exit with EXIT_CODE after this long
//	EXIT_CODE       job mode's exit code (default 0)
//	CRASH_AFTER     crash mode: never ready, exit 1 after this long
//	EXIT_WHEN_FILE  exit with EXIT_CODE once this file exists (polled every
//	                100 ms; `hook --touch` in another container creates it)
//	REMOVE_SEEN_FILE "true": remove EXIT_WHEN_FILE before exiting, so that
//	                the container started again runs on (a crash, once)
//	FILL_FILE       write FILL_MIB MiB to this file once started (the
//	                container overruns its ephemeral-storage limit)
//	FILL_MIB        how much FILL_FILE gets (default 64)
//	FILL_AFTER      when to begin writing it (default 0)
//	TOUCH_ON_EXIT   create this file just before exiting (the postStart
//	                workaround's Job app tells its sidecar it is done)
//
// The hook commands write to --out, by default /proc/1/fd/1 (the stdout of
// the container's first process, so that `kubectl logs` shows them).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		var cfg Config
		if cfg, err = ConfigFromEnv(os.Getenv); err == nil {
			return serve(cfg, os.Stdout)
		}
	case "hook":
		err = hook(args)
	case "wait-ready":
		err = waitURL(args, "wait-ready", true)
	case "wait-down":
		err = waitURL(args, "wait-down", false)
	default:
		err = fmt.Errorf("unknown command %q (want serve, hook, wait-ready or wait-down)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 2
	}
	return 0
}

// Config is the server's behaviour.
type Config struct {
	Name           string
	Port           int
	ReadyAfter     time.Duration // negative: never
	NotReadyAfter  time.Duration // 0: stays ready
	ReadyFlap      bool          // once ready, 503 and 200 in turn
	UnhealthyAfter time.Duration // 0: stays healthy
	Drain          time.Duration
	UnreadyOnTerm  bool
	TermExitCode   int
	IgnoreSIGTERM  bool
	ExitAfter      time.Duration // 0: no job mode
	ExitCode       int
	CrashAfter     time.Duration // 0: no crash mode
	ExitWhenFile   string
	RemoveSeenFile bool
	TouchOnExit    string
	FillFile       string
	FillMiB        int
	FillAfter      time.Duration
}

// Never is ReadyAfter's value for READY_AFTER=never.
const Never time.Duration = -1

// ConfigFromEnv reads the server's configuration through getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{Name: getenv("NAME"), Port: 8080, ExitWhenFile: getenv("EXIT_WHEN_FILE"), TouchOnExit: getenv("TOUCH_ON_EXIT"), FillFile: getenv("FILL_FILE")}
	if cfg.Name == "" {
		cfg.Name = getenv("HOSTNAME")
	}
	var errs []error
	duration := func(key string, into *time.Duration) {
		if v := getenv(key); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 2s", key, v))
			}
			*into = d
		}
	}
	integer := func(key string, into *int) {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want an integer", key, v))
			}
			*into = n
		}
	}
	boolean := func(key string, into *bool) {
		if v := getenv(key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want true or false", key, v))
			}
			*into = b
		}
	}
	integer("PORT", &cfg.Port)
	if cfg.FillFile != "" {
		cfg.FillMiB = 64
		integer("FILL_MIB", &cfg.FillMiB)
		duration("FILL_AFTER", &cfg.FillAfter)
	}
	if getenv("READY_AFTER") == "never" {
		cfg.ReadyAfter = Never
	} else {
		duration("READY_AFTER", &cfg.ReadyAfter)
	}
	duration("NOT_READY_AFTER", &cfg.NotReadyAfter)
	duration("UNHEALTHY_AFTER", &cfg.UnhealthyAfter)
	duration("DRAIN", &cfg.Drain)
	integer("TERM_EXIT_CODE", &cfg.TermExitCode)
	duration("EXIT_AFTER", &cfg.ExitAfter)
	integer("EXIT_CODE", &cfg.ExitCode)
	duration("CRASH_AFTER", &cfg.CrashAfter)
	boolean("READY_FLAP", &cfg.ReadyFlap)
	boolean("IGNORE_SIGTERM", &cfg.IgnoreSIGTERM)
	boolean("UNREADY_ON_SIGTERM", &cfg.UnreadyOnTerm)
	boolean("REMOVE_SEEN_FILE", &cfg.RemoveSeenFile)
	if cfg.CrashAfter > 0 {
		cfg.ReadyAfter = Never
	}
	return cfg, errors.Join(errs...)
}

// Line is one logged event: the timestamp in RFC3339Nano (UTC), then
// space-separated key=value fields, name and event first.
func Line(t time.Time, name, event string, kv ...string) string {
	var b strings.Builder
	b.WriteString(t.UTC().Format(time.RFC3339Nano))
	b.WriteString(" name=" + name + " event=" + event)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(" " + kv[i] + "=" + kv[i+1])
	}
	return b.String()
}

type logger struct {
	mu   sync.Mutex
	w    io.Writer
	name string
}

func (l *logger) log(event string, kv ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, Line(time.Now(), l.name, event, kv...))
}

// readiness is the /ready endpoint: 503 until the server is ready, then 200.
// The first 200 it serves is logged as "ready-served": that is when the
// kubelet's readiness probe first succeeded.
type readiness struct {
	ready, served, unready atomic.Bool
	// flap, once ready, answers 503 to every other request.
	flap     bool
	requests atomic.Int64
	log      *logger
}

func (r *readiness) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if !r.ready.Load() || r.unready.Load() || (r.flap && r.requests.Add(1)%2 == 1) {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	if !r.served.Swap(true) {
		r.log.log("ready-served")
	}
	fmt.Fprintln(w, "ready")
}

func serve(cfg Config, out io.Writer) int {
	log := &logger{w: out, name: cfg.Name}
	// Take the signal before anything else, so that none is lost.
	sigterm := make(chan os.Signal, 4)
	signal.Notify(sigterm, syscall.SIGTERM)

	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.Port))
	if err != nil {
		log.log("exiting", "code", "1", "error", strconv.Quote(err.Error()))
		return 1
	}
	ready := &readiness{log: log, flap: cfg.ReadyFlap}
	mux := http.NewServeMux()
	mux.Handle("/ready", ready)
	var unhealthy atomic.Bool
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if unhealthy.Load() {
			http.Error(w, "unhealthy", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.log("started", "pid", strconv.Itoa(os.Getpid()), "port", strconv.Itoa(cfg.Port))

	exit := make(chan int, 1)
	after := func(d time.Duration, f func()) {
		if d >= 0 {
			time.AfterFunc(d, f)
		}
	}
	after(cfg.ReadyAfter, func() { ready.ready.Store(true); log.log("ready") })
	if cfg.NotReadyAfter > 0 {
		after(cfg.NotReadyAfter, func() { ready.unready.Store(true); log.log("not-ready") })
	}
	if cfg.UnhealthyAfter > 0 {
		after(cfg.UnhealthyAfter, func() { unhealthy.Store(true); log.log("unhealthy") })
	}
	if cfg.ExitWhenFile != "" {
		go func() {
			for ; ; time.Sleep(100 * time.Millisecond) {
				if _, err := os.Stat(cfg.ExitWhenFile); err == nil {
					log.log("file-seen", "file", cfg.ExitWhenFile)
					if cfg.RemoveSeenFile {
						if err := os.Remove(cfg.ExitWhenFile); err != nil {
							log.log("remove-failed", "file", cfg.ExitWhenFile, "error", strconv.Quote(err.Error()))
						}
					}
					exit <- cfg.ExitCode
					return
				}
			}
		}()
	}
	if cfg.FillFile != "" {
		after(cfg.FillAfter, func() { fill(log, cfg.FillFile, cfg.FillMiB) })
	}
	if cfg.ExitAfter > 0 {
		after(cfg.ExitAfter, func() { exit <- cfg.ExitCode })
	}
	if cfg.CrashAfter > 0 {
		after(cfg.CrashAfter, func() { log.log("crashing"); exit <- 1 })
	}
	go func() {
		for range sigterm {
			log.log("sigterm")
			if cfg.IgnoreSIGTERM {
				log.log("sigterm-ignored")
				continue
			}
			if cfg.UnreadyOnTerm {
				ready.unready.Store(true)
			}
			if cfg.Drain > 0 {
				log.log("draining", "for", cfg.Drain.String())
				time.Sleep(cfg.Drain)
			}
			exit <- cfg.TermExitCode
			return
		}
	}()

	code := <-exit
	// Logged before the listener closes, so that whoever sees the server
	// gone sees this line first.
	if cfg.TouchOnExit != "" {
		if err := os.WriteFile(cfg.TouchOnExit, nil, 0o644); err != nil {
			log.log("touch-failed", "file", cfg.TouchOnExit, "error", strconv.Quote(err.Error()))
		} else {
			log.log("touched", "file", cfg.TouchOnExit)
		}
	}
	log.log("exiting", "code", strconv.Itoa(code))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return code
}

// hookFlags are the flags every hook-like command takes.
func hookFlags(cmd string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	out := fs.String("out", "/proc/1/fd/1", "file to append the log lines to")
	return fs, out
}

func openOut(path string) (io.WriteCloser, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

// hook logs hook-start, sleeps, logs hook-end.
func hook(args []string) error {
	fs, out := hookFlags("hook")
	name := fs.String("name", "hook", "name of the hook in the log lines")
	sleep := fs.Duration("sleep", 0, "how long the hook runs")
	touch := fs.String("touch", "", "file to create when the hook starts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	w, err := openOut(*out)
	if err != nil {
		return err
	}
	defer w.Close()
	log := &logger{w: w, name: *name}
	log.log("hook-start", "sleep", sleep.String())
	if *touch != "" {
		if err := os.WriteFile(*touch, nil, 0o644); err != nil {
			return err
		}
	}
	time.Sleep(*sleep)
	log.log("hook-end")
	return nil
}

// waitURL polls a URL every 100 ms until it answers 200 (up) or until it
// stops answering at all (!up), logging when it starts and when it is done.
func waitURL(args []string, cmd string, up bool) error {
	fs, out := hookFlags(cmd)
	timeout := fs.Duration("timeout", 0, "give up after this long (0: never)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%s: want exactly one URL", cmd)
	}
	url := fs.Arg(0)
	w, err := openOut(*out)
	if err != nil {
		return err
	}
	defer w.Close()
	log := &logger{w: w, name: cmd}
	log.log("hook-start", "url", url)
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	if err := poll(ctx, url, up, 100*time.Millisecond); err != nil {
		log.log("hook-failed", "error", strconv.Quote(err.Error()))
		return err
	}
	log.log("hook-end")
	return nil
}

// poll checks url every interval until Done says it is done.
func poll(ctx context.Context, url string, up bool, interval time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(url)
		status := 0
		if err == nil {
			status = resp.StatusCode
			_ = resp.Body.Close()
		}
		if Done(up, err, status) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: still %s: %w", url, map[bool]string{true: "not ready", false: "answering"}[up], ctx.Err())
		case <-time.After(interval):
		}
	}
}

// Done says whether a poll is over: waiting for up, the URL answered 200;
// waiting for down, the URL did not answer at all.
func Done(up bool, err error, status int) bool {
	if up {
		return err == nil && status == http.StatusOK
	}
	return err != nil
}

// fill writes mib MiB of data to path, a MiB at a time, and logs "filled"
// (or "fill-failed"): real blocks, which the runtime counts as the
// container's use of its ephemeral storage.
func fill(log *logger, path string, mib int) {
	f, err := os.Create(path)
	if err != nil {
		log.log("fill-failed", "file", path, "error", strconv.Quote(err.Error()))
		return
	}
	defer f.Close()
	chunk := []byte(strings.Repeat("sidecar-kubelet ", 1<<16)) // 1 MiB
	for range mib {
		if _, err := f.Write(chunk); err != nil {
			log.log("fill-failed", "file", path, "error", strconv.Quote(err.Error()))
			return
		}
	}
	if err := f.Sync(); err != nil {
		log.log("fill-failed", "file", path, "error", strconv.Quote(err.Error()))
		return
	}
	log.log("filled", "file", path, "mib", strconv.Itoa(mib))
}
