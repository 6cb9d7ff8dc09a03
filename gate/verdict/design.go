package verdict

// Power is the predicted chance that this comparison's design calls a
// true worsening of change (a fraction for relative metrics, 0.08 = 8 %;
// points as a fraction for absolute ones) of cell a regression when it is
// the only changed cell, at the first Holm step's threshold: the formula
// behind MDE, at any change.
func (c *Comparison) Power(cell *Cell, change float64) float64 {
	se, df := cell.Noise.SE, cell.Noise.DF
	if se <= 0 {
		return 0
	}
	r := Criterion{Absolute: cell.Absolute, Tolerance: cell.Tolerance / 100, Family: c.Family, LookAlpha: c.LookAlpha}
	return powerAt(se, df, r.HolmT(df), r.TestTolerance(), r.ToTest(change))
}

// Design is one gated cell of a stored-baseline comparison not yet run:
// its trial counts, its noise (as a Prior from calibration or history
// gives it) and its Criterion. Calibrate's table (package noise, whose
// Design is this type), init's plan (package bootstrap) and the seeded
// tests use it, and Compare states the same formulas per cell. The paired
// A/B experiment (ab.Design) shares its Criterion and its Prior but has
// blocks instead of sessions and predicts exactly (Exact) rather than by
// this shortcut. Relative metrics take variances of log values and give
// changes as fractions of the baseline (0.05 = 5 %); absolute metrics
// (Absolute set) in their own units.
type Design struct {
	Criterion
	// CandidateTrials of the candidate's one session; BaselineTrials per
	// baseline session, BaselineSessions of them (1 for a baseline file).
	CandidateTrials, BaselineTrials, BaselineSessions int
	// CandidateSessions is the number of server starts the candidate's
	// trials are spread over, evenly (trials.restarts; 0 or 1: one
	// session): its between-session term is σb²/CandidateSessions.
	CandidateSessions int
	// Noise gives the within- and between-session variances and their
	// degrees of freedom (0 df: taken as exact).
	Noise Prior
}

// se is the standard error of the design's estimate and its degrees of
// freedom, as Compare computes them.
func (d Design) se() (float64, float64) {
	m := float64(max(d.BaselineSessions, 1))
	k := float64(max(d.CandidateSessions, 1))
	s := sePart{
		cand:      d.Noise.WithinVar / float64(max(d.CandidateTrials, 1)),
		base:      d.Noise.WithinVar / float64(max(d.BaselineTrials, 1)) / m,
		between:   d.Noise.BetweenVar * (1/k + 1/m),
		withinDF:  d.Noise.WithinDF,
		betweenDF: d.Noise.BetweenDF,
	}
	return s.se(), s.df()
}

// MDE is the smallest worsening found significant with TargetPower (a
// fraction).
func (d Design) MDE() float64 {
	se, df := d.se()
	return d.FromTest(mdeOf(se, df, d.HolmT(df)))
}

// PassTolerance is the smallest tolerance at which an unchanged build
// passes in 90 % of runs (a fraction).
func (d Design) PassTolerance() float64 {
	se, df := d.se()
	return d.FromTest(PassToleranceAt(se, df, d.PassT(df), d.passRate()))
}

// PassChance is the chance an unchanged build passes at Tolerance.
func (d Design) PassChance() float64 {
	se, df := d.se()
	return passChance(se, df, d.PassT(df), d.TestTolerance())
}

// Power is the chance a true worsening of change (a fraction) is called a
// regression.
func (d Design) Power(change float64) float64 {
	se, df := d.se()
	return powerAt(se, df, d.HolmT(df), d.TestTolerance(), d.ToTest(change))
}
