package history

import (
	"fmt"
	"math"
	"sort"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// NoiseFactor is how many times its usual within-session spread a run's
// spread may reach and still be promoted. A load spike that triples the
// trial-to-trial spread of a metric makes every later comparison against
// that baseline inconclusive (the 40 % TPOT spread let a real
// 10 % decode regression exit 0), while three times is far beyond what
// a quiet run's sample spread reaches by chance: with 5 trials, the
// sample SD exceeds 3x the true SD with probability below 1e-6.
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
	// Source of Usual: "calibration" (a Prior), "history" (the median
	// spread of the cell's promoted sessions), or "assumed" (the policy's
	// AssumedCV or AssumedAbs, when neither is known).
	Source string
}

// String is the message promotion refuses with (or records).
func (n Noisy) String() string {
	f := "%.1f %%"
	scale := 100.0
	if verdict.Absolute(n.Metric) {
		f = "%.2f points"
	}
	return fmt.Sprintf("workload %q: %s spread across trials is "+f+", more than %.0fx its usual "+f+" (%s)",
		n.Cell, n.Metric, scale*n.SD, NoiseFactor, scale*n.Usual, n.Source)
}

// CheckNoise returns the metrics of r (among metrics, the gated ones)
// whose within-session spread exceeds NoiseFactor times their usual
// spread: the calibrated within-session variance in priors when there is
// one, else the median spread of c's sessions when at least MinSessions
// have one, else the policy's assumed noise. c and priors may be nil.
func CheckNoise(r *result.Result, c *Cell, priors map[string]verdict.Prior, metrics []string, p verdict.Policy) []Noisy {
	var trials []map[string]float64
	for _, t := range r.ValidTrials() {
		trials = append(trials, t.Values)
	}
	sum := baseline.Summarise(trials)
	var out []Noisy
	for _, id := range metrics {
		s, ok := sum[id]
		if !ok || s.N < 2 {
			continue
		}
		usual, source := usualSpread(id, c, priors, p)
		floor := minUsualCV
		if verdict.Absolute(id) {
			floor = minUsualAbs
		}
		usual = math.Max(usual, floor)
		if s.SD > NoiseFactor*usual {
			out = append(out, Noisy{Cell: r.Workload.Cell, Metric: id, SD: s.SD, Usual: usual, Source: source})
		}
	}
	return out
}

func usualSpread(id string, c *Cell, priors map[string]verdict.Prior, p verdict.Policy) (float64, string) {
	if pr, ok := priors[id]; ok && pr.WithinDF > 0 && pr.WithinVar > 0 {
		return math.Sqrt(pr.WithinVar), pr.Source
	}
	if c != nil {
		var sds []float64
		for _, s := range c.Sessions {
			if sum, ok := s.Summary[id]; ok && sum.N >= 2 {
				sds = append(sds, sum.SD)
			}
		}
		if len(sds) >= MinSessions {
			sort.Float64s(sds)
			m := len(sds) / 2
			if len(sds)%2 == 0 {
				return (sds[m-1] + sds[m]) / 2, "history"
			}
			return sds[m], "history"
		}
	}
	if verdict.Absolute(id) {
		return p.AssumedAbs, "assumed"
	}
	return p.AssumedCV, "assumed"
}
