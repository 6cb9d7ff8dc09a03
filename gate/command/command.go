// Package command runs an offline engine benchmark once per trial, e.g.
// `vllm bench latency ... --output-json {out}` or `vllm bench throughput`,
// and turns the JSON it writes into a trial's metric values, so
// engine-level numbers gate like serving workloads. The command is the
// system under test: its failures (non-zero exit, no or unreadable output,
// a timeout) are invalid trials, not errors.
package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/vllmbench"
)

// Placeholders replaced in every argument of Spec.Argv.
const (
	OutPlaceholder   = "{out}"   // the JSON file the command must write
	TrialPlaceholder = "{trial}" // the trial index, 0-based
)

// DefaultTimeout bounds one trial when Spec.Timeout is zero.
const DefaultTimeout = time.Hour

// Spec describes the command.
type Spec struct {
	// Argv must contain {out} in some argument.
	Argv []string
	// Env is added to BaseEnv (the caller passes os.Environ()).
	Env     map[string]string
	BaseEnv []string
	Workdir string
	// Timeout bounds one trial; DefaultTimeout when zero.
	Timeout time.Duration
}

// Validate reports a Spec that cannot run.
func (s Spec) Validate() error {
	if len(s.Argv) == 0 {
		return errors.New("command: argv is empty")
	}
	for _, a := range s.Argv {
		if strings.Contains(a, OutPlaceholder) {
			return nil
		}
	}
	return fmt.Errorf("command: argv has no %s placeholder for the output JSON file", OutPlaceholder)
}

// Run runs trial index of s, with its output file in dir. It returns an
// error only when the trial could not be attempted (bad spec, unwritable
// dir, the command not found) or ctx was cancelled; everything the command
// itself does wrong is an invalid trial with the reason and the end of its
// output.
func Run(ctx context.Context, s Spec, index int, dir string) (result.Trial, error) {
	if err := s.Validate(); err != nil {
		return result.Trial{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result.Trial{}, fmt.Errorf("command: %w", err)
	}
	out := filepath.Join(dir, fmt.Sprintf("trial-%02d.json", index))
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return result.Trial{}, fmt.Errorf("command: %w", err)
	}
	argv := make([]string, len(s.Argv))
	for i, a := range s.Argv {
		a = strings.ReplaceAll(a, OutPlaceholder, out)
		argv[i] = strings.ReplaceAll(a, TrialPlaceholder, strconv.Itoa(index))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	t := result.Trial{Index: index, Values: map[string]float64{}}
	start := time.Now()
	p, err := server.Start(server.Config{Command: argv, Env: s.Env, BaseEnv: s.BaseEnv, Workdir: s.Workdir, StopGrace: 5 * time.Second})
	if err != nil {
		return result.Trial{}, fmt.Errorf("command: %w", err)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	waitErr := p.Wait(tctx)
	t.DurationS = time.Since(start).Seconds()
	stopErr := p.Stop() // also ends anything the command left behind
	switch {
	case ctx.Err() != nil:
		return result.Trial{}, fmt.Errorf("command: trial %d: %w", index, ctx.Err())
	case errors.Is(waitErr, context.DeadlineExceeded):
		return invalid(t, fmt.Sprintf("command timed out after %s", timeout), p.Tail(10)), nil
	}
	var ee *server.ExitError
	if errors.As(waitErr, &ee) && ee.Err != nil {
		return invalid(t, "command failed: "+ee.Err.Error(), ee.Tail), nil
	}
	if stopErr != nil {
		return result.Trial{}, fmt.Errorf("command: %w", stopErr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return invalid(t, fmt.Sprintf("command wrote no %s: %v", filepath.Base(out), err), p.Tail(10)), nil
	}
	values, notes, err := vllmbench.ParseOffline(filepath.Base(out), data)
	if err != nil {
		return invalid(t, err.Error(), p.Tail(10)), nil
	}
	t.Valid = true
	t.Values = values
	t.Warnings = notes
	return t, nil
}

// invalid marks t invalid with reason, keeping the output's tail.
func invalid(t result.Trial, reason, tail string) result.Trial {
	t.Valid = false
	t.InvalidReason = reason
	t.Errors = map[string]int{"command": 1}
	if tail != "" {
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		t.ErrorSamples = map[string]string{"command": tail}
	}
	return t
}
