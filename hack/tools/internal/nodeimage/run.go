package nodeimage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Logf says what the builder does, on standard error, as hack/lib.sh's log
// does ("==> ...").
func Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "==> "+format+"\n", args...)
}

// ProgressEvery is how often a long command is said to be still running
// (hack/lib.sh's with_progress): a cold build compiles for minutes without
// a word.
var ProgressEvery = 30 * time.Second

// Command is one external command the builder runs (go, docker,
// debootstrap, tar, imgpack): kind shells out to the same tools.
type Command struct {
	Name string
	Args []string
	// Dir is the working folder ("" for the current one).
	Dir string
	// Env is added to the builder's environment.
	Env []string
	// What, if set, names the command in "still ..." lines every
	// ProgressEvery while it runs.
	What string
	// Stdout, if set, receives the standard output; else it goes to the
	// builder's standard error, as the shell's commands' did.
	Stdout io.Writer
	// Quiet keeps the output (both streams) out of the log unless the
	// command fails: then its last lines are in the error.
	Quiet bool
}

// Run runs the command to its end.
func (c Command) Run(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	var captured bytes.Buffer
	switch {
	case c.Quiet:
		cmd.Stderr = &captured
		cmd.Stdout = &captured
		if c.Stdout != nil {
			cmd.Stdout = c.Stdout
		}
	default:
		cmd.Stderr = os.Stderr
		cmd.Stdout = os.Stderr
		if c.Stdout != nil {
			cmd.Stdout = c.Stdout
		}
	}
	defer progress(c.What)()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w%s", c.Name, strings.Join(c.Args, " "), err, lastLines(captured.String(), 20))
	}
	return nil
}

// Output runs the command and returns its standard output, trimmed.
func (c Command) Output(ctx context.Context) (string, error) {
	var out bytes.Buffer
	c.Stdout = &out
	err := c.Run(ctx)
	return strings.TrimSpace(out.String()), err
}

// lastLines is the last n lines of s, as a suffix of an error message.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return ":\n" + strings.Join(lines, "\n")
}

// progress says every ProgressEvery that what is still under way, until
// the function it returns is called; nothing when what is "".
func progress(what string) (stop func()) {
	if what == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func(start time.Time) {
		t := time.NewTicker(ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				Logf("still %s (%ds)", what, int(time.Since(start).Seconds()))
			}
		}
	}(time.Now())
	return func() { close(done) }
}
