package verdict

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/result"
)

// LimitRunner: the cell measured worse than its tolerance, but candidate
// trials it was judged on ran while the runner was unhealthy (a busy host,
// CPU steal, a throttled or shared GPU; gate/health), so the change
// cannot be told from the neighbour. Rerunning on an idle runner decides
// it; more trials on the busy one do not.
const LimitRunner Limit = "runner-busy"

// holdBusyRunner applies HoldBusyRunner to the cells of a stored-baseline
// comparison, whose candidate side is the candidate's results.
func holdBusyRunner(c *Comparison, cells []*pendingCell, cand map[string]*result.Result) {
	cs := make([]*Cell, len(cells))
	for i, pc := range cells {
		cs[i] = &pc.cell
	}
	HoldBusyRunner(cs, cand, "the candidate's")
}

// HoldBusyRunner keeps a busy runner from failing a change: a gated cell
// decided a regression whose candidate trials include any measured while
// the runner was unhealthy (health.BusyOf) becomes inconclusive with Limit
// LimitRunner and a warning that says what to do. A slower neighbour slows
// the candidate exactly as a regression would (an A/A compare on a loaded
// host called TTFT p99 +54.8 % a regression), and the health samples
// cannot say how much of the change is the neighbour's, so no share of
// busy trials is small enough to trust. Passes and improvements stand:
// a busy runner only makes the candidate look worse. cand holds the
// candidate side's results by workload cell (arm B's for gate/ab's
// paired verdict), side names them in the warning ("the candidate's",
// "arm B's").
//
// The warning carries no figure of the cell, so the report folds the
// cells of a workload into one note; the overall verdict is inconclusive
// (exit 4) unless another cell regressed on healthy trials. More trials
// on the same runner cannot lift it (the busy ones stay in the sample),
// so LimitRunner is not among the limits NeedsTrials adds trials for.
func HoldBusyRunner(cells []*Cell, cand map[string]*result.Result, side string) {
	byCell := map[string]health.Busy{}
	for _, cell := range cells {
		if !cell.Gated || cell.Outcome != Regression {
			continue
		}
		b, ok := byCell[cell.Workload]
		if !ok {
			if r := cand[cell.Workload]; r != nil {
				b = health.BusyOf(r.Trials)
			}
			byCell[cell.Workload] = b
		}
		if b.Busy == 0 {
			continue
		}
		cell.Outcome, cell.Limit = Inconclusive, LimitRunner
		cell.Warnings = append(cell.Warnings, fmt.Sprintf(
			"runner busy: %d of %s %d valid trials ran while the runner was unhealthy (%s), so a change measured worse than its tolerance there is not called a regression: the neighbour may have caused it; rerun on an idle runner (no other jobs on this host or GPU; each trial's health is in its result file)",
			b.Busy, side, b.Valid, strings.Join(b.Problems, ", ")))
	}
}
