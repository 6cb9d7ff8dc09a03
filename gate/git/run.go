// Package git is the one place perfgate runs git: the merge base a gate
// trusts (shallow clones completed from origin, failing closed), the
// commit range a bisection walks, and the baselines branch of
// gate/gitstore all go through Repo.Run, so every call gets the same
// context and timeout, a bounded output, no terminal prompt, and an error
// that carries git's standard error with secrets removed (a fetch from an
// https remote may echo its token).
//
// It also owns the name rules: ValidBranch is git-check-ref-format for a
// branch, ValidRev the commits a flag may name. Callers put every rev that
// came from outside (a flag, the environment, a file) after
// --end-of-options, so that even a value the rules let through could never
// be read as an option.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/redact"
)

// DefaultTimeout bounds one git call unless Repo.Timeout says otherwise:
// long enough for a fetch --unshallow of a large repository over a slow
// link, short enough that a hung remote cannot hold a CI job for hours.
const DefaultTimeout = 10 * time.Minute

// MaxOutput bounds what Run keeps of git's standard output. The largest
// output perfgate reads is git log over a bisection range (about 100
// bytes a commit); more than this is a mistake, not data.
const MaxOutput = 64 << 20

// maxStderr bounds what is kept of git's standard error; errors carry its
// first line only.
const maxStderr = 64 << 10

// Repo runs git in one directory of a repository (any directory inside
// its work tree, or a bare repository).
type Repo struct {
	Dir string
	// Environ is the environment git runs in (nil: the process's), so a
	// command's injected environment reaches git. GIT_TERMINAL_PROMPT=0
	// is always added: git never stops to ask for a password.
	Environ []string
	// Timeout bounds each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// waitDelay bounds the wait for a killed git's children (0: 5 s).
	waitDelay time.Duration
}

// In returns the same repository run from the directory dir.
func (r Repo) In(dir string) Repo {
	r.Dir = dir
	return r
}

// Run runs git with args and returns its standard output, trimmed. The
// error names the arguments and carries the first line of git's standard
// error, both with secrets removed.
func (r Repo) Run(ctx context.Context, args ...string) (string, error) {
	out := &capped{max: MaxOutput}
	if err := r.run(ctx, args, out, nil); err != nil {
		return "", err
	}
	if out.over {
		return "", fmt.Errorf("git %s: output longer than %d bytes", r.shown(args), MaxOutput)
	}
	return strings.TrimSpace(out.buf.String()), nil
}

// Stream runs git with args and hands its standard output to read while it
// runs (git archive of a directory); an error from read stops git.
func (r Repo) Stream(ctx context.Context, args []string, read func(io.Reader) error) error {
	return r.run(ctx, args, nil, read)
}

// run is Run and Stream: exactly one of out and read is set.
func (r Repo) run(ctx context.Context, args []string, out io.Writer, read func(io.Reader) error) error {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.Dir}, args...)...)
	cmd.Env = append(r.environ(), "GIT_TERMINAL_PROMPT=0")
	// A killed git may leave a child (ssh, a credential helper) holding
	// its pipes; do not wait for it for long.
	cmd.WaitDelay = 5 * time.Second
	if r.waitDelay > 0 {
		cmd.WaitDelay = r.waitDelay
	}
	stderr := &capped{max: maxStderr}
	cmd.Stderr = stderr
	var rerr error
	if read == nil {
		cmd.Stdout = out
		if err := cmd.Run(); err != nil {
			return r.failed(ctx, args, timeout, err, stderr)
		}
		return nil
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return r.failed(ctx, args, timeout, err, stderr)
	}
	if rerr = read(pipe); rerr != nil {
		cancel() // git need not write the rest
		_, _ = io.Copy(io.Discard, pipe)
	}
	werr := cmd.Wait()
	if rerr != nil {
		return rerr
	}
	if werr != nil {
		return r.failed(ctx, args, timeout, werr, stderr)
	}
	return nil
}

// failed builds the error of a git call: the arguments, how it ended and
// git's first line of standard error, with secrets removed (the
// environment's secret values, and credentials by their shape: a remote
// URL with a token in it).
func (r Repo) failed(ctx context.Context, args []string, timeout time.Duration, err error, stderr *capped) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v", timeout)
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(stderr.buf.String()), "\n")
	sc := redact.ForProcess(r.environ(), nil)
	if msg == "" {
		return sc.Error(fmt.Errorf("git %s: %w", r.shown(args), err))
	}
	return sc.Error(fmt.Errorf("git %s: %w: %s", r.shown(args), err, redact.Text(msg)))
}

// shown is args as an error names them, credentials hidden.
func (r Repo) shown(args []string) string {
	return strings.Join(redact.Argv(args), " ")
}

func (r Repo) environ() []string {
	if r.Environ == nil {
		return os.Environ()
	}
	return append([]string(nil), r.Environ...)
}

// capped keeps the first max bytes written to it and notes that more
// came; it never fails a write, so git is not killed by a full pipe.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}
