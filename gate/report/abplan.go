package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// The plan of an undecided A/B experiment: what the blocks run could
// decide and how many blocks would decide each undecided gated metric.
// The numbers are gate/ab's (Cell.Plan, Paired.Plan, from each cell's
// measured noise); the report only multiplies blocks by the measured time
// per block to say what they cost.

// undecidedPlans are the gated cells that carry a plan, in the
// comparison's order.
func undecidedPlans(c *verdict.Comparison) []*verdict.Cell {
	var out []*verdict.Cell
	for i := range c.Cells {
		if cell := &c.Cells[i]; cell.Gated && cell.Plan != nil {
			out = append(out, cell)
		}
	}
	return out
}

// blocksText is a plan's block count: "40 blocks", or "more than 400
// blocks" for 0 (no number up to gate/ab's bound decides it).
func blocksText(n int) string {
	if n == 0 {
		return "more than 400 blocks"
	}
	return fmt.Sprintf("%d blocks", n)
}

// costText is what n blocks cost at the measured time per block,
// " (about 72 min)", "" when either is unknown.
func costText(n int, blockS float64) string {
	if n == 0 || blockS <= 0 {
		return ""
	}
	return fmt.Sprintf(" (about %s)", Duration(float64(n)*blockS))
}

// Duration formats seconds as people read a run's length ("45 s",
// "72 min", "2.5 h"); `perfgate ab plan` prints its times with it too, so
// the plan and the report word a cost alike.
func Duration(s float64) string {
	switch {
	case s < 10:
		// A simulator's block takes well under a second; "0 s" would
		// read as free.
		return fmt.Sprintf("%.2g s", s)
	case s < 100:
		return fmt.Sprintf("%.0f s", s)
	case s < 6000:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// planChange formats a plan's change with the cell's unit.
func planChange(cell *verdict.Cell, v float64) string {
	if cell.Absolute {
		return Points(v)
	}
	return Percent(v)
}

// planTolerance formats a tolerance-sized value without its sign.
func planTolerance(cell *verdict.Cell, v float64) string {
	return strings.TrimPrefix(planChange(cell, v), "+")
}

// chance formats a probability as a whole percent.
func chance(p float64) string { return fmt.Sprintf("%.0f %%", 100*p) }

// planSummary is the experiment's line: how many gated metrics are
// undecided, the least power of the blocks run against twice their
// tolerance, and the blocks (and time) that would let an unchanged B pass
// all of them or find that worsening in all of them. "" without a plan.
func planSummary(c *verdict.Comparison) string {
	cells := undecidedPlans(c)
	if c.AB == nil || c.AB.Plan == nil || len(cells) == 0 {
		return ""
	}
	p := c.AB.Plan
	s := fmt.Sprintf("%d gated metric(s) undecided at %d blocks, which find a worsening of twice the tolerance with at least %s power. "+
		"Deciding all of them takes %s in all for an unchanged B to pass in 90 %% of runs%s, and %s%s to find a worsening of twice the tolerance with 80 %% power",
		len(cells), p.Blocks, chance(p.Power), blocksText(p.BlocksToPass), costText(p.BlocksToPass, c.AB.BlockS),
		blocksText(p.BlocksForChange), costText(p.BlocksForChange, c.AB.BlockS))
	if c.AB.BlockS > 0 {
		s += fmt.Sprintf(", at the measured %s per block", Duration(c.AB.BlockS))
	}
	return s + "."
}

// planPart is the markdown of the plan: the experiment's line and,
// collapsed, one row per undecided gated metric. "" without a plan.
func planPart(d *Data) string {
	c := d.Comparison
	line := planSummary(c)
	if line == "" {
		return ""
	}
	var rows strings.Builder
	fmt.Fprintf(&rows, "From each metric's measured noise (the spread of its block pairs): the chance the %d blocks run find a worsening of twice the tolerance, the smallest tolerance an unchanged B would pass in 90 %% of runs, and the blocks (both arms, in all) that would decide it.\n\n", c.AB.Plan.Blocks)
	rows.WriteString("| Workload | Metric | Tolerance | Smallest passable tolerance | Twice the tolerance | Power now | Blocks to find it (80 %) | Blocks to pass unchanged (90 %) |\n|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, cell := range undecidedPlans(c) {
		p := cell.Plan
		power := chance(p.Power)
		if p.Blocks != c.AB.Plan.Blocks {
			power += fmt.Sprintf(" (%d blocks kept)", p.Blocks)
		}
		fmt.Fprintf(&rows, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", Escape(cell.Workload), Escape(cell.Label), Tolerance(cell),
			planTolerance(cell, cell.PassTolerance), planChange(cell, p.Change), power,
			strings.TrimSuffix(blocksText(p.BlocksForChange), " blocks"), strings.TrimSuffix(blocksText(p.BlocksToPass), " blocks"))
	}
	return "\n" + Escape(line) + "\n" + details("What more blocks would decide", rows.String())
}

// planText is the terminal report's plan: the experiment's line and one
// line per undecided gated metric. "" without a plan.
func planText(d *Data) string {
	c := d.Comparison
	line := planSummary(c)
	if line == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(plain(line) + "\n")
	for _, cell := range undecidedPlans(c) {
		p := cell.Plan
		fmt.Fprintf(&b, "  %s: finds %s with %s power at %d blocks, passes an unchanged B from a tolerance of %s; %s to find %s (80 %%), %s to pass at %s (90 %%)\n",
			plain(cell.Workload+": "+cell.Label), planChange(cell, p.Change), chance(p.Power), p.Blocks, planTolerance(cell, cell.PassTolerance),
			blocksText(p.BlocksForChange), planChange(cell, p.Change), blocksText(p.BlocksToPass), Tolerance(cell))
	}
	return b.String()
}
