package ab

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// decide applies Holm within the gated family (once for regressions, once
// for improvements, each one-sided family controlled at the look's alpha)
// and sets every cell's outcome by verdict's rules: a regression is
// significantly worse and worse than the tolerance, an improvement the
// mirror image, a pass has the worse end of its interval inside the
// tolerance, anything else is inconclusive. The predictions (MDE, pass
// tolerance, pass chance) are the exact ones of verdict.Exact at the measured
// noise.
func decide(c *verdict.Comparison, cells []*pairedCell, p *verdict.Policy) {
	la := c.LookAlpha
	var gated []*pairedCell
	for _, pc := range cells {
		if pc.tested && pc.cell.Gated {
			gated = append(gated, pc)
		}
	}
	k := len(gated)
	c.Family = k
	worse, better := make([]float64, k), make([]float64, k)
	for i, pc := range gated {
		worse[i], better[i] = pc.pWorse, pc.pBetter
	}
	adjW, adjB := verdict.Holm(worse), verdict.Holm(better)
	for i, pc := range gated {
		if pc.cell.Worse >= 0 {
			pc.cell.PAdjusted = adjW[i]
		} else {
			pc.cell.PAdjusted = adjB[i]
		}
	}
	for _, pc := range cells {
		if !pc.tested {
			continue // inconclusive with a warning already
		}
		cell := &pc.cell
		stepAlpha := la
		if cell.Gated && k > 0 {
			stepAlpha = la / float64(k)
		}
		df := cell.Noise.DF
		r := verdict.Exact{Spread: pc.n, TH: verdict.TQuantile(1-stepAlpha, df), Q: verdict.TQuantile(1-p.PassAlpha, df), Tol: pc.tol}
		mde := r.MDE()
		cell.MDE = pc.scale(mde)
		cell.PassTolerance = pc.scale(r.PassTolerance())
		cell.PassChance = r.Pass(0)
		if mde > pc.tol && cell.Gated {
			cell.Warnings = append(cell.Warnings, fmt.Sprintf("minimum detectable change %s exceeds the tolerance %s: add blocks to detect a regression this small", pc.format(cell.MDE), pc.format(cell.Tolerance)))
		}
		w := pc.sign * pc.fit.est
		se := pc.n.SE()
		hi := w + r.Q*se
		switch {
		case cell.Worse >= 0 && cell.PAdjusted <= la && w > pc.tol:
			cell.Outcome = verdict.Regression
		case cell.Worse < 0 && cell.PAdjusted <= la && -w > pc.tol:
			cell.Outcome = verdict.Improvement
		case hi <= pc.tol:
			cell.Outcome = verdict.Pass
		default:
			cell.Outcome = verdict.Inconclusive
		}
		if cell.Outcome == verdict.Inconclusive && cell.Gated {
			pc.limit(w, r)
		}
		// The interval the outcome was decided on, by verdict's one rule.
		cell.Decision = verdict.DecisionFor(cell, la, k, w, pc.scale)
	}
}

// limit says what keeps an inconclusive gated cell undecided. More blocks
// shrink the pairs' part of the variance (verdict.LimitCandidate: the
// workload is listed by Comparison.NeedsTrials, and `perfgate ab` extends
// the order for another look); with resident servers the between-session
// term does not shrink, and when it alone keeps the cell undecided
// (verdict.LimitBetween) more blocks are wasted and the warning says what
// would decide it.
func (pc *pairedCell) limit(w float64, r verdict.Exact) {
	cell := &pc.cell
	decided := func(se float64) bool {
		return w+r.Q*se <= pc.tol || (w > pc.tol && w >= r.TH*se) || (-w > pc.tol && -w >= r.TH*se)
	}
	if pc.n.Fixed == 0 || decided(math.Sqrt(pc.n.Fixed)) {
		cell.Limit = verdict.LimitCandidate
		return
	}
	cell.Limit = verdict.LimitBetween
	var ways []string
	if pc.betweenSource == "default" || pc.betweenSource == "assumed" {
		ways = append(ways, "`perfgate calibrate` (measure the between-session noise)")
	}
	ways = append(ways, "restarting both arms' servers per block (the per-start offset then averages out over the pairs)",
		fmt.Sprintf("a tolerance of at least %s (an unchanged B would pass 90 %% of runs)", pc.format(cell.PassTolerance)))
	cell.Warnings = append(cell.Warnings, fmt.Sprintf("more blocks cannot decide this cell: each arm is one server session, and the between-session noise (%s per session) alone keeps it undecided; what would decide it: %s",
		pc.format(pc.scale(math.Sqrt(pc.n.Fixed/2))), strings.Join(ways, ", ")))
}
