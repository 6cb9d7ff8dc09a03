package pipeline

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// UnmeasuredError says some workload cells ran trials but none of them is
// valid: the cells measured nothing a verdict or a baseline can use, so
// the run failed (exit 3) even though every request was sent. perfgate run
// used to exit 0 then, and a script that promoted its output found out
// only at `baseline update`.
type UnmeasuredError struct {
	// Cells are the cells without a valid trial, each with its trial
	// count and the first trial's invalid reason.
	Cells []UnmeasuredCell
}

// UnmeasuredCell is one cell of an UnmeasuredError.
type UnmeasuredCell struct {
	Cell   string
	Trials int
	Reason string
}

func (e *UnmeasuredError) Error() string {
	parts := make([]string, len(e.Cells))
	for i, c := range e.Cells {
		parts[i] = fmt.Sprintf("%s: none of its %d trial(s) is valid (first: %s)", c.Cell, c.Trials, c.Reason)
	}
	return fmt.Sprintf("%d workload cell(s) measured no valid trial: %s; the result files are written, "+
		"each trial's invalid_reason says what to fix (failed requests: the server's log; dispatch lag: a less busy client machine; "+
		"the validity limits: --max-failure-share, --max-dispatch-lag-ms, --max-tokens-per-chunk)",
		len(e.Cells), strings.Join(parts, "; "))
}

// Unmeasured returns an *UnmeasuredError naming the results that have
// trials but no valid one, nil when every result has a valid trial (or no
// trial at all: a run cut short says so itself).
func Unmeasured(rs []*result.Result) error {
	var e UnmeasuredError
	for _, r := range rs {
		if r == nil || len(r.Trials) == 0 || len(r.ValidTrials()) > 0 {
			continue
		}
		reason := r.Trials[0].InvalidReason
		if reason == "" {
			reason = "no reason recorded"
		}
		e.Cells = append(e.Cells, UnmeasuredCell{Cell: r.Workload.Cell, Trials: len(r.Trials), Reason: reason})
	}
	if len(e.Cells) == 0 {
		return nil
	}
	return &e
}
