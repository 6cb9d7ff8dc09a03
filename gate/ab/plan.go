package ab

import (
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// PlanChange is the multiple of a cell's tolerance its plan is quoted
// for. A regression must be estimated beyond the tolerance, so a true
// change of exactly the tolerance is found at most half the time however
// many blocks run, and "blocks to find the tolerance with 80 % power"
// would always be "never"; twice the tolerance is the smallest round
// multiple every design can reach.
const PlanChange = 2

// PlanPower and PlanPass are the chances a plan is quoted at: 80 % power
// against a worsening, 90 % passes of an unchanged B (the MDE's and the
// pass tolerance's).
const (
	PlanPower = verdict.TargetPower
	PlanPass  = verdict.TargetPass
)

// BlocksToPass is the smallest number of blocks (a multiple of four) at
// which an unchanged B passes at Tolerance with at least the given chance,
// the design's other fields as they are; 0 when no number up to 400 does
// (resident servers: the between-session term alone can keep a cell from
// passing at any number of blocks).
func (d Design) BlocksToPass(chance float64) int {
	return smallestBlocks(func(n int) bool {
		d.Blocks = n
		return d.PassChance() >= chance
	})
}

// PlanOf is what cell's measured noise predicts for the experiment c
// (DesignOf): the power the blocks of its kept pairs have against a
// worsening of PlanChange times the tolerance, and the blocks that find
// that worsening with 80 % power or let an unchanged B pass in 90 % of
// runs. Compare sets it on every undecided gated cell (Cell.Plan); the
// seeded tests check it, through this function, against measured rates.
func PlanOf(c *verdict.Comparison, cell *verdict.Cell) verdict.BlockPlan {
	d := DesignOf(c, cell)
	change := PlanChange * d.Tolerance
	p := verdict.BlockPlan{
		Blocks:          d.Blocks,
		Change:          PlanChange * cell.Tolerance,
		Power:           d.Power(change),
		BlocksForChange: d.BlocksFor(change, PlanPower),
		BlocksToPass:    d.BlocksToPass(PlanPass),
	}
	return p
}

// plan sets the plan of every undecided gated cell (but those held for a
// busy runner, which blocks cannot decide) and the experiment's
// (the least power, the most blocks; 0 blocks, "none up to 400", wins).
func plan(c *verdict.Comparison, cells []*pairedCell) {
	var all *verdict.BlockPlan
	for _, pc := range cells {
		cell := &pc.cell
		if !pc.tested || !cell.Gated || cell.Outcome != verdict.Inconclusive || cell.Limit == verdict.LimitRunner {
			continue // a busy runner's hold: more blocks cannot lift it
		}
		p := PlanOf(c, cell)
		cell.Plan = &p
		if all == nil {
			all = &verdict.BlockPlan{Blocks: p.Blocks, Power: p.Power, BlocksForChange: p.BlocksForChange, BlocksToPass: p.BlocksToPass}
			continue
		}
		all.Blocks = max(all.Blocks, p.Blocks)
		all.Power = math.Min(all.Power, p.Power)
		all.BlocksForChange = most(all.BlocksForChange, p.BlocksForChange)
		all.BlocksToPass = most(all.BlocksToPass, p.BlocksToPass)
	}
	if c.AB != nil {
		c.AB.Plan = all
	}
}

// most is the larger of two block counts where 0 means "more than any".
func most(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	return max(a, b)
}

// blockSeconds is the mean wall-clock time of a block, start-up included:
// the time from the first block's start to the last's over the blocks
// between them. The last block's own length is not recorded, so it is
// left out; 0 with fewer than two blocks.
func blockSeconds(blocks []result.Block) float64 {
	var first, last time.Time
	n := 0
	for _, b := range blocks {
		if b.StartedAt.IsZero() {
			continue
		}
		if first.IsZero() || b.StartedAt.Before(first) {
			first = b.StartedAt
		}
		if b.StartedAt.After(last) {
			last = b.StartedAt
		}
		n++
	}
	if n < 2 || !last.After(first) {
		return 0
	}
	return last.Sub(first).Seconds() / float64(n-1)
}
