package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// The simulations of this file are the acceptance numbers of the
// two-level noise model (docs/statistics.md, "Observed error rates"):
// within-session noise that differs between workloads, noisy-neighbour
// trials, between-session offsets, and baselines of several sessions.

// world is one simulated suite: per (workload, metric) a within-session CV
// and a between-session CV, trials whose metrics are correlated through a
// prefill and a decode factor, and optionally noisy-neighbour hits.
type world struct {
	workloads int
	within    func(rng *rand.Rand) float64 // drawn once per workload and metric
	between   float64
	rho       float64 // within-trial correlation of a metric with its group
	hitShare  float64 // share of trials slowed by a noisy neighbour
	hit       float64 // their slowdown factor (latency x hit, throughput / hit)
	cv        map[string]float64
}

// group says which factor drives a metric and with which sign.
func group(id string) (int, float64) {
	switch id {
	case "ttft_ms.p50", "ttft_ms.p99":
		return 0, 1
	case "output_throughput", "request_throughput":
		return 1, -1
	}
	return 1, 1
}

// newWorld draws the per-cell within-session CVs.
func newWorld(rng *rand.Rand, workloads int, within func(*rand.Rand) float64, between float64) *world {
	w := &world{workloads: workloads, within: within, between: between, rho: 0.7, cv: map[string]float64{}}
	for i := 0; i < workloads; i++ {
		for _, id := range DefaultGated {
			w.cv[fmt.Sprintf("w%02d/%s", i, id)] = within(rng)
		}
	}
	return w
}

// session draws one server session of every workload: a between-session
// offset per (workload, metric) and n trials; factor multiplies one
// (workload, metric) (the injected change).
func (w *world) session(rng *rand.Rand, n int, inject string, factor float64) []*result.Result {
	var out []*result.Result
	sb := math.Sqrt(math.Log1p(w.between * w.between))
	for i := 0; i < w.workloads; i++ {
		cell := fmt.Sprintf("w%02d", i)
		offset := map[string]float64{}
		for _, id := range DefaultGated {
			offset[id] = sb * rng.NormFloat64()
		}
		vals := map[string][]float64{}
		for t := 0; t < n; t++ {
			z := [2]float64{rng.NormFloat64(), rng.NormFloat64()}
			hit := w.hitShare > 0 && rng.Float64() < w.hitShare
			for _, id := range DefaultGated {
				if id == "success_rate" {
					vals[id] = append(vals[id], 1)
					continue
				}
				g, sign := group(id)
				s := math.Sqrt(math.Log1p(w.cv[cell+"/"+id] * w.cv[cell+"/"+id]))
				e := s * (w.rho*sign*z[g] + math.Sqrt(1-w.rho*w.rho)*rng.NormFloat64())
				v := typical[id] * math.Exp(offset[id]+e)
				if hit {
					if sign < 0 {
						v /= w.hit
					} else {
						v *= w.hit
					}
				}
				if i == 0 && id == inject {
					v *= factor
				}
				vals[id] = append(vals[id], v)
			}
		}
		out = append(out, newResult(cell, vals))
	}
	return out
}

func uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(rng *rand.Rand) float64 { return lo + (hi-lo)*rng.Float64() }
}

func constant(v float64) func(*rand.Rand) float64 { return func(*rand.Rand) float64 { return v } }

// calibrate estimates a Prior per cell from k sessions of n trials each by
// the one-way random-effects method of moments, as `perfgate calibrate`
// does: within = MSW on k(n−1) df, between = max(0, (MSB − MSW)/n) on
// k−1 df.
func (w *world) calibrate(rng *rand.Rand, k, n int) Priors {
	sessions := make([][]*result.Result, k)
	for s := range sessions {
		sessions[s] = w.session(rng, n, "", 1)
	}
	out := Priors{}
	for i := 0; i < w.workloads; i++ {
		cell := fmt.Sprintf("w%02d", i)
		out[cell] = map[string]Prior{}
		for _, id := range DefaultGated {
			var means []float64
			var ssw float64
			for s := range sessions {
				var x []float64
				for _, v := range sessions[s][i].Samples(id) {
					x = append(x, math.Log(v))
				}
				mu := mean(x)
				means = append(means, mu)
				for _, v := range x {
					ssw += (v - mu) * (v - mu)
				}
			}
			msw := ssw / float64(k*(n-1))
			msb := float64(n) * variance(means)
			out[cell][id] = Prior{WithinVar: msw, WithinDF: float64(k * (n - 1)),
				BetweenVar: math.Max(0, (msb-msw)/float64(n)), BetweenDF: float64(k - 1), Source: "calibration"}
		}
	}
	return out
}

// TestSimulatedHeterogeneousNoise: workloads whose trial CVs differ (drawn
// per workload and metric from 1-4 % and from 0.5-8 %), correlated metrics,
// 5 and 10 trials per arm, both arms in one session: A/A runs report a
// false regression in at most alpha (1 %) of 2,000 runs. The pooled
// design of v1 reported 4.8 % at 1-4 % (docs/statistics.md).
func TestSimulatedHeterogeneousNoise(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	for i, sc := range []struct {
		lo, hi float64
		trials int
		runs   int
		limit  float64
	}{
		// Measured 1.00 % / 0.50 % and, at 0.5-8 % (where the spread
		// leaves no prior, see minPriorDF), 1.00 % / 0.80 %.
		{0.01, 0.04, 5, 2000, 0.01}, {0.01, 0.04, 10, 1000, 0.01},
		{0.005, 0.08, 5, 2000, 0.01}, {0.005, 0.08, 10, 1000, 0.01},
	} {
		t.Run(fmt.Sprintf("cv %.1f-%.0f%% n%d", 100*sc.lo, 100*sc.hi, sc.trials), func(t *testing.T) {
			runs := simRuns(t, sc.runs)
			rng := rand.New(rand.NewPCG(uint64(100+i), 3))
			p := oneSession()
			var s simCounts
			for r := 0; r < runs; r++ {
				w := newWorld(rng, simWorkloads, uniform(sc.lo, sc.hi), 0)
				sess := w.session(rng, sc.trials, "", 1)
				cand := w.session(rng, sc.trials, "", 1)
				cmp, err := Compare(sess, cand, p, Look{})
				if err != nil {
					t.Fatal(err)
				}
				s.count(cmp, "")
			}
			t.Logf("A/A, CV %.1f-%.0f%%, %d trials, correlated metrics, %d runs: any regression %.2f%%, pass %.1f%%",
				100*sc.lo, 100*sc.hi, sc.trials, s.runs, 100*s.rate(s.anyRegression), 100*s.rate(s.pass))
			if limit := slack(sc.limit); s.rate(s.anyRegression) > limit {
				t.Errorf("CV %.1f-%.0f%%, %d trials: false alarms %.2f%% > %.1f%%", 100*sc.lo, 100*sc.hi, sc.trials, 100*s.rate(s.anyRegression), 100*limit)
			}
		})
	}
}

// slack is the bound a rate over simRuns runs is checked against: alpha
// itself over the full count, more under -short and -race.
func slack(alpha float64) float64 {
	if reduced() {
		return alpha + 0.015
	}
	return alpha
}

// TestSimulatedNoisyNeighbour: 5 % of trials hit by a noisy neighbour
// (+30 % latency, throughput / 1.3) at CV 2 %, 5 trials, one session. The
// outlier-trial rule keeps A/A false alarms at or under alpha and finds
// the 8 % TPOT regression twice as often as without it (outlier_alpha 0:
// 36 %); with 70 % it does not reach the 90 % of clean trials, because a
// session with two hit trials keeps one (at most one is dropped).
func TestSimulatedNoisyNeighbour(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 1000)
	for _, rule := range []float64{DefaultPolicy().OutlierAlpha, 0} {
		p := oneSession()
		p.OutlierAlpha = rule
		rng := rand.New(rand.NewPCG(7, 7))
		var aa, pw simCounts
		outliers := 0
		for r := 0; r < runs; r++ {
			w := newWorld(rng, simWorkloads, constant(simCV), 0)
			w.hitShare, w.hit = 0.05, 1.3
			cmp, err := Compare(w.session(rng, simTrials, "", 1), w.session(rng, simTrials, "", 1), p, Look{})
			if err != nil {
				t.Fatal(err)
			}
			aa.count(cmp, "")
			for _, c := range cmp.Cells {
				outliers += len(c.Outliers)
			}
			if r%2 == 0 {
				cmp, err = Compare(w.session(rng, simTrials, "", 1), w.session(rng, simTrials, "tpot_ms.p50", 1.08), p, Look{})
				if err != nil {
					t.Fatal(err)
				}
				pw.count(cmp, "tpot_ms.p50")
			}
		}
		t.Logf("noisy neighbour (5%% of trials x1.3), outlier_alpha %g: A/A any regression %.2f%% of %d runs (%.1f outlier trials per run); tpot_ms.p50 +8%% named %.1f%% of %d",
			rule, 100*aa.rate(aa.anyRegression), aa.runs, float64(outliers)/float64(aa.runs), 100*pw.rate(pw.named), pw.runs)
		if rule > 0 {
			if aa.rate(aa.anyRegression) > slack(0.01) {
				t.Errorf("with the outlier rule: A/A false alarms %.2f%% > alpha", 100*aa.rate(aa.anyRegression))
			}
			if pw.rate(pw.named) < 0.65 {
				t.Errorf("with the outlier rule: +8%% named in %.1f%% < 65%%", 100*pw.rate(pw.named))
			}
		}
	}
}

// TestSimulatedOutlierCost: on clean trials (no neighbour) the outlier
// rule's false-alarm cost: how often it drops a good trial, and the A/A
// false-alarm rate with and without it.
func TestSimulatedOutlierCost(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 2000)
	for _, rule := range []float64{DefaultPolicy().OutlierAlpha, 0} {
		p := oneSession()
		p.OutlierAlpha = rule
		rng := rand.New(rand.NewPCG(8, 8))
		var s simCounts
		dropped, sessions := 0, 0
		for r := 0; r < runs; r++ {
			w := newWorld(rng, simWorkloads, uniform(0.01, 0.04), 0)
			cmp, err := Compare(w.session(rng, simTrials, "", 1), w.session(rng, simTrials, "", 1), p, Look{})
			if err != nil {
				t.Fatal(err)
			}
			s.count(cmp, "")
			for _, c := range cmp.Cells {
				if !c.Absolute {
					dropped += len(c.Outliers)
					sessions += 2
				}
			}
		}
		t.Logf("clean trials, CV 1-4%%, outlier_alpha %g, %d runs: good trials dropped in %.3f%% of sessions; A/A any regression %.2f%%",
			rule, runs, 100*float64(dropped)/float64(sessions), 100*s.rate(s.anyRegression))
		if rule > 0 && float64(dropped)/float64(sessions) > 5*rule {
			t.Errorf("outlier rule dropped good trials in %.3f%% of sessions, want about %.1f%%", 100*float64(dropped)/float64(sessions), 100*rule)
		}
		if s.rate(s.anyRegression) > slack(0.01) {
			t.Errorf("outlier_alpha %g: A/A false alarms %.2f%% > alpha", rule, 100*s.rate(s.anyRegression))
		}
	}
}
