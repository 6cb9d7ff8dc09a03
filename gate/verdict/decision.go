package verdict

import "math"

// Decision is the interval a gated cell's outcome was decided on, so that a
// report can show numbers a reader can square with the outcome (issue 23:
// "-9.3 % (80 % CI -13.6 to -4.8 %), tolerance 3 %, inconclusive" looked
// wrong because the regression test runs at the family-wise, per-look
// level, not at the pass interval's).
//
// Two rules decide a cell (docs/statistics.md):
//   - a regression (improvement) needs the change to be significant after
//     Holm's correction over the gated family at this look's alpha, and the
//     estimate beyond the tolerance;
//   - a pass needs the upper end of the pass interval (level CILevel,
//     Cell.CILow/CIHigh) inside the tolerance.
//
// Rule "family-wise" is the first: a two-sided interval at level
// 1 - 2*a, where a = LookAlpha * PValue / PAdjusted is the one-sided level
// at which the cell's own Holm step tested it (between LookAlpha/Family and
// LookAlpha/(Family-rank+1); smaller when an earlier step of the step-down
// bound it). Its end on the estimate's side excludes zero exactly when the
// cell is significant, so an interval wholly past the tolerance is a
// regression (or improvement), and one wholly inside it is a pass: it is
// wider than the pass interval whenever LookAlpha <= PassAlpha, as every
// policy's defaults are. Rule "pass" is the pass interval itself, the one a
// passing cell was decided on.
//
// Low and High are direction-adjusted like Worse (positive = worse), in
// percent for relative metrics and points for absolute ones. Added to
// schema v2 without a version change: older comparisons lack it, and a
// report then shows the pass interval (Cell.CILow/CIHigh).
type Decision struct {
	Rule  string  `json:"rule"`  // DecisionFamilyWise or DecisionPass
	Level float64 `json:"level"` // two-sided confidence of Low..High
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// The rules a Decision names.
const (
	DecisionFamilyWise = "family-wise"
	DecisionPass       = "pass"
)

// setDecision fills the gated cell's Decision once its outcome is set. la is
// the look's alpha, k the size of the gated family. Cells without a test
// (a missing metric, a zero value) get none.
func (pc *pendingCell) setDecision(la float64, k int, tq *quantiles) {
	if pc.nonPositive || pc.missing != "" {
		return
	}
	d := pc.sign * (pc.candLevel() - pc.baseLevel())
	pc.cell.Decision = decisionFor(&pc.cell, la, k, d, pc.scale, tq.at)
}

// DecisionFor is the Decision of a tested gated cell whose outcome, p-values
// and noise (Noise.SE, Noise.DF) are set: lookAlpha is the look's alpha,
// family the gated family's size, w the direction-adjusted estimate on the
// test scale and scale its conversion to the reported one. It is exported
// for comparisons built outside this package (the paired verdict of
// gate/ab), so that every comparison's decision interval follows one rule;
// nil for an ungated cell or one without a usable standard error.
func DecisionFor(cell *Cell, lookAlpha float64, family int, w float64, scale func(float64) float64) *Decision {
	return decisionFor(cell, lookAlpha, family, w, scale, tQuantile)
}

func decisionFor(cell *Cell, la float64, k int, w float64, scale func(float64) float64, quantile func(p, df float64) float64) *Decision {
	se, df := cell.Noise.SE, cell.Noise.DF
	if !cell.Gated || se <= 0 || math.IsNaN(se) || math.IsInf(se, 0) {
		return nil
	}
	if cell.Outcome == Pass {
		return &Decision{Rule: DecisionPass, Level: cell.CILevel, Low: cell.CILow, High: cell.CIHigh}
	}
	a := la / float64(max(k, 1))
	if cell.PAdjusted > 0 && cell.PValue > 0 {
		a = math.Min(la, la*cell.PValue/cell.PAdjusted)
	}
	q := quantile(1-a, df)
	return &Decision{Rule: DecisionFamilyWise, Level: 1 - 2*a, Low: scale(w - q*se), High: scale(w + q*se)}
}
