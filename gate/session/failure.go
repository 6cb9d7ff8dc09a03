package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/ready"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
)

// Failure describes the server failure err carries (the server exited,
// stopped answering, never became ready), in the words every command
// reports it with: on stderr, in the result files and in the PR comment.
// ok is false when err is no server failure; an interruption while
// waiting for readiness is not one (see Interrupted).
func Failure(err error) (f server.Failure, ok bool) {
	if err == nil || errors.Is(err, ready.ErrInterrupted) {
		return f, false
	}
	return server.FailureOf(err)
}

// Interrupted describes a session interrupted (Ctrl-C, a cancelled CI job)
// while it waited for the launched server to become ready: not a server
// failure, but the reason no cell was measured, with the log tail so far.
// ok is false for any other error.
func Interrupted(err error) (f server.Failure, ok bool) {
	if !errors.Is(err, ready.ErrInterrupted) {
		return f, false
	}
	f = server.Failure{Summary: "interrupted while waiting for the server to become ready", BeforeReady: true}
	var le *server.LaunchError
	if errors.As(err, &le) {
		f.Tail = le.Tail
	}
	return f, true
}

// MarkFailed records f in a result the failure cut short: the log tail,
// and the failure as the reason the result is incomplete (in place of the
// "run interrupted" its cancelled context produced). A result that
// finished before the failure stands, but keeps the log tail when it is
// the cell that ran last: on a busy machine a cell can finish all its
// trials (the last requests refused by the dying server) before the
// supervisor notices the exit, and its reader needs the log as much.
// Run applies it to the session's results; a command calls it for results
// it holds outside a session.
func MarkFailed(r *result.Result, f server.Failure) {
	if r == nil {
		return
	}
	r.Server.LogTail = f.Tail
	if !r.Complete && !strings.HasPrefix(r.IncompleteReason, f.Summary) {
		r.IncompleteReason = fmt.Sprintf("%s (%s)", f.Summary, r.IncompleteReason)
	}
}

func trimTail(tail string) string { return strings.TrimRight(tail, "\n") }
