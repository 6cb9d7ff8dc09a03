package history

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The method-of-moments estimates are unbiased: averaged over seeded
// histories of 10 sessions x 5 trials (between CV 3 %, within CV 1 %),
// they come within 10 % of the true variances.
func TestPriorRecoversBothVariances(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const reps = 400
	var between, within, bdf float64
	for r := 0; r < reps; r++ {
		c := FromLines("chat", nightly(rng, 10, 5, 0.03, 0.01, flat))
		p, ok := c.Prior("tpot_ms.p50", 0, 9)
		if !ok {
			t.Fatal("no prior from 10 sessions")
		}
		if p.Source != "history" || p.WithinDF != 40 || p.BetweenDF < 1 || p.BetweenDF > 9 {
			t.Fatalf("prior %+v", p)
		}
		between += p.BetweenVar / reps
		within += p.WithinVar / reps
		bdf += p.BetweenDF / reps
	}
	if math.Abs(between/sq(0.03)-1) > 0.1 || math.Abs(within/sq(0.01)-1) > 0.1 {
		t.Errorf("mean estimates: between %.3g (want %.3g), within %.3g (want %.3g)", between, sq(0.03), within, sq(0.01))
	}
	t.Logf("between CV %.2f %%, within CV %.2f %%, mean between df %.1f", 100*math.Sqrt(between), 100*math.Sqrt(within), bdf)
}

func TestPriorNeedsThreeSessions(t *testing.T) {
	c := FromLines("chat", nightly(rand.New(rand.NewPCG(1, 1)), 2, 5, 0.03, 0.01, flat))
	if _, ok := c.Prior("tpot_ms.p50", 0, 1); ok {
		t.Error("a prior from two sessions")
	}
	if len(c.Priors(0, 1)) != 0 {
		t.Error("priors from two sessions")
	}
}

func TestPriorClampsANegativeBetweenEstimate(t *testing.T) {
	// Identical session levels: MSB < MSW, the between variance is 0 on
	// k-1 degrees of freedom, never negative.
	lines := nightly(rand.New(rand.NewPCG(1, 1)), 4, 3, 0, 0.01, flat)
	for i := range lines {
		lines[i].Trials = lines[0].Trials
		lines[i].Summary = lines[0].Summary
	}
	p, ok := FromLines("chat", lines).Prior("tpot_ms.p50", 0, 3)
	if !ok || p.BetweenVar != 0 || p.BetweenDF != 3 || p.WithinVar <= 0 {
		t.Errorf("prior %+v", p)
	}
}

// Ratio metrics are on the raw scale (verdict.Absolute).
func TestPriorOfARatioMetricIsRaw(t *testing.T) {
	c := FromLines("chat", nightly(rand.New(rand.NewPCG(1, 1)), 5, 3, 0.03, 0.01, flat))
	if p, ok := c.Prior("success_rate", 0, 4); !ok || p.WithinVar != 0 || p.BetweenVar != 0 {
		t.Errorf("success_rate prior %+v, %v: a constant 1 has no variance", p, ok)
	}
}
