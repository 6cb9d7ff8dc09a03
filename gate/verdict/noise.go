package verdict

import (
	"math"
	"sort"

	"github.com/montanaflynn/stats"

	"github.com/perfgate/perfgate/gate/metrics"
)

// pendingCell is a cell while it is being decided: the test-scale values
// (logs for relative metrics) next to the Cell being filled in.
type pendingCell struct {
	cell   Cell
	sign   float64 // +1 lower-is-better, -1 higher-is-better
	tol    float64 // tolerance on the test scale
	xb, xc []float64
	// ss and df are the within-arm sum of squares and its degrees of
	// freedom (both arms), the cell's contribution to the metric's pool.
	ss, df float64
	// nonPositive: a relative metric with a zero value in some trial; a
	// ratio cannot be formed and the cell stays inconclusive.
	nonPositive bool
	// missing names the arm ("baseline", "candidate") that lacks this
	// gated metric: no test, the cell stays inconclusive.
	missing string
	// pooled is set when the metric's pool is usable and includes the cell.
	pooled bool
}

func newPending(workload string, m metrics.Metric, rule Rule, bv, cv []float64) *pendingCell {
	abs := Absolute(m.ID)
	pc := &pendingCell{
		cell: Cell{
			Workload:  workload,
			Metric:    m.ID,
			Label:     metrics.Label(m.ID),
			Unit:      m.Unit,
			Direction: m.Direction.String(),
			Gated:     rule.Gated,
			Absolute:  abs,
			Baseline:  summariseArm(bv, abs),
			Candidate: summariseArm(cv, abs),
			Tolerance: 100 * rule.Tolerance,
		},
		sign: 1,
	}
	if m.Direction == metrics.HigherIsBetter {
		pc.sign = -1
	}
	if abs {
		pc.tol = rule.Tolerance
		pc.xb, pc.xc = bv, cv
	} else {
		pc.tol = math.Log1p(rule.Tolerance)
		pc.xb, pc.xc = logs(bv, &pc.nonPositive), logs(cv, &pc.nonPositive)
	}
	for _, x := range [][]float64{pc.xb, pc.xc} {
		if len(x) >= 2 {
			mu := mean(x)
			for _, v := range x {
				pc.ss += (v - mu) * (v - mu)
			}
			pc.df += float64(len(x) - 1)
		}
	}
	return pc
}

func logs(v []float64, nonPositive *bool) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if x <= 0 {
			*nonPositive = true
			continue
		}
		out[i] = math.Log(x)
	}
	return out
}

// summariseArm fills an Arm from raw values.
func summariseArm(v []float64, abs bool) Arm {
	a := Arm{N: len(v), Values: append([]float64(nil), v...)}
	if len(v) == 0 {
		return a
	}
	sorted := append([]float64(nil), v...)
	sort.Float64s(sorted)
	if n := len(sorted); n%2 == 1 {
		a.Median = sorted[n/2]
	} else {
		a.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	if abs || sorted[0] <= 0 {
		a.Centre = mean(v)
	} else {
		var nz bool
		a.Centre = math.Exp(mean(logs(v, &nz)))
	}
	if len(v) >= 2 {
		sd := math.Sqrt(variance(v))
		if abs {
			a.CV = sd
		} else if m := mean(v); m > 0 {
			a.CV = sd / m
		}
	}
	return a
}

// mean and variance use montanaflynn/stats, whose sums are scaled so that
// large values (token counts per minute, say) neither overflow nor lose
// precision; the verdict only adds its conventions for short inputs.

// mean is the arithmetic mean; 0 for no values.
func mean(x []float64) float64 {
	m, err := stats.Mean(x)
	if err != nil {
		return 0
	}
	return m
}

// variance is the unbiased sample variance; 0 for fewer than 2 values.
func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	v, err := stats.SampleVariance(x)
	if err != nil {
		return 0
	}
	return v
}

// poolNoise pools, per metric, the within-arm spread of every workload's
// cell: trials of one metric are assumed to share one coefficient of
// variation across workloads (one spread on the log scale), which gives the
// t test tens of degrees of freedom instead of the 8 of a 5 + 5 cell. The
// assumption is checked: a cell whose spread is significantly larger than
// the rest's (one-sided F test at HeterogeneityAlpha) is left out of the
// pool and tested with its own spread. Metrics are never pooled with each
// other: a p99 is noisier than a median.
func poolNoise(cells []*pendingCell, p *Policy) []Noise {
	byMetric := map[string][]*pendingCell{}
	for _, pc := range cells {
		if !pc.nonPositive && pc.missing == "" {
			byMetric[pc.cell.Metric] = append(byMetric[pc.cell.Metric], pc)
		}
	}
	set := map[string]bool{}
	for id := range byMetric {
		set[id] = true
	}
	var out []Noise
	for _, id := range orderedIDs(set) {
		group := byMetric[id]
		var ssAll, dfAll float64
		for _, pc := range group {
			ssAll += pc.ss
			dfAll += pc.df
		}
		n := Noise{Metric: id}
		in := make([]bool, len(group))
		var ss, df float64
		for i, pc := range group {
			in[i] = true
			restDF := dfAll - pc.df
			if pc.df >= 2 && restDF >= 2 && p.HeterogeneityAlpha > 0 {
				own := pc.ss / pc.df
				rest := (ssAll - pc.ss) / restDF
				var pv float64
				switch {
				case own == 0:
					pv = 1
				case rest <= 0:
					pv = 0
				default:
					pv = fSurvival(own/rest, pc.df, restDF)
				}
				if pv < p.HeterogeneityAlpha {
					in[i] = false
					n.Excluded = append(n.Excluded, pc.cell.Workload)
					continue
				}
			}
			ss += pc.ss
			df += pc.df
			if pc.df > 0 {
				n.Pooled++
			}
		}
		n.DF = df
		if df > 0 {
			n.Sigma = math.Sqrt(ss / df)
		}
		n.Usable = df >= float64(p.MinPooledDF)
		for i, pc := range group {
			pc.pooled = n.Usable && in[i]
			if pc.pooled {
				pc.cell.Noise = CellNoise{Source: "pooled", Sigma: n.Sigma, DF: n.DF}
			}
		}
		out = append(out, n)
	}
	return out
}
