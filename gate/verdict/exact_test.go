package verdict

import (
	"math"
	"testing"
)

// TestChanceIntegrals checks the χ² grid: the chances agree with a grid
// eight times finer, and with many degrees of freedom they tend to the
// normal-theory values.
func TestChanceIntegrals(t *testing.T) {
	for _, df := range []float64{1, 2, 3.5, 6, 14, 60, 400} {
		r := Exact{Spread: Spread{Est: 0.01 * 0.01, DF: df}, TH: 4, Q: 1.4, Tol: 0.03}
		fine := func(f func(float64) float64) float64 {
			k := df / 2
			lo, hi := -math.Max(10/math.Sqrt(k), 25/k), math.Max(10/math.Sqrt(k), math.Log1p((40+10*math.Sqrt(k))/k))
			n := 8*gridPoints(df) + 1
			var s, ws float64
			for i := 0; i < n; i++ {
				y := lo + (hi-lo)*float64(i)/float64(n-1)
				w := math.Exp(k * (y - math.Exp(y) + 1))
				s += w * f(math.Sqrt(r.Est*math.Exp(y)))
				ws += w
			}
			return s / ws
		}
		se := r.SE()
		wantPower := fine(func(s float64) float64 { return normSurvival((math.Max(r.Tol, r.TH*s) - 0.05) / se) })
		if got := r.Power(0.05); math.Abs(got-wantPower) > 1e-3 {
			t.Errorf("df %v: power %v, finer grid %v", df, got, wantPower)
		}
		wantPass := fine(func(s float64) float64 { return 1 - normSurvival((r.Tol-r.Q*s)/se) })
		if got := r.Pass(0); math.Abs(got-wantPass) > 1e-3 {
			t.Errorf("df %v: pass %v, finer grid %v", df, got, wantPass)
		}
	}
	r := Exact{Spread: Spread{Est: 0.01 * 0.01, DF: 1e6}, TH: 3, Q: 1.28, Tol: 0.03}
	if got, want := r.Pass(0), 1-normSurvival(3-1.28); math.Abs(got-want) > 1e-3 {
		t.Errorf("df 1e6: pass %v, normal %v", got, want)
	}
}
