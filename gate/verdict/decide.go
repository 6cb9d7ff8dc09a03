package verdict

import (
	"fmt"
	"math"
	"sort"
)

// power is the power the minimum detectable effect is quoted at.
const power = 0.8

// test computes the cell's estimate, standard error and one-sided p-values.
// It returns false when no test is possible (non-positive values of a
// relative metric).
func (pc *pendingCell) test(p *Policy, tq *quantiles) (pWorse, pBetter float64, ok bool) {
	c := &pc.cell
	if pc.missing != "" {
		c.Outcome = Inconclusive
		c.Warnings = append(c.Warnings, fmt.Sprintf("gated metric %s is missing from the %s: not compared, and the workload cannot pass until both runs carry it", c.Metric, pc.missing))
		return 1, 1, false
	}
	if pc.nonPositive {
		return pc.testZero(p) // zero.go
	}
	nb, nc := float64(len(pc.xb)), float64(len(pc.xc))
	floor, assumed := p.MinCV, p.AssumedCV
	if c.Absolute {
		floor, assumed = p.MinAbs, p.AssumedAbs
	} else {
		// A log-normal with coefficient of variation v has log-sd
		// sqrt(log(1+v^2)).
		floor = math.Sqrt(math.Log1p(floor * floor))
		assumed = math.Sqrt(math.Log1p(assumed * assumed))
	}
	// Welch needs two trials per arm, whatever MinTrials says.
	low := int(nb) < max(p.MinTrials, 2) || int(nc) < max(p.MinTrials, 2)
	c.LowConfidence = low
	if low {
		c.Warnings = append(c.Warnings, fmt.Sprintf("too few trials (%d baseline, %d candidate; want %d each): assumed noise, low confidence", int(nb), int(nc), p.MinTrials))
	}
	var se, df float64
	switch {
	case low:
		// Too few trials to check that this cell's noise is like the
		// others': the policy's assumed noise, never less than what the
		// pool or the cell itself shows. Red must stay red even for
		// imported single-trial files.
		s := assumed
		if pc.pooled {
			s = math.Max(s, c.Noise.Sigma)
		}
		if pc.df > 0 {
			s = math.Max(s, math.Sqrt(pc.ss/pc.df))
		}
		se, df = s*math.Sqrt(1/nb+1/nc), 0
		c.Noise = CellNoise{Source: "assumed", Sigma: s}
	case pc.pooled:
		s := math.Max(c.Noise.Sigma, floor)
		se, df = s*math.Sqrt(1/nb+1/nc), c.Noise.DF
		c.Noise.Sigma = s
	default:
		// Welch on the cell's own spread.
		vb := math.Max(variance(pc.xb), floor*floor) / nb
		vc := math.Max(variance(pc.xc), floor*floor) / nc
		se = math.Sqrt(vb + vc)
		df = (vb + vc) * (vb + vc) / (vb*vb/(nb-1) + vc*vc/(nc-1))
		c.Noise = CellNoise{Source: "own", Sigma: math.Sqrt((variance(pc.xb) + variance(pc.xc)) / 2)}
		c.Warnings = append(c.Warnings, "tested with its own spread only (no usable pooled noise for this metric, or noisier than the other workloads)")
	}
	c.Noise.DF, c.Noise.SE = df, se
	w := pc.sign * (mean(pc.xc) - mean(pc.xb))
	t := w / se
	pWorse, pBetter = tSurvival(t, df), tSurvival(-t, df)
	q := tq.at(1-p.PassAlpha, df)
	c.CILevel = 1 - 2*p.PassAlpha
	c.Worse, c.CILow, c.CIHigh = pc.scale(w), pc.scale(w-q*se), pc.scale(w+q*se)
	c.Change = pc.scale(pc.sign * w)
	if w >= 0 {
		c.PValue = pWorse
	} else {
		c.PValue = pBetter
	}
	c.PAdjusted = c.PValue
	return pWorse, pBetter, true
}

// scale converts a test-scale difference to the reported scale: percent
// for relative metrics, percentage points for absolute ones.
//
// A relative change beyond e^709 (a baseline of 1e-300 against a candidate
// of 1e15) overflows to +Inf, which the comparison's JSON cannot carry: it
// is capped at the largest float64, which reports as "+1.8e+308 %".
func (pc *pendingCell) scale(x float64) float64 {
	if pc.cell.Absolute {
		return 100 * x
	}
	return math.Max(-math.MaxFloat64, math.Min(100*math.Expm1(x), math.MaxFloat64))
}

// decide tests every cell, applies Holm within the gated family (once for
// regressions, once for improvements: each one-sided family is controlled
// at the look's alpha), and sets the outcomes.
func decide(c *Comparison, cells []*pendingCell, p *Policy) {
	la := c.LookAlpha
	tq := &quantiles{}
	type tested struct {
		pc              *pendingCell
		pWorse, pBetter float64
	}
	var gated []tested
	for _, pc := range cells {
		pw, pb, ok := pc.test(p, tq)
		if ok && pc.cell.Gated {
			gated = append(gated, tested{pc, pw, pb})
		}
	}
	k := len(gated)
	c.Family = k
	worse, better := make([]float64, k), make([]float64, k)
	for i, g := range gated {
		worse[i], better[i] = g.pWorse, g.pBetter
	}
	adjW, adjB := holm(worse), holm(better)
	for i, g := range gated {
		if g.pc.cell.Worse >= 0 {
			g.pc.cell.PAdjusted = adjW[i]
		} else {
			g.pc.cell.PAdjusted = adjB[i]
		}
	}
	for _, pc := range cells {
		cell := &pc.cell
		if pc.nonPositive || pc.missing != "" {
			continue // already inconclusive with a warning
		}
		// The family threshold of the last Holm step, the one a single
		// cell's regression has to pass when nothing else is significant.
		stepAlpha := la
		if cell.Gated && k > 0 {
			stepAlpha = la / float64(k)
		}
		se, df := cell.Noise.SE, cell.Noise.DF
		mde := (tq.at(1-stepAlpha, df) + tq.at(power, df)) * se
		cell.MDE = pc.scale(mde)
		if mde > pc.tol && cell.Gated {
			cell.Warnings = append(cell.Warnings, fmt.Sprintf("minimum detectable change %s exceeds the tolerance %s: add trials to detect a regression this small", pc.format(cell.MDE), pc.format(cell.Tolerance)))
		}
		w := pc.sign * (mean(pc.xc) - mean(pc.xb))
		hi := w + tq.at(1-p.PassAlpha, df)*se
		significantWorse := cell.Worse >= 0 && cell.PAdjusted <= la
		significantBetter := cell.Worse < 0 && cell.PAdjusted <= la
		switch {
		case significantWorse && w > pc.tol:
			cell.Outcome = Regression
		case significantBetter && -w > pc.tol:
			cell.Outcome = Improvement
		case hi <= pc.tol:
			cell.Outcome = Pass
		default:
			cell.Outcome = Inconclusive
		}
	}
}

func (pc *pendingCell) format(v float64) string {
	if pc.cell.Absolute {
		return fmt.Sprintf("%.2fpp", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// outcomeRank orders gated cells in Cells: regressions first.
var outcomeRank = map[Outcome]int{Regression: 0, Inconclusive: 1, Improvement: 2, Pass: 3}

// summarise sorts cells, counts outcomes, picks the headline and sets the
// overall verdict.
func summarise(c *Comparison, cells []*pendingCell) {
	c.Cells = make([]Cell, 0, len(cells))
	for _, pc := range cells {
		c.Cells = append(c.Cells, pc.cell)
	}
	sort.SliceStable(c.Cells, func(i, j int) bool {
		a, b := &c.Cells[i], &c.Cells[j]
		if a.Gated != b.Gated {
			return a.Gated
		}
		if a.Gated && a.Outcome != b.Outcome {
			return outcomeRank[a.Outcome] < outcomeRank[b.Outcome]
		}
		if a.Gated && a.Outcome == Regression && a.PAdjusted != b.PAdjusted {
			return a.PAdjusted < b.PAdjusted
		}
		return false // stable: workload order, then metric report order
	})
	var worst *Cell
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		switch cell.Outcome {
		case Regression:
			c.Regressions++
			if worst == nil || worst.Outcome != Regression || cell.PAdjusted < worst.PAdjusted ||
				(cell.PAdjusted == worst.PAdjusted && cell.Worse-cell.Tolerance > worst.Worse-worst.Tolerance) {
				worst = cell
			}
		case Inconclusive:
			c.Inconclusives++
			if worst == nil || (worst.Outcome == Inconclusive && cell.CIHigh-cell.Tolerance > worst.CIHigh-worst.Tolerance) {
				worst = cell
			}
		case Improvement:
			c.Improvements++
		case Pass:
			c.Passes++
		}
	}
	if worst != nil {
		h := *worst
		c.Headline = &h
	}
	invalid := false
	for _, w := range c.Workloads {
		if w.Status != Compared && !w.Allowed {
			invalid = true
		}
	}
	switch {
	case c.Regressions > 0:
		c.Verdict = Regression
	case invalid:
		c.Verdict = Invalid
	case c.Family == 0:
		c.Verdict = Invalid
		c.Warnings = append(c.Warnings, "no gated cell could be compared: nothing was checked")
	case c.Inconclusives > 0:
		c.Verdict = Inconclusive
	default:
		c.Verdict = Pass
	}
}

// quantiles memoises t quantiles within one comparison: cells of a pooled
// metric share their degrees of freedom, and a quantile costs a bisection.
type quantiles map[[2]float64]float64

func (q *quantiles) at(p, df float64) float64 {
	if *q == nil {
		*q = quantiles{}
	}
	k := [2]float64{p, df}
	if v, ok := (*q)[k]; ok {
		return v
	}
	v := tQuantile(p, df)
	(*q)[k] = v
	return v
}
