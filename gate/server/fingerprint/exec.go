package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Bounds of Exec.
const (
	// ExecTimeout bounds one run of a tool: nvidia-smi can hang on a
	// wedged driver, and a fingerprint or a health sample must not hang
	// a run.
	ExecTimeout = 15 * time.Second
	// MaxOutput bounds what Exec reads of a tool's standard output. The
	// kernel log (dmesg) is the largest a tool says here: its buffer is
	// at most 32 MiB and usually 256 KiB; nvidia-smi's queries are a
	// few KiB. A tool that prints more is stopped.
	MaxOutput = 32 << 20
	// maxStderr bounds the stderr kept for an error message.
	maxStderr = 4 << 10
	// waitDelay is how long Exec waits for the tool's pipes to close
	// once it has exited or been killed: a child it forked may hold
	// them open for as long as it lives.
	waitDelay = time.Second
)

// execTimeout is ExecTimeout; tests shorten it.
var execTimeout = ExecTimeout

// ErrTooMuchOutput says a tool printed more than MaxOutput bytes.
var ErrTooMuchOutput = errors.New("printed too much")

// Exec is the Runner Collect uses by default: a program found on PATH,
// bounded to ExecTimeout and MaxOutput bytes, its error naming the
// program with the start of its stderr. The runner-health sampler runs
// nvidia-smi and dmesg the same way.
//
// The bound holds whatever the tool does: it runs in a process group of
// its own, which is killed whole when the time is up or ctx ends (a
// SIGINT must stop a run at once, not after the tool), and Exec does not
// wait for its pipes beyond waitDelay, so a child that inherited stdout
// and sleeps on does not hold Exec (issue 20 item 6: a 1-trial run took
// 240 s that way). A time-out wraps context.DeadlineExceeded, so a caller
// can tell a hung tool from a failing one.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return execIn(ctx, nil, name, args)
}

// execIn is Exec in environ ("NAME=value"; nil: the process's own,
// looked up by exec.LookPath).
func execIn(ctx context.Context, environ []string, name string, args []string) ([]byte, error) {
	path, err := lookPath(name, environ)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, execTimeout)
	defer cancel()
	cmd := exec.Command(path, args...)
	cmd.Env = environ
	setGroup(cmd)
	out := &capWriter{max: MaxOutput, full: cancel}
	stderr := &capWriter{max: maxStderr}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Kill the whole group when the time is up, ctx ends or the output
	// overflows.
	stop := context.AfterFunc(tctx, func() { killGroup(cmd) })
	err = cmd.Wait()
	stop()
	if errors.Is(err, exec.ErrWaitDelay) {
		// The tool exited, and what it left behind holds its pipes:
		// the group still has members, so its id is still theirs.
		killGroup(cmd)
	}
	switch {
	case out.over:
		return nil, fmt.Errorf("%s: %w: more than %d bytes of output", name, ErrTooMuchOutput, MaxOutput)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	case tctx.Err() != nil:
		return nil, fmt.Errorf("%s: no answer within %s: %w", name, execTimeout, context.DeadlineExceeded)
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited successfully; a child it left kept the pipes open.
		return out.Bytes(), nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w %s", name, err, clipWords(strings.TrimSpace(stderr.String()), 200))
	}
	return out.Bytes(), nil
}

// clipWords cuts s to at most n bytes at a space: a cut inside a word
// could leave the start of a secret that a scrubber, seeing only part of
// it, cannot recognise.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.LastIndexAny(s[:n+1], " \t\n")
	if i < 0 {
		return "…"
	}
	return strings.TrimRight(s[:i], " \t\n") + " …"
}

// capWriter keeps up to max bytes; past that it drops the rest, sets
// over and calls full (which stops the tool). It grows its own slice,
// doubling up to max, so what a bounded read allocates is at most about
// twice max: bytes.Buffer grew past max (to twice its capacity plus the
// write) and, under -race, allocated each growth twice, which took a
// 200 MB tool to 192 MiB allocated against the 32 MiB bound on a loaded
// machine (TestExecOutputBounded). It has no ReadFrom, so io.Copy cannot
// go around Write and its bound.
type capWriter struct {
	buf  []byte
	max  int
	over bool
	full func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	n := min(len(p), max(w.max-len(w.buf), 0))
	if len(w.buf)+n > cap(w.buf) {
		grown := make([]byte, len(w.buf), min(max(2*cap(w.buf), len(w.buf)+n, 4096), w.max))
		copy(grown, w.buf)
		w.buf = grown
	}
	w.buf = append(w.buf, p[:n]...)
	if n < len(p) {
		if !w.over && w.full != nil {
			w.full()
		}
		w.over = true
	}
	return len(p), nil
}

func (w *capWriter) Bytes() []byte  { return w.buf }
func (w *capWriter) String() string { return string(w.buf) }
