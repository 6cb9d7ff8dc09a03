package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/perfgate/perfgate/gate/verdict"
)

// The interval a row shows is the one its outcome was decided on
// (verdict.Cell.Decision): the family-wise interval of the regression and
// improvement tests, or the pass interval of a passing cell. A reader can
// then square every row: an interval wholly past the tolerance is a
// regression, one wholly inside it a pass (issue 23: "-9.3 % (80 % CI
// -13.6 to -4.8 %), tolerance 3 %, inconclusive" read as a contradiction,
// because the 80 % interval was not the one the regression test used).
// Comparisons written before Decision existed, and cells without a test,
// show the pass interval; a row whose shown interval still lies wholly past
// its tolerance says why it is not a regression (whyNot).

// shown is the interval a cell's row shows, direction-adjusted (positive =
// worse), its two-sided level and whether it is the family-wise one.
func decisionOf(cell *verdict.Cell) (lo, hi, lvl float64, familyWise bool) {
	if d := cell.Decision; d != nil {
		return d.Low, d.High, d.Level, d.Rule == verdict.DecisionFamilyWise
	}
	return cell.CILow, cell.CIHigh, cell.CILevel, false
}

// intervalName names the interval a cell's row shows: "family-wise
// 99.8 %" or "80 %".
func intervalName(cell *verdict.Cell) string {
	_, _, l, fw := decisionOf(cell)
	if fw {
		return "family-wise " + levelText(l)
	}
	return levelText(l)
}

// levelText formats a confidence level with as many decimals as keep it
// below 100 % (a family-wise level of 0.9996 is "99.96 %", never "100 %").
func levelText(l float64) string {
	if l <= 0 {
		return "90 %"
	}
	for prec := 1; prec <= 4; prec++ {
		v := round(l*100, prec)
		if v < 100 || prec == 4 {
			return strconv.FormatFloat(v, 'f', -1, 64) + " %"
		}
	}
	return "100 %"
}

// pastTolerance says whether the shown interval lies wholly past the
// tolerance on the worse side (+1), wholly beyond minus the tolerance on
// the better side (-1), or neither (0).
func pastTolerance(cell *verdict.Cell) int {
	lo, hi, _, _ := decisionOf(cell)
	switch {
	case lo > cell.Tolerance:
		return 1
	case hi < -cell.Tolerance:
		return -1
	}
	return 0
}

// whyNot is, for a gated row whose shown interval lies wholly past its
// tolerance without the matching outcome, why not, in a few words ("" when
// the row needs no explanation). It only compares numbers the comparison
// carries.
func whyNot(c *verdict.Comparison, cell *verdict.Cell) string {
	if !cell.Gated {
		return ""
	}
	past := pastTolerance(cell)
	if past == 0 || (past > 0 && cell.Outcome == verdict.Regression) || (past < 0 && cell.Outcome == verdict.Improvement) {
		return ""
	}
	what := "a regression"
	if past < 0 {
		what = "an improvement"
	}
	switch {
	case cell.Baseline.N == 0 || cell.Candidate.N == 0:
		return fmt.Sprintf("not %s: one run lacks the metric", what)
	case cell.PAdjusted > c.LookAlpha:
		return fmt.Sprintf("not %s: not significant across the %d gated metrics (adjusted p %s > α %s at this look)", what, c.Family, pValue(cell.PAdjusted), alphaText(c.LookAlpha))
	}
	return fmt.Sprintf("not %s: the estimate is inside the tolerance", what)
}

func alphaText(a float64) string {
	return strconv.FormatFloat(a, 'g', 3, 64)
}

// intervalLegend explains the intervals the rows show, once: which rule,
// which levels, against which family and alpha.
func intervalLegend(c *verdict.Comparison) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	pass, fw := 0.0, false
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		_, _, l, isFW := decisionOf(cell)
		if isFW {
			fw = true
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		} else if l > 0 {
			pass = l
		}
	}
	if !fw {
		return ""
	}
	levels := levelText(lo)
	if levelText(hi) != levels {
		levels = levelText(lo) + " to " + levelText(hi)
	}
	looks := ""
	if c.Look.Max > 1 {
		looks = fmt.Sprintf(", α %s of %s at look %d of %d", alphaText(c.LookAlpha), alphaText(c.Alpha), c.Look.Index, c.Look.Max)
	} else {
		looks = fmt.Sprintf(", α %s", alphaText(c.Alpha))
	}
	s := fmt.Sprintf("Intervals: the ones the outcomes were decided on, family-wise %s (Holm over %d gated metrics%s) for regressions, improvements and undecided metrics", levels, c.Family, looks)
	if pass > 0 {
		s += fmt.Sprintf(", the %s pass interval for passes", levelText(pass))
	}
	return s + "."
}
