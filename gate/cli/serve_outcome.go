package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/ready"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
)

// serveFailure is the one path through which `perfgate run` and `perfgate
// gate` report a launched server that failed (exited, stopped answering,
// never became ready): it describes the failure err carries and prints the
// end of the server's log to stderr, once. The caller puts f.Summary into
// its error (exit 3), the results and the report. ok is false when err is
// no server failure (an interruption while waiting is not one).
func serveFailure(s *Streams, err error) (f server.Failure, ok bool) {
	if errors.Is(err, ready.ErrInterrupted) {
		return f, false
	}
	f, ok = server.FailureOf(err)
	if !ok {
		return f, false
	}
	if tail := strings.TrimRight(f.Tail, "\n"); tail != "" {
		fmt.Fprintf(s.Err, "--- last lines of the server's log ---\n%s\n--- end of the server's log ---\n", tail)
	}
	return f, true
}

// serveMarkFailed records f in a result the failure cut short: the log
// tail, and the failure as the reason the result is incomplete (in place
// of the "run interrupted" its cancelled context produced). A result that
// finished before the failure stands.
func serveMarkFailed(r *result.Result, f server.Failure) {
	if r == nil || r.Complete {
		return
	}
	r.Server.LogTail = f.Tail
	r.IncompleteReason = fmt.Sprintf("%s (%s)", f.Summary, r.IncompleteReason)
}

// serveReported is f as the report shows it.
func serveReported(f *server.Failure) *report.ServerFailure {
	if f == nil {
		return nil
	}
	return &report.ServerFailure{Summary: f.Summary, Tail: f.Tail}
}
