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

// runnerBusy is what the candidate's valid trials of one workload cell
// say about the runner: how many were measured while it was unhealthy,
// out of how many, and the distinct problems (health.Unhealthy's labels)
// in the order first seen.
type runnerBusy struct {
	busy, valid int
	problems    []string
}

// busyRunner reads r's valid trials' runner health. Trials without health
// (not sampled, imported results) count as healthy: nothing says
// otherwise.
func busyRunner(r *result.Result) runnerBusy {
	var b runnerBusy
	if r == nil {
		return b
	}
	seen := map[string]bool{}
	for _, t := range r.Trials {
		if !t.Valid {
			continue
		}
		b.valid++
		ps := health.Unhealthy(t.Health, health.DefaultLimits)
		if len(ps) == 0 {
			continue
		}
		b.busy++
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				b.problems = append(b.problems, p)
			}
		}
	}
	return b
}

// holdBusyRunner keeps a busy runner from failing a change: a gated cell
// decided a regression whose candidate trials include any measured while
// the runner was unhealthy becomes inconclusive with Limit LimitRunner
// and a warning that says what to do. A slower neighbour slows the
// candidate exactly as a regression would (an A/A compare on a loaded
// host called TTFT p99 +54.8 % a regression), and the health samples
// cannot say how much of the change is the neighbour's, so no share of
// busy trials is small enough to trust. Passes and improvements stand:
// a busy runner only makes the candidate look worse.
//
// The warning carries no figure of the cell, so the report folds the
// cells of a workload into one note; the overall verdict is inconclusive
// (exit 4) unless another cell regressed on healthy trials.
func holdBusyRunner(c *Comparison, cells []*pendingCell, cand map[string]*result.Result) {
	byCell := map[string]runnerBusy{}
	for _, pc := range cells {
		cell := &pc.cell
		if !cell.Gated || cell.Outcome != Regression {
			continue
		}
		b, ok := byCell[cell.Workload]
		if !ok {
			b = busyRunner(cand[cell.Workload])
			byCell[cell.Workload] = b
		}
		if b.busy == 0 {
			continue
		}
		cell.Outcome, cell.Limit = Inconclusive, LimitRunner
		cell.Warnings = append(cell.Warnings, fmt.Sprintf(
			"runner busy: %d of the candidate's %d valid trials ran while the runner was unhealthy (%s), so a change measured worse than its tolerance there is not called a regression: the neighbour may have caused it; rerun on an idle runner (no other jobs on this host or GPU; each trial's health is in its result file)",
			b.busy, b.valid, strings.Join(b.problems, ", ")))
	}
}
