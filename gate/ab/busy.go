package ab

import (
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// holdBusy applies the stored-baseline verdict's busy-runner rule
// (verdict.HoldBusyRunner) to the paired cells: a regression of B against
// A is inconclusive (verdict.LimitRunner) when any of arm B's valid trials
// of its workload ran on an unhealthy runner. Interleaving cancels what
// the two arms of a pair share, but a neighbour comes and goes within a
// block: one that loads the host during B's blocks slows B exactly as a
// regression would. A busy arm A only makes B look better, so it holds
// nothing, as a busy baseline holds nothing in `perfgate gate`. More
// blocks cannot lift the hold (the busy trials stay in the experiment),
// so plan quotes no blocks for these cells and NeedsTrials does not list
// them.
func holdBusy(cells []*pairedCell, b map[string]*result.Result) {
	cs := make([]*verdict.Cell, len(cells))
	for i, pc := range cells {
		cs[i] = &pc.cell
	}
	verdict.HoldBusyRunner(cs, b, "arm B's")
}
