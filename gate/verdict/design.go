package verdict

import "math"

// The formulas by which a comparison predicts itself: the minimum
// detectable change, the smallest tolerance an unchanged build passes, the
// chance it passes, and the power at any change. Compare fills each cell's
// MDE, PassTolerance and PassChance with them; Design evaluates them for a
// comparison not yet run (the table of `perfgate calibrate`: how many
// trials or sessions reach a tolerance); the seeded tests check them
// against measured rates.

// TargetPower is the power the minimum detectable change is quoted at,
// and TargetPass the pass rate PassTolerance is quoted at (the smallest
// tolerance at which an unchanged build passes this often). They are the
// one definition every prediction uses: the verdict's cells, Design,
// calibrate's table (package noise) and the paired A/B plans (package ab).
const (
	TargetPower = 0.8
	TargetPass  = 0.9
)

// The gate estimates its standard error from its own trials, so the
// threshold a rule compares the estimate with, q·ŝ, is itself random. With
// ŝ = SE·(1 + e), e about N(0, 1/(2·df)) for a variance on df degrees of
// freedom, a rule "w > q·ŝ" (or "w + q·ŝ <= tol") sees w − q·ŝ with variance
// SE²·(1 + q²/(2·df)), not SE². At 5 v 5 trials (df 8) and a Holm
// threshold near 5 that is 1.6 times the SE the naive formula (q +
// t_power)·SE assumes: the stated minimum detectable change of 6.79 % was
// found in 73.7 % of runs, not 80 %. spreadInflation is that factor; df 0
// (or infinite) means the SE is known and the factor is 1.
// TestStatedMDEHolds checks the rule against seeded runs at 5 v 5.
func spreadInflation(q, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) {
		return 1
	}
	return math.Sqrt(1 + q*q/(2*df))
}

// MDEAt is the change a rule "estimate > q·ŝ" finds with probability
// power, for a standard error se estimated on df degrees of freedom (0:
// known): (q + z_power·spreadInflation)·se. Package noise's calibrate
// table quotes it, so the table and the verdict state one number.
func MDEAt(se, df, q, power float64) float64 {
	return (q + normQuantile(power)*spreadInflation(q, df)) * se
}

// PassToleranceAt is the smallest tolerance at which an unchanged cell
// passes the rule "estimate + q·ŝ <= tolerance" with probability rate.
func PassToleranceAt(se, df, q, rate float64) float64 {
	return (q + normQuantile(rate)*spreadInflation(q, df)) * se
}

func mdeOf(se, df, q float64) float64     { return MDEAt(se, df, q, TargetPower) }
func passTolOf(se, df, q float64) float64 { return PassToleranceAt(se, df, q, TargetPass) }

// passChance is the chance an unchanged cell passes: its estimate plus
// q·ŝ must be inside the tolerance tol.
func passChance(se, df, q, tol float64) float64 {
	return normCDF((tol/se - q) / spreadInflation(q, df))
}

// powerAt is the chance a true worsening delta is called a regression: the
// estimate must pass both the Holm threshold tH·ŝ and the tolerance.
func powerAt(se, df, tH, tol, delta float64) float64 {
	sig := normCDF((delta/se - tH) / spreadInflation(tH, df))
	beyond := normCDF((delta - tol) / se)
	return math.Min(sig, beyond)
}

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
	delta, tol := change, cell.Tolerance/100
	if !cell.Absolute {
		delta, tol = math.Log1p(change), math.Log1p(tol)
	}
	step := c.LookAlpha
	if c.Family > 0 {
		step /= float64(c.Family)
	}
	return powerAt(se, df, tQuantile(1-step, df), tol, delta)
}

// Design is one gated cell of a comparison not yet run: its trial counts,
// its noise (as a Prior from calibration or history gives it) and its
// rule. It is the one design of perfgate's predictions: calibrate's table
// (package noise, whose Design is this type) and the seeded tests use it,
// and Compare states the same formulas per cell; the paired A/B
// experiment (ab.Design) has blocks instead of sessions but quotes the
// same TargetPower and TargetPass. Relative metrics take variances of log values and give changes as
// fractions of the baseline (0.05 = 5 %); absolute metrics (Absolute set)
// in their own units.
type Design struct {
	// CandidateTrials of the candidate's one session; BaselineTrials per
	// baseline session, BaselineSessions of them (1 for a baseline file).
	CandidateTrials, BaselineTrials, BaselineSessions int
	// CandidateSessions is the number of server starts the candidate's
	// trials are spread over, evenly (trials.restarts; 0 or 1: one
	// session): its between-session term is σb²/CandidateSessions.
	CandidateSessions int
	// Noise gives the within- and between-session variances and their
	// degrees of freedom (0 df: taken as exact).
	Noise    Prior
	Absolute bool
	// Tolerance is the rule's tolerance (a fraction, 0.03 = 3 %).
	Tolerance float64
	// Family is the number of gated cells in the Holm family; LookAlpha
	// the alpha of the look (Policy.Alpha / MaxLooks); PassAlpha the
	// policy's.
	Family               int
	LookAlpha, PassAlpha float64
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

// CellAlpha is the one-sided level a single regressed cell has to pass:
// the look's alpha over the gated family, the first step of Holm's
// procedure.
func (d Design) CellAlpha() float64 { return d.LookAlpha / float64(max(d.Family, 1)) }

func (d Design) tH(df float64) float64 {
	return tQuantile(1-d.CellAlpha(), df)
}

func (d Design) scale(x float64) float64 {
	if d.Absolute {
		return x
	}
	return math.Expm1(x)
}

func (d Design) tol() float64 {
	if d.Absolute {
		return d.Tolerance
	}
	return math.Log1p(d.Tolerance)
}

// MDE is the smallest worsening found significant with TargetPower (a
// fraction).
func (d Design) MDE() float64 {
	se, df := d.se()
	return d.scale(mdeOf(se, df, d.tH(df)))
}

// PassTolerance is the smallest tolerance at which an unchanged build
// passes in 90 % of runs (a fraction).
func (d Design) PassTolerance() float64 {
	se, df := d.se()
	return d.scale(passTolOf(se, df, tQuantile(1-d.PassAlpha, df)))
}

// PassChance is the chance an unchanged build passes at Tolerance.
func (d Design) PassChance() float64 {
	se, df := d.se()
	return passChance(se, df, tQuantile(1-d.PassAlpha, df), d.tol())
}

// Power is the chance a true worsening of change (a fraction) is called a
// regression.
func (d Design) Power(change float64) float64 {
	se, df := d.se()
	delta := change
	if !d.Absolute {
		delta = math.Log1p(change)
	}
	return powerAt(se, df, d.tH(df), d.tol(), delta)
}
