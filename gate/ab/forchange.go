package ab

import "github.com/perfgate/perfgate/gate/verdict"

// ChangePlan is what a finished experiment's measured noise says of a
// worsening of Change (a fraction, or points when Absolute): for every
// gated metric on that scale with measured noise, the power the blocks
// run have against it and the blocks that would find it with 80 % power
// (`perfgate ab plan`).
type ChangePlan struct {
	Change   float64
	Absolute bool
	Rows     []ChangeRow
	// Most is the most blocks a row needs to find the change; Never says
	// some row cannot within 400 blocks; Within counts the rows whose
	// tolerance holds the change, which is then never a regression.
	Most   int
	Never  bool
	Within int
}

// ChangeRow is one metric's part of a ChangePlan.
type ChangeRow struct {
	Cell *verdict.Cell
	// Within: the change is at most the tolerance, so no number of
	// blocks calls it a regression (one is estimated beyond the
	// tolerance); Power and BlocksFor are then unset.
	Within bool
	// Power is the chance the Blocks run find the change.
	Power  float64
	Blocks int
	// BlocksFor finds the change with PlanPower (0: more than 400);
	// BlocksToPass passes an unchanged B with PlanPass (0: likewise).
	BlocksFor, BlocksToPass int
}

// ForChange plans a worsening of change over c's gated metrics on its
// scale (percent, or points when absolute), each by its own design
// (DesignOf).
func ForChange(c *verdict.Comparison, change float64, absolute bool) ChangePlan {
	p := ChangePlan{Change: change, Absolute: absolute}
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated || cell.Absolute != absolute || !(cell.Noise.SE > 0) {
			continue
		}
		d := DesignOf(c, cell)
		row := ChangeRow{Cell: cell, Blocks: d.Blocks, BlocksToPass: d.BlocksToPass(PlanPass)}
		if change <= d.Tolerance {
			row.Within = true
			p.Within++
		} else {
			row.Power, row.BlocksFor = d.Power(change), d.BlocksFor(change, PlanPower)
			p.Never = p.Never || row.BlocksFor == 0
			p.Most = max(p.Most, row.BlocksFor)
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}
