package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/ready"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
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

// serveInterruptedBeforeReady describes a gate interrupted (Ctrl-C, a
// cancelled CI job) while it waited for the launched server: not a server
// failure, but the reason no cell was measured, with the log tail so far.
func serveInterruptedBeforeReady(err error) server.Failure {
	f := server.Failure{Summary: "interrupted while waiting for the server to become ready", BeforeReady: true}
	var le *server.LaunchError
	if errors.As(err, &le) {
		f.Tail = le.Tail
	}
	return f
}

// serveMarkFailed records f in a result the failure cut short: the log
// tail, and the failure as the reason the result is incomplete (in place
// of the "run interrupted" its cancelled context produced). A result that
// finished before the failure stands, but keeps the log tail when it is
// the cell that ran last: on a busy machine a cell can finish all its
// trials (the last requests refused by the dying server) before the
// supervisor notices the exit, and its reader needs the log as much.
func serveMarkFailed(r *result.Result, f server.Failure) {
	if r == nil {
		return
	}
	r.Server.LogTail = f.Tail
	if !r.Complete {
		r.IncompleteReason = fmt.Sprintf("%s (%s)", f.Summary, r.IncompleteReason)
	}
}

// serveReported is f as the report shows it.
func serveReported(f *server.Failure) *report.ServerFailure {
	if f == nil {
		return nil
	}
	return &report.ServerFailure{Summary: f.Summary, Tail: f.Tail}
}

// gateNeverRan is the outcome of a gate whose launched server failed
// before it was ready: every cell is an incomplete result without trials
// whose reason is the server's failure, so the gate writes its reports and
// PR comment (run failed, with the server's log) like any failed run.
func gateNeverRan(ms []*workload.Manifest, baselines []*result.Result, p verdict.Policy, f server.Failure) (*pipeline.Outcome, error) {
	out := &pipeline.Outcome{RunErr: errors.New(f.Summary), Looks: 1}
	want := map[string]bool{}
	now := time.Now().UTC()
	for _, m := range ms {
		want[m.Cell] = true
		r := pipeline.ByKind{}.NewResult(m, result.Server{LogTail: f.Tail})
		r.Tool = result.Tool{Name: "perfgate", Version: Version}
		r.StartedAt, r.FinishedAt = now, now
		r.Complete, r.IncompleteReason = false, f.Summary
		out.Results = append(out.Results, r)
	}
	var base []*result.Result
	for _, b := range baselines {
		if want[b.Workload.Cell] {
			base = append(base, b)
		}
	}
	cmp, err := verdict.Compare(base, out.Results, p, verdict.Look{})
	if err != nil {
		return nil, err
	}
	out.Comparison = cmp
	return out, nil
}
