package verdict

import "testing"

// TestOutlierTrial: one candidate trial 40 % slower in TPOT (a noisy
// neighbour) is left out of that cell, listed with its trial index and
// warned about; the cell then passes instead of failing or going
// undecided. With the rule off the same trial stays in.
func TestOutlierTrial(t *testing.T) {
	b, c := arms(31, 10, 5, 0.01, "", 1)
	c[0].Trials[2].Values["tpot_ms.p50"] *= 1.4
	cmp := mustCompare(t, b, c, oneSession())
	cell := cellOf(cmp, "w00", "tpot_ms.p50")
	if len(cell.Outliers) != 1 || cell.Outliers[0].Arm != "candidate" || cell.Outliers[0].Trial != 2 || !hasWarning(cell.Warnings, "trial 2 of the candidate left out as an outlier") {
		t.Fatalf("outliers %+v warnings %q", cell.Outliers, cell.Warnings)
	}
	if cell.Outcome == Regression || cell.Candidate.N != 5 || len(cell.Candidate.Values) != 5 {
		t.Errorf("outcome %s, candidate %+v", cell.Outcome, cell.Candidate)
	}
	off := oneSession()
	off.OutlierAlpha = 0
	if cell := cellOf(mustCompare(t, b, c, off), "w00", "tpot_ms.p50"); len(cell.Outliers) != 0 {
		t.Errorf("rule off: outliers %+v", cell.Outliers)
	}
	// A real change moves every trial: nothing is left out, and it is a
	// regression.
	b, c = arms(32, 10, 5, 0.01, "tpot_ms.p50", 1.2)
	cell = cellOf(mustCompare(t, b, c, oneSession()), "w00", "tpot_ms.p50")
	if len(cell.Outliers) != 0 || cell.Outcome != Regression {
		t.Errorf("+20%% everywhere: outliers %+v outcome %s", cell.Outliers, cell.Outcome)
	}
}

// TestOutlierNeedsTrials: sessions of fewer than four trials are never
// trimmed (three others are needed to judge one).
func TestOutlierNeedsTrials(t *testing.T) {
	b, c := arms(33, 10, 3, 0.01, "", 1)
	c[0].Trials[0].Values["tpot_ms.p50"] *= 2
	cell := cellOf(mustCompare(t, b, c, oneSession()), "w00", "tpot_ms.p50")
	if len(cell.Outliers) != 0 {
		t.Errorf("3 trials: outliers %+v", cell.Outliers)
	}
}

// TestTrimBias: the variance of normal samples without the value farthest
// from their median is biased low by the simulated factor.
func TestTrimBias(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{4, 0.362}, {5, 0.475}, {8, 0.609}, {12, 0.700}} {
		if got := trimBias(c.n); got < c.want-0.015 || got > c.want+0.015 {
			t.Errorf("trimBias(%d) = %.3f, want %.3f (an independent simulation)", c.n, got, c.want)
		}
	}
	if trimBias(1000) != trimBias(maxTrimN) {
		t.Error("trimBias is not capped")
	}
}
