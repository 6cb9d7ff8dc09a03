package noise

import (
	"github.com/perfgate/perfgate/gate/verdict"
	"math"
	"testing"
)

func design(n int) Design {
	return Design{CandidateTrials: n, BaselineTrials: n, BaselineSessions: 1, Criterion: verdict.Criterion{LookAlpha: 0.01, Family: 1, PassAlpha: 0.1}}
}

// TestSE pins the verdict's formula: within·(1/n_c + 1/n_b) + 2·between
// for a one-session baseline, and the candidate's session term is all that
// is left with many baseline sessions.
func TestSE(t *testing.T) {
	c := Components{Within: 0.02 * 0.02, WithinDF: 20, Between: 0.01 * 0.01, BetweenDF: 4}
	se, df := c.SE(design(5))
	tw, tb := 0.0004*(2.0/5), 2*0.0001
	if want := math.Sqrt(tw + tb); !near(se, want, 1e-15) {
		t.Errorf("SE %v, want %v", se, want)
	}
	if want := (tw + tb) * (tw + tb) / (tw*tw/20 + tb*tb/4); !near(df, want, 1e-12) {
		t.Errorf("Satterthwaite df %v, want %v", df, want)
	}
	d := design(5)
	d.BaselineSessions = 1 << 20
	if se, _ := c.SE(d); !near(se, math.Sqrt(0.0004/5+0.0001), 1e-5) {
		t.Errorf("many baseline sessions: SE %v, want sqrt(within/n_c + between)", se)
	}
	// Known components (DF 0) use the normal quantiles.
	if _, df := (Components{Within: 1}).SE(design(3)); !math.IsInf(df, 1) {
		t.Errorf("df %v with known variances, want +Inf", df)
	}
}

// TestPredictByHand: the gate tests the within-session spread on its own
// 2n-2 degrees of freedom, the between-session variance known; the levels
// are verdict.MDEAt and PassToleranceAt (a threshold q·ŝ with ŝ estimated
// on df is wider than q·SE by sqrt(1 + q²/(2·df))), worked out from t and
// normal tables, and the trials and sessions needed follow.
func TestPredictByHand(t *testing.T) {
	const w = 0.02 * 0.02
	c := Components{Within: w, WithinDF: 100} // the calibration's df does not enter
	tol := math.Log1p(0.03)
	p := c.Predict(design(5), tol)
	// df 8: t_0.99 = 2.896459, t_0.9 = 1.396815; z_0.8 = 0.841621, z_0.9 =
	// 1.281552. MDE = (2.896459 + 0.841621·sqrt(1 + 2.896459²/16))·SE =
	// 3.935563·SE; pass = (1.396815 + 1.281552·sqrt(1 + 1.396815²/16))·SE =
	// 2.754262·SE.
	se := math.Sqrt(w * 2 / 5)
	mde, pass := 3.935563*se, 2.754262*se
	if !near(p.SE, se, 1e-12) || p.DF != 8 || !near(p.MDE, mde, 1e-5) || !near(p.PassTolerance, pass, 1e-5) {
		t.Errorf("SE %v df %v MDE %v pass %v; want %v 8 %v %v", p.SE, p.DF, p.MDE, p.PassTolerance, se, mde, pass)
	}
	if want := math.Max(p.MDE, tol+verdict.TQuantile(0.8, 8)*se); !near(p.Detectable, want, 1e-6) {
		t.Errorf("detectable %v, want %v", p.Detectable, want)
	}
	// n = 10 (df 18): MDE 3.10 % > log(1.03) = 2.96 %; n = 11 (df 20):
	// 2.93 %. Baseline sessions shrink only the baseline's term, and the
	// candidate's is already too big.
	if p.Trials != 11 || p.Sessions != 0 || p.Floor != 0 {
		t.Errorf("trials %d sessions %d floor %v, want 11, 0, 0", p.Trials, p.Sessions, p.Floor)
	}
	// At within CV 1.5 %, 5 trials: MDE 3.05 % with 3 baseline sessions,
	// 2.95 % with 4.
	c = Components{Within: 0.015 * 0.015}
	if p := c.Predict(design(5), tol); p.Sessions != 4 {
		t.Errorf("within 1.5 %%: sessions %d, want 4", p.Sessions)
	}
}

// TestPredictSessionFloor: a between-session CV of 3 % cannot be beaten
// by trials or baseline sessions at a 3 % tolerance; the floor says how
// far the design is from it.
func TestPredictSessionFloor(t *testing.T) {
	c := Components{Within: 0.01 * 0.01, WithinDF: 40, Between: 0.03 * 0.03, BetweenDF: 9}
	p := c.Predict(design(5), math.Log1p(0.03))
	if p.Trials != 0 || p.Sessions != 0 {
		t.Errorf("trials %d sessions %d, want 0 (unreachable)", p.Trials, p.Sessions)
	}
	if p.Floor < 0.03*3 || p.Floor > p.MDE {
		t.Errorf("floor %v, want between 3·0.03 and the MDE %v", p.Floor, p.MDE)
	}
	// A wide enough tolerance is reached at once.
	if q := c.Predict(design(5), math.Log1p(0.5)); q.Trials != 2 || q.Sessions != 1 {
		t.Errorf("tolerance 50 %%: trials %d sessions %d, want 2 and 1", q.Trials, q.Sessions)
	}
}

func TestConversions(t *testing.T) {
	if got := CV(math.Log1p(0.03*0.03), false); !near(got, 0.03, 1e-12) {
		t.Errorf("CV %v, want 0.03", got)
	}
	if got := CV(0.0001, true); !near(got, 0.01, 1e-12) {
		t.Errorf("absolute CV %v", got)
	}
	if got := Change(ScaleTolerance(0.05, false), false); !near(got, 0.05, 1e-12) {
		t.Errorf("round trip %v", got)
	}
	if ScaleTolerance(0.005, true) != 0.005 || Change(0.005, true) != 0.005 {
		t.Error("absolute metrics are not rescaled")
	}
}
