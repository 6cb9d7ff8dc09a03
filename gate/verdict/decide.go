package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

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
	nb, nc := pc.nb(), len(pc.xc)
	floor := withinFloor(p, c.Absolute)
	assumed := math.Log1p(p.AssumedCV * p.AssumedCV)
	if c.Absolute {
		assumed = p.AssumedAbs * p.AssumedAbs
	}
	// Welch needs two trials per arm, whatever MinTrials says.
	minN := max(p.MinTrials, 2)
	low := nb < minN || nc < minN
	c.LowConfidence = low
	if low {
		c.Warnings = append(c.Warnings, fmt.Sprintf("too few trials (%d baseline, %d candidate; want %d each): assumed noise, low confidence", nb, nc, p.MinTrials))
	}
	w := math.Max(pc.within, floor)
	wDF := pc.withinDF
	c.Noise = CellNoise{Source: "moderated", PriorDF: wDF - pc.df}
	if wDF == pc.df {
		c.Noise.Source = "own"
	}
	if low {
		// Too few trials to check that this cell's noise is like the
		// others': the assumed noise (or the calibrated one), never less
		// than what the prior or the cell itself shows. Red must stay red
		// even for imported single-trial files.
		if pr, ok := p.Noise.Lookup(c.Workload, c.Metric); ok && pr.WithinDF > 0 {
			assumed = pr.WithinVar
		}
		w = math.Max(assumed, math.Max(w, pc.ownVar()))
		wDF = 0
		c.Noise = CellNoise{Source: "assumed"}
	}
	m, h := pc.baseShape()
	if m == 0 {
		m, h = 1, 1
	}
	kc, hc := pc.candShape()
	if kc == 0 {
		kc, hc = 1, 1/float64(max(nc, 1))
	}
	parts := sePart{
		cand:      w * hc / kc,
		base:      w * h / m,
		between:   pc.between * (1/kc + 1/m),
		withinDF:  wDF,
		betweenDF: pc.betweenDF,
	}
	se, df := parts.se(), parts.df()
	c.Noise.Sigma, c.Noise.DF, c.Noise.SE = math.Sqrt(w), df, se
	c.Noise.WithinDF = wDF
	c.Noise.Between, c.Noise.BetweenDF, c.Noise.BetweenSource = math.Sqrt(pc.between), pc.betweenDF, pc.betweenSource
	pc.parts = parts
	if c.Noise.Source == "own" && len(pc.xc) >= 2 {
		if pc.tooSpread {
			c.Warnings = append(c.Warnings, "tested with its own spread only (the workloads' spreads of this metric differ too much to fit a noise prior)")
		} else {
			c.Warnings = append(c.Warnings, "tested with its own spread only (too few workloads of this metric to fit a noise prior)")
		}
	}
	d := pc.sign * (pc.candLevel() - pc.baseLevel())
	t := d / se
	pWorse, pBetter = tSurvival(t, df), tSurvival(-t, df)
	q := tq.at(1-p.PassAlpha, df)
	c.CILevel = 1 - 2*p.PassAlpha
	c.Worse, c.CILow, c.CIHigh = pc.scale(d), pc.scale(d-q*se), pc.scale(d+q*se)
	c.Change = pc.scale(pc.sign * d)
	if d >= 0 {
		c.PValue = pWorse
	} else {
		c.PValue = pBetter
	}
	c.PAdjusted = c.PValue
	return pWorse, pBetter, true
}

// sePart splits the variance of a cell's estimate into what more
// candidate trials, more baseline trials, and neither can shrink.
type sePart struct {
	cand, base, between float64
	// Degrees of freedom of the within- and between-session variances;
	// 0 means taken as exact.
	withinDF, betweenDF float64
}

func (s sePart) se() float64 { return math.Sqrt(s.cand + s.base + s.between) }

// df is Satterthwaite's degrees of freedom of the sum; 0 (normal) when
// both variances are taken as exact.
func (s sePart) df() float64 {
	v := s.cand + s.base + s.between
	var den float64
	if s.withinDF > 0 {
		den += (s.cand + s.base) * (s.cand + s.base) / s.withinDF
	}
	if s.betweenDF > 0 {
		den += s.between * s.between / s.betweenDF
	}
	if den == 0 || v == 0 {
		return 0
	}
	return v * v / den
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
		// The family threshold of the first Holm step, the one a single
		// cell's regression has to pass when nothing else is significant.
		stepAlpha := la
		if cell.Gated && k > 0 {
			stepAlpha = la / float64(k)
		}
		se, df := cell.Noise.SE, cell.Noise.DF
		tH, q := tq.at(1-stepAlpha, df), tq.at(1-p.PassAlpha, df)
		mde := mdeOf(se, df, tH)
		cell.MDE = pc.scale(mde)
		cell.PassTolerance = pc.scale(passTolOf(se, df, q))
		cell.PassChance = passChance(se, df, q, pc.tol)
		if mde > pc.tol && cell.Gated {
			cell.Warnings = append(cell.Warnings, fmt.Sprintf("minimum detectable change %s exceeds the tolerance %s: add trials to detect a regression this small", pc.format(cell.MDE), pc.format(cell.Tolerance)))
		}
		w := pc.sign * (pc.candLevel() - pc.baseLevel())
		hi := w + q*se
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
		if cell.Outcome == Inconclusive && cell.Gated {
			pc.limit(w, tH, q, p)
		}
		pc.setDecision(la, k, tq) // decision.go
	}
}

// limit says what keeps an inconclusive gated cell undecided: with the
// current estimate w, would the cell be decided (pass, or a regression or
// improvement past the tolerance at the first Holm step's threshold tH)
// with unlimited candidate trials, or only with unlimited baseline trials
// as well? When not even then, the between-session term alone keeps it
// undecided and more trials of this session are wasted; the warning says
// what would decide it.
func (pc *pendingCell) limit(w, tH, q float64, p *Policy) {
	cell := &pc.cell
	decided := func(se float64) bool {
		return w+q*se <= pc.tol || (w > pc.tol && w >= tH*se) || (-w > pc.tol && -w >= tH*se)
	}
	s := pc.parts
	switch {
	case decided(math.Sqrt(s.base + s.between)):
		cell.Limit = LimitCandidate
		if s.base > s.cand {
			cell.Limit = LimitBaseline
			pc.baselineWarning()
		}
	case decided(math.Sqrt(s.between)):
		cell.Limit = LimitBaseline
		pc.baselineWarning()
	default:
		cell.Limit = LimitBetween
		var ways []string
		if pc.betweenSource == "default" || pc.betweenSource == "assumed" {
			ways = append(ways, "`perfgate calibrate` (measure the between-session noise)")
		}
		ways = append(ways, "more baseline sessions (a history segment)", "`trials.restarts` (the candidate over several starts of a server perfgate launches)", "`perfgate ab` (both builds in one session)",
			fmt.Sprintf("a tolerance of at least %s (an unchanged build would pass 90 %% of runs)", pc.format(cell.PassTolerance)))
		cell.Warnings = append(cell.Warnings, fmt.Sprintf("more trials cannot decide this cell: between-session noise (%s per session) alone keeps it undecided; what would decide it: %s",
			pc.format(pc.scale(math.Sqrt(pc.between))), strings.Join(ways, ", ")))
	}
}

// baselineWarning says, for a cell whose baseline trials are the limit,
// that the baseline is what needs more trials: perfgate gate adds trials to
// the candidate only, so without this the reader would expect more looks to
// decide a cell they barely help.
func (pc *pendingCell) baselineWarning() {
	pc.cell.Warnings = append(pc.cell.Warnings, fmt.Sprintf(
		"the baseline's %d trial(s) are the larger part of this cell's noise: a baseline recorded with more trials (or more sessions in its history) decides it sooner than more candidate trials",
		pc.cell.Baseline.N))
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
	c.Finish()
}

// Finish sorts c.Cells, counts the gated outcomes, picks the headline and
// sets the overall verdict from c.Cells and c.Workloads, exactly as
// Compare does. It is exported for comparisons built outside this package
// (the paired verdict of gate/ab), so that every comparison is summarised
// by one rule.
func (c *Comparison) Finish() {
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
