package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sessionSeries is n sessions of one metric as the history holds them:
// each session's true level is offset by a between-session normal of sd
// between, and its trials (trials of them, within-session sd within) give
// the session's mean and sample SD. level(i) adds the injected change at
// session i (log scale).
func sessionSeries(rng *rand.Rand, n, trials int, between, within float64, level func(int) float64) Series {
	s := Series{Cell: "c", Metric: "tpot_ms.p50"}
	for i := 0; i < n; i++ {
		mu := math.Log(20) + between*rng.NormFloat64() + level(i)
		var sum, ss float64
		x := make([]float64, trials)
		for j := range x {
			x[j] = mu + within*rng.NormFloat64()
			sum += x[j]
		}
		m := sum / float64(trials)
		for _, v := range x {
			ss += (v - m) * (v - m)
		}
		s.Session = append(s.Session, i)
		s.Mean = append(s.Mean, m)
		s.SD = append(s.SD, math.Sqrt(ss/float64(trials-1)))
		s.N = append(s.N, trials)
	}
	return s
}

// rateRuns is the seeded series per scenario; never reduced: these are
// the documented rates.
const rateRuns = 1000

// The noise of the seeded series: between-session CV 2 %, within-session
// CV 1 % over 5 trials per session (the sessions of a nightly promotion).
const (
	rateBetween = 0.02
	rateWithin  = 0.01
	rateTrials  = 5
)

// exactly reports whether splits are exactly the sessions want.
func exactly(splits []Split, want ...int) bool {
	if len(splits) != len(want) {
		return false
	}
	for i, s := range splits {
		if s.At != want[i] {
			return false
		}
	}
	return true
}

// stepRate is the share of rateRuns seeded series of n runs, with a step
// of size (log) at run at, whose detected steps are exactly at.
func stepRate(d Detector, seed uint64, n, at int, size float64) float64 {
	rng := rand.New(rand.NewPCG(seed, uint64(1000*n+at)))
	found := 0
	for r := 0; r < rateRuns; r++ {
		s := sessionSeries(rng, n, rateTrials, rateBetween, rateWithin, func(i int) float64 {
			if i >= at {
				return size
			}
			return 0
		})
		if exactly(d.DetectSeries(s), at) {
			found++
		}
	}
	return float64(found) / rateRuns
}

// TestDetectorStepRates measures, over 1,000 seeded series each, how often
// a step is found at exactly its run (and nothing else), by series length
// (6, 8, 12, 30, 60 runs), size (3x and 5x the between-session noise of
// 2 %) and runs after it (3, 5, 8), and A/A series announcing nothing.
// The table is docs/statistics.md's; the assertions pin what holds: a
// step of 5x the noise is found at its run in >= 95 % with 5 runs after it
// from 12 runs on and with 3 runs after it from 30 runs on, and A/A series
// stay clean in >= 98.4 % (alpha 1 % less two standard errors of 1,000
// runs). The 95 % for a step of 3x the noise is out of reach of
// any detector at family-wise alpha 0.01, for two reasons measured here:
// with the noise known, its z of 4.9 (3 runs after, 60 runs) against the
// Bonferroni threshold of 3.9 over 55 positions gives 85 %; and "at
// exactly its run" fails whenever a session next to the step falls 1.5
// standard deviations towards the other level, 13 % of series, which is
// why 3x with 8 runs after stays near 83 % at any length.
func TestDetectorStepRates(t *testing.T) {
	d := DefaultDetector()
	for _, n := range []int{6, 8, 12, 30, 60} {
		rng := rand.New(rand.NewPCG(22, uint64(n)))
		clean := 0
		for r := 0; r < rateRuns; r++ {
			if len(d.DetectSeries(sessionSeries(rng, n, rateTrials, rateBetween, rateWithin, func(int) float64 { return 0 }))) == 0 {
				clean++
			}
		}
		pc := float64(clean) / rateRuns
		line := fmt.Sprintf("%2d runs: A/A clean %.1f %%", n, 100*pc)
		if pc < 0.984 {
			t.Errorf("%d runs: A/A clean in %.1f %% < 98.4 %%", n, 100*pc)
		}
		for _, sc := range []struct {
			k     float64
			after int
		}{{3, 3}, {3, 8}, {5, 3}, {5, 5}} {
			if n-sc.after < d.MinSize {
				continue
			}
			pf := stepRate(d, 22, n, n-sc.after, sc.k*rateBetween)
			line += fmt.Sprintf("; %.0fx, %d after: %.1f %%", sc.k, sc.after, 100*pf)
			if sc.k == 5 && (sc.after == 5 && n >= 12 || sc.after == 3 && n >= 30) && pf < 0.95 {
				t.Errorf("%d runs, step %.0fx the noise, %d runs after: found in %.1f %% < 95 %%", n, sc.k, sc.after, 100*pf)
			}
		}
		t.Log(line)
	}
}

// TestDetectorBumpRates: a regression that was reverted, up for 3 or 4
// runs and back, with at least 3 runs before and after, is found as its
// two steps (start and return, nothing else) in >= 90 % of 1,000 seeded
// series when it is 5x the between-session noise, at every length from the
// shortest (3 runs before and after) on; the rates at 3x are logged (the
// location limit of TestDetectorStepRates applies twice).
func TestDetectorBumpRates(t *testing.T) {
	d := DefaultDetector()
	for _, width := range []int{3, 4} {
		for _, k := range []float64{3, 5} {
			line := fmt.Sprintf("bump of %d runs, %.0fx the noise:", width, k)
			for _, n := range []int{width + 6, 12, 30, 60} {
				rng := rand.New(rand.NewPCG(23, uint64(100*width+n)))
				a := (n - width) / 2
				b := a + width
				found := 0
				for r := 0; r < rateRuns; r++ {
					s := sessionSeries(rng, n, rateTrials, rateBetween, rateWithin, func(i int) float64 {
						if i >= a && i < b {
							return k * rateBetween
						}
						return 0
					})
					if exactly(d.DetectSeries(s), a, b) {
						found++
					}
				}
				pf := float64(found) / rateRuns
				line += fmt.Sprintf(" %d runs %.1f %%;", n, 100*pf)
				if k == 5 && pf < 0.90 {
					t.Errorf("bump of %d runs, %.0fx, %d runs: found in %.1f %% < 90 %%", width, k, n, 100*pf)
				}
			}
			t.Log(line)
		}
	}
}

// TestDetectorFamilyWise: a profile of 10 cells x 8 gated metrics, each
// series 10 promoted A/A sessions (between-session CV 2 %, the issue's
// scenario where 26.7 % of gate runs announced a step): with Family set
// to the 80 series, a gate run announces a step in at most 1 % of 1,000
// seeded runs; without it (each series at 0.01) far more often.
func TestDetectorFamilyWise(t *testing.T) {
	for _, tc := range []struct {
		family int
		limit  float64
	}{{80, 0.01}, {1, 0}} {
		t.Run(fmt.Sprintf("family %d", tc.family), func(t *testing.T) {
			d := DefaultDetector()
			d.Family = tc.family
			rng := rand.New(rand.NewPCG(24, uint64(tc.family)))
			any := 0
			for r := 0; r < rateRuns; r++ {
				hit := false
				for k := 0; k < 80; k++ {
					if len(d.DetectSeries(sessionSeries(rng, 10, rateTrials, rateBetween, rateWithin, func(int) float64 { return 0 }))) > 0 {
						hit = true
					}
				}
				if hit {
					any++
				}
			}
			rate := float64(any) / rateRuns
			t.Logf("80 A/A series of 10 runs, family %d: a step announced in %.2f %% of gate runs", tc.family, 100*rate)
			if tc.limit > 0 && rate > tc.limit {
				t.Errorf("family-wise false steps %.2f %% > %.0f %%", 100*rate, 100*tc.limit)
			}
		})
	}
}
