package noise

import (
	"math"
	"testing"
)

func design(n int) Design {
	return Design{CandidateTrials: n, BaselineTrials: n, BaselineSessions: 1, CellAlpha: 0.01, Power: 0.8, PassAlpha: 0.1, PassRate: 0.9}
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

// TestPredictByHand: with within-session noise only and known variances
// the quantiles are normal, and the trials needed follow in closed form.
func TestPredictByHand(t *testing.T) {
	const w = 0.02 * 0.02
	c := Components{Within: w}
	tol := math.Log1p(0.03)
	p := c.Predict(design(5), tol)
	zA, zP, z9 := 2.3263478740408408, 0.8416212335729143, 1.2815515655446004
	se := math.Sqrt(w * 2 / 5)
	if !near(p.SE, se, 1e-12) || !near(p.MDE, (zA+zP)*se, 1e-6) || !near(p.PassTolerance, 2*z9*se, 1e-6) {
		t.Errorf("SE %v MDE %v pass %v; want %v %v %v", p.SE, p.MDE, p.PassTolerance, se, (zA+zP)*se, 2*z9*se)
	}
	if want := math.Max(p.MDE, tol+zP*se); !near(p.Detectable, want, 1e-6) {
		t.Errorf("detectable %v, want %v", p.Detectable, want)
	}
	// MDE <= tol: sqrt(2w/n)·(zA+zP) <= log(1.03), n >= 2w((zA+zP)/tol)²
	// = 9.19, so 10 trials; the pass rule alone needs 7.
	if p.Trials != 10 || p.Floor != 0 {
		t.Errorf("trials %d floor %v, want 10 and 0", p.Trials, p.Floor)
	}
	// More baseline sessions shrink only the baseline's term: SE² =
	// w(1 + 1/m)/5, and (zA+zP)·0.02·sqrt((1+1/m)/5) <= log(1.03) needs
	// 1/m <= 0.0883, so m = 12.
	m := p.Sessions
	if m != 12 {
		t.Fatalf("sessions %d, want 12", m)
	}
	for _, k := range []int{m - 1, m} {
		d := design(5)
		d.BaselineSessions = k
		mde, pass, _ := c.levels(d)
		if got := mde <= tol && pass <= tol; got != (k == m) {
			t.Errorf("%d sessions: reaches %v", k, got)
		}
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
