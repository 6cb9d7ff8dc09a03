package noise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// simulateGate runs the gate's rules on seeded data: each arm is one
// session (offset ~ N(0, between)) of n trials (~ N(0, within)); the gate
// pools the arms' spread, adds the known between-session variance, and
// applies the pass rule and the regression rule (significant and beyond
// the tolerance) of the verdict on SE² = ŝ²_within·(2/n) + 2·between.
func simulateGate(c Components, d Design, tol, delta float64, runs int, seed uint64) (pass, regress float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	n := d.CandidateTrials
	sw, sb := math.Sqrt(c.Within), math.Sqrt(c.Between)
	var passes, regs int
	for range runs {
		arm := func(shift float64) (mean, ss float64) {
			a := shift + sb*r.NormFloat64()
			x := make([]float64, n)
			for i := range x {
				x[i] = a + sw*r.NormFloat64()
				mean += x[i]
			}
			mean /= float64(n)
			for _, v := range x {
				ss += (v - mean) * (v - mean)
			}
			return mean, ss
		}
		mb, ssb := arm(0)
		mc, ssc := arm(delta)
		df := float64(2*n - 2)
		tw := (ssb + ssc) / df * 2 / float64(n)
		se := math.Sqrt(tw + 2*c.Between)
		sdf := se * se * se * se / (tw * tw / df)
		w := mc - mb
		if w+verdict.TQuantile(1-d.PassAlpha, sdf)*se <= tol {
			passes++
		}
		if w/se > verdict.TQuantile(1-d.CellAlpha(), sdf) && w > tol {
			regs++
		}
	}
	return float64(passes) / float64(runs), float64(regs) / float64(runs)
}

// TestRatesMatchSimulation: the predicted pass rate of an unchanged build
// and the predicted power agree with seeded runs of the gate's rules
// within 3 percentage points (the issue asks for 5), with and without between-session noise.
func TestRatesMatchSimulation(t *testing.T) {
	runs := 4000
	if testing.Short() {
		runs = 1000
	}
	tol := math.Log1p(0.03)
	for i, tc := range []struct {
		within, between float64
		n               int
		delta           float64
	}{
		{0.02, 0, 5, math.Log1p(0.08)},
		{0.02, 0, 10, math.Log1p(0.08)},
		{0.01, 0.005, 5, math.Log1p(0.08)},
		{0.01, 0.03, 5, math.Log1p(0.15)},
		{0.02, 0.01, 10, math.Log1p(0.10)},
		{0.005, 0.002, 3, math.Log1p(0.05)},
	} {
		c := Components{Within: tc.within * tc.within, Between: tc.between * tc.between}
		d := design(tc.n)
		d.LookAlpha, d.Family = 0.01/3, 10
		simPass, _ := simulateGate(c, d, tol, 0, runs, uint64(2*i+1))
		_, simPow := simulateGate(c, d, tol, tc.delta, runs, uint64(2*i+2))
		pass, pow := c.PassProbability(d, tol), c.Power(d, tol, tc.delta)
		t.Logf("within %.3f between %.3f n %d: pass %.3f (simulated %.3f), power at %+.1f %% %.3f (simulated %.3f)",
			tc.within, tc.between, tc.n, pass, simPass, 100*math.Expm1(tc.delta), pow, simPow)
		if math.Abs(pass-simPass) > 0.03 || math.Abs(pow-simPow) > 0.03 {
			t.Errorf("within %.3f between %.3f n %d: predicted pass %.3f power %.3f, simulated %.3f %.3f",
				tc.within, tc.between, tc.n, pass, pow, simPass, simPow)
		}
	}
}

// TestRatesWithoutNoise: with no noise at all an unchanged build always
// passes, and a worsening beyond the tolerance is always found.
func TestRatesWithoutNoise(t *testing.T) {
	var c Components
	d := design(5)
	if p := c.PassProbability(d, 0.03); p != 1 {
		t.Errorf("pass %v, want 1", p)
	}
	if p := c.Power(d, 0.03, 0.05); p != 1 {
		t.Errorf("power beyond the tolerance %v, want 1", p)
	}
	if p := c.Power(d, 0.03, 0.02); p != 0 {
		t.Errorf("power within the tolerance %v, want 0", p)
	}
}
