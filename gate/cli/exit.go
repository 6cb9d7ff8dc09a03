package cli

import (
	"errors"
	"fmt"
)

// ExitCode is the process exit status of perfgate. It is the one place the
// codes are defined; the GitHub Action maps them to its outputs.
type ExitCode int

const (
	// ExitPass: the gate passed (improvements included) or the command succeeded.
	ExitPass ExitCode = 0
	// ExitRegression: at least one gated cell regressed.
	ExitRegression ExitCode = 1
	// ExitInvalid: bad usage or invalid input (workload, baseline, result files,
	// flags, a workload that changed since its baseline, a missing baseline).
	ExitInvalid ExitCode = 2
	// ExitRunFailed: the run could not be completed (server unreachable or dead,
	// interrupted, too many failed requests). Partial results are still written.
	ExitRunFailed ExitCode = 3
	// ExitInconclusive: no regression found, but some gated cell could not be
	// decided within the trial budget.
	ExitInconclusive ExitCode = 4
)

// String names the code as the Action's `verdict` output does.
func (c ExitCode) String() string {
	switch c {
	case ExitPass:
		return "pass"
	case ExitRegression:
		return "regression"
	case ExitInvalid:
		return "invalid"
	case ExitRunFailed:
		return "run-failed"
	case ExitInconclusive:
		return "inconclusive"
	}
	return fmt.Sprintf("exit-%d", int(c))
}

// ExitError carries an exit code with an optional message. A command returns
// one to choose its exit code; a nil Err means "exit with Code, print nothing
// more" (the command has already reported, e.g. a regression table).
type ExitError struct {
	Code ExitCode
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return e.Code.String()
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitf returns an *ExitError with a formatted message.
func exitf(code ExitCode, format string, args ...any) error {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// codeOf maps an error returned by a command to the exit code: an *ExitError
// chooses its own; any other error is a usage or input problem.
func codeOf(err error) ExitCode {
	if err == nil {
		return ExitPass
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitInvalid
}
