package pipeline

import (
	"errors"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// NeverRan is the outcome of a gate whose server failed (or was
// interrupted) before it was ready: every cell is an incomplete result
// without trials whose reason is summary and whose server log is tail, so
// the gate writes its reports and PR comment (run failed, with the
// server's log) like any failed run. tool is recorded in the results.
func NeverRan(ms []*workload.Manifest, baselines []*result.Result, p verdict.Policy, summary, tail string, tool result.Tool) (*Outcome, error) {
	out := &Outcome{RunErr: errors.New(summary), Looks: 1}
	want := map[string]bool{}
	at := time.Now().UTC()
	for _, m := range ms {
		want[m.Cell] = true
		r := ByKind{}.NewResult(m, result.Server{LogTail: tail})
		r.Tool = tool
		r.StartedAt, r.FinishedAt = at, at
		r.Complete, r.IncompleteReason = false, summary
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
