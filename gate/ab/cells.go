package ab

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// pairedCell is a cell while it is being decided.
type pairedCell struct {
	cell verdict.Cell
	sign float64 // +1 lower-is-better, -1 higher-is-better
	tol  float64 // tolerance on the test scale
	// tested is false for a cell no test could be run on (a gated metric
	// one arm lacks, zeros, too few pairs): it stays inconclusive.
	tested          bool
	fit             fit
	n               verdict.Spread
	fixedDF         float64
	betweenSource   string
	pWorse, pBetter float64
}

// buildCells runs the test of every cell of one compared workload: the
// metrics verdict's selection gives it (verdict.Policy.Select), so a
// paired comparison gates exactly the metrics, rules and substitutes a
// stored-baseline comparison of the same files would.
func buildCells(w *verdict.Workload, a, b *result.Result, o Options, p *verdict.Policy) ([]*pairedCell, error) {
	sel, err := p.Select(b.Workload.Spec, verdict.Carried(a), verdict.Carried(b))
	if err != nil {
		return nil, fmt.Errorf("workload cell %q: %w", w.Cell, err)
	}
	w.Substitutions = sel.Substitutions
	var out []*pairedCell
	for _, s := range sel.Metrics {
		pc := newCell(w.Cell, s.Metric, s.Rule, a, b, o, p)
		s.Mark(&pc.cell)
		out = append(out, pc)
	}
	w.Warnings = append(w.Warnings, sel.Warnings...)
	return out, nil
}

// newCell builds and tests one (workload, metric) cell.
func newCell(workload string, m metrics.Metric, rule verdict.Rule, a, b *result.Result, o Options, p *verdict.Policy) *pairedCell {
	abs := verdict.Absolute(m.ID)
	av, bv := a.Samples(m.ID), b.Samples(m.ID)
	pc := &pairedCell{
		cell: verdict.Cell{
			Workload: workload, Metric: m.ID, Label: metrics.Label(m.ID), Unit: m.Unit,
			Direction: m.Direction.String(), Gated: rule.Gated, Absolute: abs,
			Baseline: verdict.ArmOf(av, abs), Candidate: verdict.ArmOf(bv, abs),
			Tolerance: 100 * rule.Tolerance,
		},
		sign: 1,
	}
	if m.Direction == metrics.HigherIsBetter {
		pc.sign = -1
	}
	pc.tol = rule.Tolerance
	if !abs {
		pc.tol = math.Log1p(rule.Tolerance)
	}
	c := &pc.cell
	if len(av) == 0 || len(bv) == 0 {
		arm := "B"
		if len(av) == 0 {
			arm = "A"
		}
		c.Outcome = verdict.Inconclusive
		c.Warnings = append(c.Warnings, fmt.Sprintf("gated metric %s is missing from arm %s: not compared, and the workload cannot pass until both arms carry it", m.ID, arm))
		return pc
	}
	order := a.AB.Order
	blocks := map[int][]float64{}
	nonPositive := false
	for _, r := range []*result.Result{a, b} {
		for _, t := range r.Trials {
			if v, ok := t.Values[m.ID]; ok && t.Valid {
				x, ok := verdict.TestValue(m.ID, v)
				if !ok {
					nonPositive = true
					continue
				}
				blocks[t.Block] = append(blocks[t.Block], x)
			}
		}
	}
	if nonPositive {
		c.Outcome = verdict.Inconclusive
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s is zero or negative in some trial: no paired log ratio can be formed", m.ID))
		return pc
	}
	pb := &verdict.PairedCell{}
	for i := 1; i <= len(order); i++ {
		if x := blocks[i]; len(x) > 0 {
			v, _ := verdict.MeanVar(x)
			if !abs {
				v = math.Exp(v)
			}
			pb.Values = append(pb.Values, verdict.BlockValue{Block: i, Arm: strings.ToLower(order[i-1 : i]), Trials: len(x), Value: v})
		}
	}
	dropped := dropOutlierBlocks(c, order, blocks, p)
	signs := pairSigns(order)
	var d, s []float64
	var quadOf []int
	var inv float64 // sum over kept pairs of 1/n_A + 1/n_B
	for k := range signs {
		ia, ib := 2*k+1, 2*k+2
		if order[2*k] == 'B' {
			ia, ib = ib, ia
		}
		xa, xb := blocks[ia], blocks[ib]
		if len(xa) == 0 || len(xb) == 0 {
			pb.Lost = append(pb.Lost, k+1)
			empty, arm := ia, "A"
			if len(xa) > 0 {
				empty, arm = ib, "B"
			}
			why := "has no valid trial of " + m.ID
			if dropped[empty] {
				why = "was left out as an outlier"
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("pair %d (blocks %d-%d) left out: block %d (arm %s) %s", k+1, 2*k+1, 2*k+2, empty, arm, why))
			continue
		}
		ma, _ := verdict.MeanVar(xa)
		mb, _ := verdict.MeanVar(xb)
		d, s, quadOf = append(d, mb-ma), append(s, signs[k]), append(quadOf, k/2)
		inv += 1/float64(len(xa)) + 1/float64(len(xb))
		pb.Pairs = append(pb.Pairs, pc.scale(mb-ma))
	}
	c.Blocks = pb
	f, ok := estimate(d, s, o.Estimator, quadOf)
	if !ok {
		c.Outcome = verdict.Inconclusive
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d complete block pair(s): at least 2 are needed for a paired test", len(d)))
		return pc
	}
	if o.Estimator == PairsDrift && f.used != PairsDrift {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d block pairs: too few to estimate the drift term (4 needed); the plain mean of the pairs is tested", len(d)))
	}
	// A pair's variance is never taken below the policy's per-trial floor
	// carried through the blocks' means, so a few identical blocks never
	// look infinitely certain.
	if floor := p.WithinFloor(abs) * inv / float64(len(d)); f.v < floor {
		f.v = floor
		f.se = math.Sqrt(f.v * f.c)
	}
	pb.Drift = pc.scale(f.drift)
	pc.fit, pc.tested = f, true
	pc.n = verdict.Spread{Est: f.se * f.se, DF: f.df}
	c.Noise = verdict.CellNoise{Source: "pairs", Sigma: math.Sqrt(f.v), WithinDF: f.df, BetweenSource: "pairs"}
	if o.Resident {
		v, df, src := p.Between(workload, m.ID)
		pc.n.Fixed, pc.fixedDF, pc.betweenSource = 2*v, df, src
		c.Noise.Between, c.Noise.BetweenDF, c.Noise.BetweenSource = math.Sqrt(v), df, src
	}
	se, df := pc.n.SE(), pc.n.Satterthwaite(pc.fixedDF)
	c.Noise.SE, c.Noise.DF = se, df
	dw := pc.sign * f.est
	t := dw / se
	pc.pWorse, pc.pBetter = verdict.TSurvival(t, df), verdict.TSurvival(-t, df)
	q := verdict.TQuantile(1-p.PassAlpha, df)
	c.CILevel = 1 - 2*p.PassAlpha
	c.Worse, c.CILow, c.CIHigh = pc.scale(dw), pc.scale(dw-q*se), pc.scale(dw+q*se)
	c.Change = pc.scale(f.est)
	c.PValue = pc.pBetter
	if dw >= 0 {
		c.PValue = pc.pWorse
	}
	c.PAdjusted = c.PValue
	return pc
}

// scale converts a test-scale difference to the reported scale: percent
// for relative metrics (capped at the largest float64), points for
// absolute ones.
func (pc *pairedCell) scale(x float64) float64 {
	if pc.cell.Absolute {
		return 100 * x
	}
	return math.Max(-math.MaxFloat64, math.Min(100*math.Expm1(x), math.MaxFloat64))
}

func (pc *pairedCell) format(v float64) string {
	if pc.cell.Absolute {
		return fmt.Sprintf("%.2fpp", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}
