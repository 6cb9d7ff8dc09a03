package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPolygamma checks digamma and trigamma against known values: ψ(1) =
// −γ, ψ(1/2) = −γ − 2 log 2, ψ'(1) = π²/6, ψ'(1/2) = π²/2, and the
// recurrences at a large argument.
func TestPolygamma(t *testing.T) {
	const euler = 0.57721566490153286
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"digamma(1)", digamma(1), -euler},
		{"digamma(0.5)", digamma(0.5), -euler - 2*math.Ln2},
		{"digamma(10)", digamma(10), digamma(9) + 1.0/9},
		{"trigamma(1)", trigamma(1), math.Pi * math.Pi / 6},
		{"trigamma(0.5)", trigamma(0.5), math.Pi * math.Pi / 2},
		{"trigamma(10)", trigamma(10), trigamma(9) - 1.0/81},
	} {
		if math.Abs(c.got-c.want) > 1e-10 {
			t.Errorf("%s = %.12f, want %.12f", c.name, c.got, c.want)
		}
	}
	for _, x := range []float64{0.01, 0.3, 1, 4, 40, 4000} {
		if got := trigammaInverse(trigamma(x)); math.Abs(got-x) > 1e-6*x {
			t.Errorf("trigammaInverse(trigamma(%v)) = %v", x, got)
		}
	}
}

// TestFitPrior: equal variances give the pooled variance on all the
// cells' degrees of freedom (d0 capped at their total); variances drawn
// from the model (scaled inverse chi-square on d0 = 6) give a d0 of that
// order, whose lower bound is below it; too few cells give no prior.
func TestFitPrior(t *testing.T) {
	same := fitPrior([]float64{4e-4, 4e-4, 4e-4, 4e-4}, []float64{8, 8, 8, 8}, 1e-8, 8, true)
	if same.DF != 32 || math.Abs(same.V-4e-4) > 0.2e-4 {
		t.Errorf("equal variances: %+v, want 4e-4 on 32 df", same)
	}
	if p := fitPrior([]float64{1e-4, 9e-4}, []float64{8, 8}, 1e-8, 8, true); p.DF != 0 {
		t.Errorf("two cells: %+v, want no prior", p)
	}
	if p := fitPrior([]float64{1e-4, 2e-4, 3e-4}, []float64{1, 1, 1}, 1e-8, 8, true); p.DF != 0 {
		t.Errorf("3 df in all: %+v, want no prior (min_pooled_df 8)", p)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const d0, s0, d, g = 6.0, 4e-4, 8.0, 2000
	vs, dfs := make([]float64, g), make([]float64, g)
	chi2 := func(k float64) float64 {
		var s float64
		for i := 0; i < int(k); i++ {
			z := rng.NormFloat64()
			s += z * z
		}
		return s
	}
	for i := range vs {
		sigma2 := d0 * s0 / chi2(d0)
		vs[i], dfs[i] = sigma2*chi2(d)/d, d
	}
	point := fitPrior(vs, dfs, 1e-12, 8, false)
	bound := fitPrior(vs, dfs, 1e-12, 8, true)
	if math.Abs(point.DF-d0) > 1.5 || math.Abs(point.V-s0) > 0.1*s0 {
		t.Errorf("model draws: %+v, want d0 about %v, s0² about %v", point, d0, s0)
	}
	if bound.DF >= point.DF || bound.V != point.V {
		t.Errorf("lower bound %+v vs point %+v: want a smaller weight at the same location", bound, point)
	}
}

// TestFitPriorTooSpread: ten cells whose CVs span 0.5-8 % (a 256-fold
// range of variances) give a bounded d0 of at most minPriorDF, so the
// verdict fits no prior and tests each cell on its own spread; the point
// estimate (used only to judge outlier trials) still fits one.
func TestFitPriorTooSpread(t *testing.T) {
	var vs, dfs []float64
	for i := 0; i < 10; i++ {
		cv := 0.005 * math.Pow(16, float64(i)/9)
		vs, dfs = append(vs, math.Log1p(cv*cv)), append(dfs, 8)
	}
	if p := fitPrior(vs, dfs, 1e-8, 8, true); p.DF != 0 || !p.TooSpread {
		t.Errorf("CVs 0.5-8 %%: bounded prior %+v, want none", p)
	}
	if p := fitPrior(vs, dfs, 1e-8, 8, false); p.DF <= 0 {
		t.Errorf("CVs 0.5-8 %%: point estimate %+v, want a prior", p)
	}
}

// TestChi2Quantile checks the Wilson–Hilferty approximation against
// tabulated quantiles.
func TestChi2Quantile(t *testing.T) {
	for _, c := range []struct{ p, k, want float64 }{
		{0.2, 9, 5.380}, {0.25, 9, 5.899}, {0.5, 9, 8.343}, {0.2, 4, 1.649}, {0.1, 2, 0.2107},
	} {
		if got := chi2Quantile(c.p, c.k); math.Abs(got-c.want) > 0.03*c.want+0.01 {
			t.Errorf("chi2Quantile(%v, %v) = %.3f, want %.3f", c.p, c.k, got, c.want)
		}
	}
}
