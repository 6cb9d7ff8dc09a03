package ab

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
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
	n               noise
	fixedDF         float64
	betweenSource   string
	pWorse, pBetter float64
}

// buildCells collects, for every directional metric either arm carries,
// the block values and pair differences, and runs each cell's test.
func buildCells(w *verdict.Workload, a, b *result.Result, rules map[string]verdict.Rule, o Options, p *verdict.Policy) ([]*pairedCell, error) {
	aIDs, bIDs := carried(a), carried(b)
	rules, err := forFiles(rules, b.Workload.Spec, aIDs, bIDs)
	if err != nil {
		return nil, fmt.Errorf("workload cell %q: %w", w.Cell, err)
	}
	ids := map[string]bool{}
	for _, set := range []map[string]bool{aIDs, bIDs} {
		for id := range set {
			ids[id] = true
		}
	}
	var out []*pairedCell
	for _, id := range orderedIDs(ids) {
		m, ok := metrics.Lookup(id)
		if !ok || m.Direction == metrics.Informational {
			continue
		}
		rule, ok := rules[id]
		if !ok {
			rule = verdict.Rule{Metric: id, Tolerance: verdict.DefaultTolerance(id)}
		}
		if (!aIDs[id] || !bIDs[id]) && !rule.Gated {
			continue
		}
		out = append(out, newCell(w.Cell, m, rule, a, b, o, p))
	}
	var absent []string
	for id, r := range rules {
		if r.Gated && !ids[id] {
			absent = append(absent, id)
		}
	}
	sort.Strings(absent)
	for _, id := range absent {
		w.Warnings = append(w.Warnings, fmt.Sprintf("gated metric %s is in neither arm; not compared", id))
	}
	return out, nil
}

// newCell builds and tests one (workload, metric) cell.
func newCell(workload string, m metrics.Metric, rule verdict.Rule, a, b *result.Result, o Options, p *verdict.Policy) *pairedCell {
	abs := verdict.Absolute(m.ID)
	av, bv := values(a, m.ID), values(b, m.ID)
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
			if x, ok := t.Values[m.ID]; ok && t.Valid {
				if !abs {
					if x <= 0 {
						nonPositive = true
						continue
					}
					x = math.Log(x)
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
			v, _ := meanVar(x)
			if !abs {
				v = math.Exp(v)
			}
			pb.Values = append(pb.Values, verdict.BlockValue{Block: i, Arm: strings.ToLower(order[i-1 : i]), Trials: len(x), Value: v})
		}
	}
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
			c.Warnings = append(c.Warnings, fmt.Sprintf("pair %d (blocks %d-%d) left out: block %d (arm %s) has no valid trial of %s", k+1, 2*k+1, 2*k+2, empty, arm, m.ID))
			continue
		}
		ma, _ := meanVar(xa)
		mb, _ := meanVar(xb)
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
	pc.n = noise{pairs: f.se * f.se, df: f.df}
	c.Noise = verdict.CellNoise{Source: "pairs", Sigma: math.Sqrt(f.v), WithinDF: f.df, BetweenSource: "pairs"}
	if o.Resident {
		v, df, src := p.Between(workload, m.ID)
		pc.n.fixed, pc.fixedDF, pc.betweenSource = 2*v, df, src
		c.Noise.Between, c.Noise.BetweenDF, c.Noise.BetweenSource = math.Sqrt(v), df, src
	}
	se, df := pc.n.se(), pc.n.satterthwaite(pc.fixedDF)
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

// forFiles drops, for a command cell (an offline engine benchmark, whose
// files carry offline_* metrics only), the rules that come only from the
// policy for metrics neither arm carries, as verdict.Compare does: the
// policy's serving metrics would otherwise each be "in neither arm". The
// cell's own gate list applies in full.
func forFiles(rules map[string]verdict.Rule, spec json.RawMessage, a, b map[string]bool) (map[string]verdict.Rule, error) {
	s, err := result.Workload{Spec: spec}.ParseSpec()
	if err != nil {
		return nil, err
	}
	if s.Kind != result.KindCommand {
		return rules, nil
	}
	named := map[string]bool{}
	for _, g := range s.Gate {
		named[g.Metric] = true
	}
	out := make(map[string]verdict.Rule, len(rules))
	for id, r := range rules {
		if named[id] || a[id] || b[id] {
			out[id] = r
		}
	}
	return out, nil
}

// values is metric id's values over r's valid trials that carry it.
func values(r *result.Result, id string) []float64 { return r.Samples(id) }

// carried is the set of metric ids some valid trial of r carries.
func carried(r *result.Result) map[string]bool {
	ids := map[string]bool{}
	for _, t := range r.ValidTrials() {
		for id := range t.Values {
			ids[id] = true
		}
	}
	return ids
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

// orderedIDs sorts metric ids in the catalogue's report order, unknown ids
// last by name, as verdict orders its cells.
func orderedIDs(set map[string]bool) []string {
	rank := map[string]int{}
	for i, id := range metrics.All() {
		rank[id] = i
	}
	at := func(id string) int {
		if r, ok := rank[id]; ok {
			return r
		}
		return len(rank)
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if at(ids[i]) != at(ids[j]) {
			return at(ids[i]) < at(ids[j])
		}
		return ids[i] < ids[j]
	})
	return ids
}
