package noise

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) }

// TestOneWayByHand checks the fit against ANOVA tables worked out by hand.
func TestOneWayByHand(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		groups                 [][]float64
		within, withinDF       float64
		between, betweenDF     float64
		satt                   float64 // Satterthwaite's df, shown only
		truncated              bool
		wantSessions, wantVals int
	}{
		// Balanced: means 2, 5, 8, grand 5; SSW 6 on 6 df, MSW 1; SSB
		// 3·(9+0+9) = 54 on 2 df, MSB 27; n0 = 3; between (27-1)/3;
		// df K-1 = 2 (Satterthwaite 26² / (27²/2 + 1²/6)).
		{"balanced", [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, 1, 6, 26.0 / 3, 2, 676 / (364.5 + 1.0/6), false, 3, 9},
		// Unbalanced, sizes 2, 3, 1: means 2, 4, 10, grand 26/6; SSW
		// 2+8+0 = 10 on 3 df; SSB 2(2-13/3)² + 3(4-13/3)² + (10-13/3)² =
		// 130/3 on 2 df, MSB 65/3; n0 = (6 - 14/6)/2 = 11/6; between
		// (65/3 - 10/3)/(11/6) = 10; df 2 (Satterthwaite (55/3)² /
		// ((65/3)²/2 + (10/3)²/3)).
		{"unbalanced", [][]float64{{1, 3}, {2, 4, 6}, {10}}, 10.0 / 3, 3, 10, 2, (55.0 / 3) * (55.0 / 3) / ((65.0/3)*(65.0/3)/2 + (10.0/3)*(10.0/3)/3), false, 3, 6},
		// Equal session means: SSB 0, the moment estimate is -MSW/n0 < 0,
		// truncated to 0 on K-1 df. MSW (2 + 0.5)/4.
		{"truncated", [][]float64{{1, 2, 3}, {1.5, 2, 2.5}}, 2.5 / 4, 4, 0, 1, 0, true, 2, 6},
		// Empty sessions are skipped, not counted.
		{"empty session", [][]float64{{1, 2, 3}, {}, {4, 5, 6}, {7, 8, 9}}, 1, 6, 26.0 / 3, 2, 676 / (364.5 + 1.0/6), false, 3, 9},
	} {
		e, err := OneWay(tc.groups)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !near(e.WithinVar, tc.within, 1e-12) || e.WithinDF != tc.withinDF ||
			!near(e.BetweenVar, tc.between, 1e-12) || !near(e.BetweenDF, tc.betweenDF, 1e-12) || !near(e.SatterthwaiteDF, tc.satt, 1e-12) ||
			e.Truncated != tc.truncated || e.Sessions != tc.wantSessions || e.Trials != tc.wantVals {
			t.Errorf("%s: got %+v\nwant within %v/%v between %v/%v truncated %v", tc.name, e, tc.within, tc.withinDF, tc.between, tc.betweenDF, tc.truncated)
		}
	}
}

func TestOneWayRefuses(t *testing.T) {
	for _, tc := range []struct {
		groups [][]float64
		want   string
	}{
		{[][]float64{{1, 2, 3}}, "at least 2"},
		{[][]float64{{1, 2}, {}}, "at least 2"},
		{[][]float64{{1}, {2}, {3}}, "single value"},
		{[][]float64{{1, 2}, {3, math.NaN()}}, "not finite"},
	} {
		if _, err := OneWay(tc.groups); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.groups, err, tc.want)
		}
	}
}

// TestOneWayUnbiasedAndDF simulates the model with known variances: the
// moment estimates average to the truth (before truncation), and their
// spread matches the degrees of freedom they claim: a variance estimate
// on df degrees of freedom has variance 2σ⁴/df.
func TestOneWayUnbiasedAndDF(t *testing.T) {
	reps := 6000
	if testing.Short() {
		reps = 1500
	}
	for _, sizes := range [][]int{{4, 4, 4, 4, 4, 4}, {2, 3, 5, 4, 3, 6}} {
		const sw, sb = 0.02, 0.03
		r := rand.New(rand.NewPCG(7, uint64(len(sizes))))
		var sumW, sumW2, sumB, sumB2, sumDF float64
		truncated := 0
		for range reps {
			groups := make([][]float64, len(sizes))
			for i, n := range sizes {
				a := sb * r.NormFloat64()
				for range n {
					groups[i] = append(groups[i], 5+a+sw*r.NormFloat64())
				}
			}
			e, err := OneWay(groups)
			if err != nil {
				t.Fatal(err)
			}
			sumW += e.WithinVar
			sumW2 += e.WithinVar * e.WithinVar
			sumB += e.RawBetween
			sumB2 += e.RawBetween * e.RawBetween
			sumDF += e.BetweenDF
			if e.Truncated {
				truncated++
			}
		}
		n := float64(reps)
		mw, mb := sumW/n, sumB/n
		vw, vb := sumW2/n-mw*mw, sumB2/n-mb*mb
		// Unbiased: the mean is within 4 standard errors of the truth.
		if math.Abs(mw-sw*sw) > 4*math.Sqrt(vw/n) || math.Abs(mb-sb*sb) > 4*math.Sqrt(vb/n) {
			t.Errorf("sizes %v: mean within %.3g (want %.3g), between %.3g (want %.3g)", sizes, mw, sw*sw, mb, sb*sb)
		}
		// The within df is exact: N-K. The empirical df 2·mean²/var of
		// the between estimate matches Satterthwaite's formula at the
		// true mean squares to within the sampling error of a variance
		// (about 2·sqrt(2/reps) relative, plus the kurtosis of a
		// difference of mean squares; 20 % is several standard errors).
		N, K := 0, len(sizes)
		sumSq := 0.0
		for _, s := range sizes {
			N += s
			sumSq += float64(s * s)
		}
		dfw, dfb := float64(N-K), float64(K-1)
		if got := 2 * mw * mw / vw; math.Abs(got/dfw-1) > 0.1 {
			t.Errorf("sizes %v: within df %.2f empirically, claimed %v", sizes, got, dfw)
		}
		n0 := (float64(N) - sumSq/float64(N)) / dfb
		emsw, emsb := sw*sw, sw*sw+n0*sb*sb
		satt := (emsb - emsw) * (emsb - emsw) / (emsb*emsb/dfb + emsw*emsw/dfw)
		if got := 2 * mb * mb / vb; math.Abs(got/satt-1) > 0.2 {
			t.Errorf("sizes %v: between df %.2f empirically, Satterthwaite %.2f", sizes, got, satt)
		}
		if md := sumDF / n; md <= 0 || md > dfb {
			t.Errorf("sizes %v: mean reported between df %.2f outside (0, %v]", sizes, md, dfb)
		}
		t.Logf("sizes %v: within %.3g between %.3g (truth %.3g %.3g), between df %.2f (Satterthwaite %.2f), %d/%d truncated",
			sizes, mw, mb, sw*sw, sb*sb, 2*mb*mb/vb, satt, truncated, reps)
	}
}
