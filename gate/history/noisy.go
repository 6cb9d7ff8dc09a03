package history

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// NoiseAlpha is the chance that an ordinary session (one whose trials
// spread as the cell's past sessions did) is called noisier than usual on
// any of its gated metrics: each metric is tested at NoiseAlpha divided by
// the number of metrics (Bonferroni). A load spike that triples the
// trial-to-trial spread of a metric makes every later comparison against
// that baseline inconclusive (the 40 % TPOT spread let a real
// 10 % decode regression exit 0), so promotion refuses it; but a screen
// that refuses ordinary sessions stops the history from growing. The
// earlier rule (3x the median of the past sample spreads) refused 8.1 %
// of ordinary 5-trial promotions, 19.7 % of the 4th, because the median
// of three 4-df spreads is itself a noisy, low estimate; the F test
// below accounts for the degrees of freedom on both sides
// (TestNoiseScreenRefusesOrdinarySessionsRarely).
const NoiseAlpha = 1e-3

// NoiseFactor is the smallest multiple of its usual spread a metric's
// spread must reach to be called noisy, however many trials support it
// (the earlier rule's factor, so the screen is never stricter than it
// was, only less often wrong):
// with 20 trials and a long history the F test alone would refuse a
// spread 1.6x usual, a real but harmless change that, once it persists,
// would refuse every later night and freeze the history; and trials with
// heavier tails than normal reach 2x by chance more often than the F
// test allows (TestNoiseScreenRefusesOrdinarySessionsRarely's t(5) case).
const NoiseFactor = 3.0

// MinBaselineTrials is the fewest valid trials per cell a baseline should
// have; below it `perfgate baseline update` warns. A baseline is recorded
// once and compared many times, and its trial count bounds every later
// comparison's precision (docs/baselines.md: at CV 2 % a 5-trial baseline
// makes a clean pass at 3 % practically unreachable).
const MinBaselineTrials = 10

// Usual spreads are floored so that a history of exceptionally quiet runs
// does not refuse an ordinary one: 1 % for relative metrics, half a
// percentage point for ratio metrics.
const (
	minUsualCV  = 0.01
	minUsualAbs = 0.005
)

// Noisy is one metric of a run whose within-session spread is far above
// usual: SD and Usual on the test scale (about a CV for relative metrics).
type Noisy struct {
	Cell   string
	Metric string
	SD     float64
	Usual  float64
	// Source of Usual: "calibration" (a Prior), "history" (the pooled
	// spread of the cell's promoted sessions), or "assumed" (the policy's
	// AssumedCV or AssumedAbs, when neither is known).
	Source string
	// P is the F test's p-value of SD² against Usual² with DF and UsualDF
	// degrees of freedom (UsualDF is +Inf for an assumed spread).
	P           float64
	DF, UsualDF float64
}

// String is the message promotion refuses with (or records).
func (n Noisy) String() string {
	f := "%.1f %%"
	scale := 100.0
	if verdict.Absolute(n.Metric) {
		f = "%.2f points"
	}
	return fmt.Sprintf("workload %q: %s spread across trials is "+f+", %.1fx its usual "+f+" (%s); an ordinary session spreads that far with probability %.1g (F test on %.0f and %s df)",
		n.Cell, n.Metric, scale*n.SD, n.SD/n.Usual, scale*n.Usual, n.Source, n.P, n.DF, dfString(n.UsualDF))
}

func dfString(df float64) string {
	if math.IsInf(df, 1) {
		return "infinite"
	}
	return fmt.Sprintf("%.0f", df)
}

// CheckNoise returns the metrics of r (among metrics, the gated ones)
// whose within-session spread is significantly above their usual spread
// (an F test at NoiseAlpha over all the metrics) and at least NoiseFactor
// times it. The usual spread is the calibrated within-session variance
// in priors when there is one, else the pooled spread of c's sessions
// when at least MinSessions have one, else the policy's assumed noise
// (taken as known: infinite df). c and priors may be nil.
func CheckNoise(r *result.Result, c *Cell, priors map[string]verdict.Prior, metrics []string, p verdict.Policy) []Noisy {
	var trials []map[string]float64
	for _, t := range r.ValidTrials() {
		trials = append(trials, t.Values)
	}
	sum := baseline.Summarise(trials)
	alpha := NoiseAlpha / float64(max(len(metrics), 1))
	var out []Noisy
	for _, id := range metrics {
		s, ok := sum[id]
		if !ok || s.N < 2 {
			continue
		}
		usual, df2, source := usualSpread(id, c, priors, p)
		floor := minUsualCV
		if verdict.Absolute(id) {
			floor = minUsualAbs
		}
		usual = math.Max(usual, floor)
		k := cellKurtosis(c, id)
		df1 := effectiveDF(s.N, k)
		if source == "history" {
			df2 = pooledDF(c, id, k)
		}
		pv := verdict.FSurvival(sq(s.SD/usual), df1, df2)
		if pv < alpha && s.SD > NoiseFactor*usual {
			out = append(out, Noisy{Cell: r.Workload.Cell, Metric: id, SD: s.SD, Usual: usual, Source: source, P: pv, DF: df1, UsualDF: df2})
		}
	}
	return out
}

// pooledDF is the effective degrees of freedom of the pooled variance of
// c's sessions for metric id at excess kurtosis k: the pool weights each
// session by its n-1, so its variance is σ⁴ Σ w² (2/(n-1) + k/n).
func pooledDF(c *Cell, id string, k float64) float64 {
	var total float64
	var ns []int
	for _, s := range c.Sessions {
		if sum, ok := s.Summary[id]; ok && sum.N >= 2 {
			ns = append(ns, sum.N)
			total += float64(sum.N - 1)
		}
	}
	var v float64
	for _, n := range ns {
		w := float64(n-1) / total
		v += w * w * (2/float64(n-1) + k/float64(n))
	}
	return 2 / v
}

// usualSpread is a metric's usual within-session SD on the test scale,
// its degrees of freedom, and where it comes from.
func usualSpread(id string, c *Cell, priors map[string]verdict.Prior, p verdict.Policy) (sd, df float64, source string) {
	if pr, ok := priors[id]; ok && pr.WithinDF > 0 && pr.WithinVar > 0 {
		return math.Sqrt(pr.WithinVar), pr.WithinDF, pr.Source
	}
	if c != nil {
		var n int
		var ss, dfs float64
		for _, s := range c.Sessions {
			if sum, ok := s.Summary[id]; ok && sum.N >= 2 {
				n++
				ss += float64(sum.N-1) * sum.SD * sum.SD
				dfs += float64(sum.N - 1)
			}
		}
		if n >= MinSessions {
			return math.Sqrt(ss / dfs), dfs, "history"
		}
	}
	if verdict.Absolute(id) {
		return p.AssumedAbs, math.Inf(1), "assumed"
	}
	return p.AssumedCV, math.Inf(1), "assumed"
}
