package noise

import (
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Design is how a gate will compare one cell: verdict.Design, the one
// design every prediction uses (the verdict's cells, calibrate's table and
// the seeded tests). Package noise reads its trial counts, baseline
// sessions and error levels; the variances come from Components (an
// Estimate or a Prior), so its Noise field is not read here. The level a
// single regressed cell has to pass is CellAlpha(): the look's alpha over
// the gated family, the first step of Holm's procedure.
type Design = verdict.Design

// Components are the two variances of one cell with their degrees of
// freedom, on the test scale (a Prior or an Estimate). A DF of 0 means
// known exactly (no sampling uncertainty is added for it).
type Components struct {
	Within, WithinDF   float64
	Between, BetweenDF float64
}

// Components returns the estimate's variances.
func (e Estimate) Components() Components {
	return Components{Within: e.WithinVar, WithinDF: e.WithinDF, Between: e.BetweenVar, BetweenDF: e.BetweenDF}
}

// SE is the standard error of the difference of the two arms' means and
// its Satterthwaite degrees of freedom:
//
//	SE² = within·(1/n_c + 1/(m·n_b)) + between·(1 + 1/m)
//
// with m baseline sessions (the verdict's SE² = within·(1/n_c + 1/n_b) +
// 2·between when m = 1). The candidate's session offset stays in full
// whatever m is: no baseline history removes the candidate's own session.
func (c Components) SE(d Design) (se, df float64) {
	nc, nb, m := float64(max(d.CandidateTrials, 1)), float64(max(d.BaselineTrials, 1)), float64(max(d.BaselineSessions, 1))
	tw := c.Within * (1/nc + 1/(m*nb))
	tb := c.Between * (1 + 1/m)
	v := tw + tb
	den := 0.0
	if c.WithinDF > 0 {
		den += tw * tw / c.WithinDF
	}
	if c.BetweenDF > 0 {
		den += tb * tb / c.BetweenDF
	}
	df = math.Inf(1)
	if den > 0 {
		df = v * v / den
	}
	return math.Sqrt(v), df
}

// Prediction is what a gate with Design can resolve at this noise, on the
// test scale (log units for relative metrics). SE and DF are those the gate
// will test with (see levels): the within term on the gate's own trials,
// the between term known.
type Prediction struct {
	SE, DF float64
	// MDE is verdict.MDEAt(SE, DF, t_{1-CellAlpha}, TargetPower): the change whose test is
	// significant with probability Power, as the verdict's own minimum
	// detectable effect is defined.
	MDE float64
	// Detectable is the smallest change found as a regression with
	// probability Power: it must both be significant and exceed the
	// tolerance, so it is max(MDE, tolerance + t_{Power}·SE).
	Detectable float64
	// PassTolerance is the smallest tolerance at which an unchanged build
	// passes with probability PassRate: the pass rule needs the upper
	// bound w + t_{1-PassAlpha}·SE under the tolerance, so it is
	// verdict.PassToleranceAt(SE, DF, t_{1-PassAlpha}, TargetPass).
	PassTolerance float64
	// Floor is the MDE with unlimited trials and baseline sessions: only
	// the candidate's session term is left, SE = sqrt(between). No design
	// of one candidate session resolves a change below it.
	Floor float64
	// Trials is the fewest trials per arm (both arms, the design's
	// baseline sessions) at which MDE and PassTolerance both reach the
	// tolerance; 0 when no count up to MaxTrials does.
	Trials int
	// Sessions is the fewest baseline sessions (at the design's trials)
	// that do the same; 0 when none up to MaxSessions does.
	Sessions int
	// BelowFloor says the tolerance is under Floor: no number of trials or
	// baseline sessions reaches it.
	BelowFloor bool
}

// MaxTrials and MaxSessions bound the searches of Predict.
const (
	MaxTrials   = 1000
	MaxSessions = 100
)

// Predict says what the design resolves at this noise, and how many trials
// or baseline sessions would bring it to tol (on the test scale:
// log1p(tolerance) for relative metrics).
func (c Components) Predict(d Design, tol float64) Prediction {
	var p Prediction
	p.MDE, p.PassTolerance, p.SE, p.DF = c.levels(d)
	tPow := verdict.TQuantile(verdict.TargetPower, p.DF)
	p.Detectable = math.Max(p.MDE, tol+tPow*p.SE)
	inf := Components{Between: c.Between}
	fd := d
	fd.BaselineSessions = math.MaxInt32
	p.Floor, _, _, _ = inf.levels(fd)
	p.BelowFloor = tol < p.Floor
	reaches := func(d Design) bool {
		mde, pass, _, _ := c.levels(d)
		return mde <= tol && pass <= tol
	}
	for n := 2; n <= MaxTrials; n++ {
		t := d
		t.CandidateTrials, t.BaselineTrials = n, n
		if reaches(t) {
			p.Trials = n
			break
		}
	}
	for m := 1; m <= MaxSessions; m++ {
		t := d
		t.BaselineSessions = m
		if reaches(t) {
			p.Sessions = m
			break
		}
	}
	return p
}

// levels returns the MDE and the pass tolerance of design d. The gate
// measures the within-session spread from its own trials, so the within
// term gets their degrees of freedom, n_c + n_b - 2; the between-session
// variance is the calibration's, on its own degrees of freedom, exactly as
// the verdict will count it: a table that says "reached" must not promise
// what the gate, testing on those degrees of freedom, cannot keep.
func (c Components) levels(d Design) (mde, pass, se, df float64) {
	g := Components{Within: c.Within, WithinDF: float64(max(d.CandidateTrials, 1) + max(d.BaselineTrials, 1) - 2), Between: c.Between, BetweenDF: c.BetweenDF}
	if c.Within == 0 {
		g.WithinDF = 0
	}
	se, df = g.SE(d)
	mde = verdict.MDEAt(se, df, verdict.TQuantile(1-d.CellAlpha(), df), verdict.TargetPower)
	pass = verdict.PassToleranceAt(se, df, verdict.TQuantile(1-d.PassAlpha, df), verdict.TargetPass)
	return mde, pass, se, df
}

// CV converts a variance on the test scale to the coefficient of variation
// (relative metrics: sqrt(exp(v)-1), the CV of a log-normal with log
// variance v) or the standard deviation (absolute metrics), both as
// fractions.
func CV(v float64, absolute bool) float64 {
	if absolute {
		return math.Sqrt(v)
	}
	return math.Sqrt(math.Expm1(v))
}

// Change converts a difference on the test scale to a fraction of change
// (relative metrics: exp(x)-1) or leaves it (absolute metrics, a
// difference of ratios).
func Change(x float64, absolute bool) float64 {
	if absolute {
		return x
	}
	return math.Expm1(x)
}

// ScaleTolerance converts a tolerance to the test scale: log1p for a
// relative tolerance; absolute ones are unchanged.
func ScaleTolerance(tol float64, absolute bool) float64 {
	if absolute {
		return tol
	}
	return math.Log1p(tol)
}
