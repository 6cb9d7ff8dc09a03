package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// ShownUndecided is how many undecided metrics the comment's table shows
// above the fold, ShownUndecidedBelowRegressions under a list of
// regressions (both must fit the first screen); the rest are collapsed
// under it.
const (
	ShownUndecided                 = 5
	ShownUndecidedBelowRegressions = 3
)

// decides is the one thing that would decide an undecided cell, in a few
// words, from what the comparison says limits it (verdict.Cell.Limit, the
// paired plan): more trials, a baseline with more trials, calibration, a
// wider tolerance, or an A/B run.
func decides(c *verdict.Comparison, cell *verdict.Cell) string {
	switch {
	case cell.Baseline.N == 0 || cell.Candidate.N == 0:
		return "both runs measuring it"
	case cell.Plan != nil && cell.Plan.BlocksToPass > 0:
		return fmt.Sprintf("%d blocks in all", max(cell.Plan.BlocksToPass, cell.Plan.BlocksForChange))
	case cell.Plan != nil:
		return "`perfgate ab --restart`"
	}
	switch cell.Limit {
	case verdict.LimitCandidate:
		if c.Look.Index < c.Look.Max {
			return "more trials (next look)"
		}
		return "more trials"
	case verdict.LimitBaseline:
		return "more baseline trials"
	case verdict.LimitRunner:
		return "an idle runner (runner busy)"
	case verdict.LimitBetween:
		switch src := cell.Noise.BetweenSource; {
		case src == "default" || src == "assumed":
			return "`perfgate calibrate`"
		case cell.PassTolerance > cell.Tolerance && cell.PassTolerance <= 3*cell.Tolerance:
			return "tolerance " + strings.TrimPrefix(worseText(cell, cell.PassTolerance), "+")
		}
		return "`perfgate ab`"
	}
	return "see the notes"
}

// undecidedTable is the table of undecided metrics, numbered on from *n:
// change with the interval the decision used, tolerance, and what decides
// each.
func undecidedTable(c *verdict.Comparison, rows []listed, n *int) string {
	var b strings.Builder
	b.WriteString("| Workload | Metric | Change (interval) | Tol. | Decides it |\n|---|---|---|--:|---|\n")
	for _, r := range rows {
		*n++
		cell := r.cell
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s | %s |\n", Escape(cell.Workload), Escape(cell.Label),
			nb(Change(cell)), nb(Interval(cell)), nb(Tolerance(cell)), decides(c, cell))
	}
	return b.String()
}

// undecidedPart is the undecided metrics: the first ShownUndecided open,
// the rest collapsed, numbered on from *n.
func undecidedPart(c *verdict.Comparison, inc []listed, regressed bool, n *int) string {
	if len(inc) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n**%d undecided metric(s)**, closest to failing first, with what would decide each\n\n", len(inc))
	open := ShownUndecided
	if regressed {
		open = ShownUndecidedBelowRegressions
	}
	shown := inc[:min(len(inc), open)]
	b.WriteString(undecidedTable(c, shown, n))
	if rest := inc[len(shown):]; len(rest) > 0 {
		b.WriteString(details(fmt.Sprintf("⚠️ %d more undecided metric(s)", len(rest)), undecidedTable(c, rest, n)))
	}
	return b.String()
}

// nb keeps a number and its unit on one line in a table cell (a no-break
// space before "%", "pp", "ms" ...): GitHub's 780 px column may wrap a
// cell, but never inside a number.
func nb(s string) string {
	return nbUnits.Replace(s)
}

var nbUnits = strings.NewReplacer(" %", "\u00a0%", " pp", "\u00a0pp", " ms", "\u00a0ms", " req/s", "\u00a0req/s", " tok/s", "\u00a0tok/s")
