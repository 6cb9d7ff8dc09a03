package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/verdict"
)

// ChangePlan writes `perfgate ab plan`'s answer for the experiment in dir
// (its comparison c) and a worsening of change, as the user spelled it:
// the experiment's blocks, one row per metric of the plan, and the blocks
// to run. It computes nothing; every number is p's (ab.ForChange).
func ChangePlan(w io.Writer, dir string, c *verdict.Comparison, p ab.ChangePlan, change string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d blocks (%s)", dir, c.AB.Blocks, c.AB.Order)
	if c.AB.BlockS > 0 {
		fmt.Fprintf(&b, ", %s per block measured (start-up included)", Duration(c.AB.BlockS))
	}
	fmt.Fprintf(&b, "; a worsening of %s, found with 80 %% power:\n\n", strings.TrimPrefix(change, "+"))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "WORKLOAD\tMETRIC\tTOLERANCE\tPOWER NOW\tBLOCKS\tTIME\tBLOCKS TO PASS UNCHANGED (90 %%)\n")
	for _, r := range p.Rows {
		cell := r.Cell
		pass := tableBlocks(r.BlocksToPass)
		if r.Within {
			fmt.Fprintf(tw, "%s\t%s\t%s\t–\twithin the tolerance\t–\t%s\n", cell.Workload, cell.Label, tableTolerance(cell), pass)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f %% at %d\t%s\t%s\t%s\n", cell.Workload, cell.Label, tableTolerance(cell), 100*r.Power, r.Blocks,
			tableBlocks(r.BlocksFor), tableTime(r.BlocksFor, c.AB.BlockS), pass)
	}
	tw.Flush()
	if p.Within > 0 {
		fmt.Fprintf(&b, "\n%d metric(s) have a tolerance of %s or more: a change within the tolerance is never called a regression.\n", p.Within, change)
	}
	switch {
	case p.Within == len(p.Rows):
	case p.Never:
		fmt.Fprintf(&b, "\nSome metric cannot find %s with 80 %% power within 400 blocks", change)
		if c.AB.Resident {
			fmt.Fprint(&b, " (resident servers: the between-session noise does not shrink with blocks; restart the servers per block)")
		}
		fmt.Fprintln(&b, ".")
	default:
		fmt.Fprintf(&b, "\nEvery gated metric with a smaller tolerance finds %s with 80 %% power at %d blocks%s: perfgate ab --blocks %d.\n",
			change, p.Most, costText(p.Most, c.AB.BlockS), p.Most)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableBlocks is a block count in the plan's table: "> 400" for 0.
func tableBlocks(n int) string {
	if n == 0 {
		return "> 400"
	}
	return strconv.Itoa(n)
}

// tableTime is what n blocks take at blockS seconds each, "–" unknown.
func tableTime(n int, blockS float64) string {
	if n == 0 || blockS <= 0 {
		return "–"
	}
	return Duration(float64(n) * blockS)
}

// tableTolerance is a cell's tolerance with its unit.
func tableTolerance(cell *verdict.Cell) string {
	t := strconv.FormatFloat(cell.Tolerance, 'f', -1, 64)
	if cell.Absolute {
		return t + " pp"
	}
	return t + " %"
}
