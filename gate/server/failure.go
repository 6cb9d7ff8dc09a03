package server

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// Failure is how a launched server failed, in the words `perfgate run` and
// `perfgate gate` both report: one description, so the two commands say
// the same thing about the same crash (on stderr, in the result file and
// in the PR comment).
type Failure struct {
	// Summary says what happened, e.g. "the server exited with status 3
	// during the run" or "the server did not become ready: ...".
	Summary string
	// BeforeReady is true when the server never became ready (no trial
	// ran against it).
	BeforeReady bool
	// Exited is true when the server process ended on its own; ExitCode
	// is then its exit status (-1 when a signal killed it) and Signal
	// names the signal ("killed").
	Exited   bool
	ExitCode int
	Signal   string
	// Tail is the end of the server's log, secrets scrubbed; empty when
	// perfgate did not launch it or it printed nothing.
	Tail string
}

// FailureOf describes the server failure err carries: an *ExitError (the
// server exited), a *HealthError (it stopped answering) or a *LaunchError
// (it never became ready). ok is false for any other error.
func FailureOf(err error) (f Failure, ok bool) {
	var le *LaunchError
	if errors.As(err, &le) {
		f.BeforeReady, f.Tail = true, le.Tail
	}
	var ee *ExitError
	var he *HealthError
	switch {
	case errors.As(err, &ee):
		f.Exited, f.ExitCode = true, 0
		what := "exited with status 0"
		var xe *exec.ExitError
		if errors.As(ee.Err, &xe) {
			f.ExitCode = xe.ExitCode()
			what = fmt.Sprintf("exited with status %d", f.ExitCode)
			if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				f.ExitCode, f.Signal = -1, ws.Signal().String()
				what = "was killed (" + f.Signal + ")"
			}
		} else if ee.Err != nil {
			what = "failed: " + ee.Err.Error()
		}
		when := "during the run"
		if f.BeforeReady {
			when = "before it was ready"
		}
		f.Summary = "the server " + what + " " + when
		if f.Tail == "" {
			f.Tail = ee.Tail
		}
	case errors.As(err, &he):
		f.Summary = "the server stopped answering during the run: " + he.Error()
		if f.Tail == "" {
			f.Tail = he.Tail
		}
	case le != nil && errors.As(le.Err, new(*PortInUseError)):
		f.Summary = "the server was not started: " + le.Err.Error()
	case le != nil:
		f.Summary = "the server did not become ready: " + le.Err.Error()
	default:
		return Failure{}, false
	}
	return f, true
}
