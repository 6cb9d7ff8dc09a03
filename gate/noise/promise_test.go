package noise

import (
	"math"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestReachedHoldsAtGate: a calibration of 3 restarts x 3 trials whose
// between-session estimate is tiny and positive, exactly zero, or
// negative (truncated) is fitted, predicted by the calibrate table, and
// then used by the verdict as the gate uses it (baseline.Noise.Priors:
// BetweenDF and Sessions). Where the table says "reached", the gate's own
// minimum detectable change and pass tolerance for the same trials are
// within the tolerance, its interval is finite and narrow, and an
// unchanged build passes. Before the between-session df were bounded below
// (verdict.MinBetweenDF), the tiny positive case recorded 0.007-like df
// and the gate's interval reached +4e53 %; the "legacy" case feeds such a
// prior (df 0.007, no session count) straight in and checks it is bounded.
func TestReachedHoldsAtGate(t *testing.T) {
	const d = 0.01 // within-session SD of the log values: CV about 1 %
	const gateTrials = 6
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}}
	for _, tc := range []struct {
		name string
		// ratio of MSB to MSW in the calibration (1: a zero estimate,
		// 0: the session means agree exactly, a negative one).
		msbOverMSW float64
		legacyDF   float64 // >0: overwrite BetweenDF as an old file had it
	}{
		{"tiny positive", 1.1, 0},
		{"zero", 1, 0},
		{"negative", 0, 0},
		{"legacy df 0.007", 1.1, 0.007},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Session means -a, 0, a: MSB = 3a²; MSW = d².
			a := d * math.Sqrt(tc.msbOverMSW/3)
			var groups [][]float64
			for _, m := range []float64{-a, 0, a} {
				groups = append(groups, []float64{m - d, m, m + d})
			}
			e, err := OneWay(groups)
			if err != nil {
				t.Fatal(err)
			}
			if e.BetweenDF < 2 {
				t.Fatalf("between df %v from 3 sessions: want at least 2", e.BetweenDF)
			}
			prior := verdict.Prior{WithinVar: e.WithinVar, WithinDF: e.WithinDF, BetweenVar: e.BetweenVar,
				BetweenDF: e.BetweenDF, Source: "calibration", Sessions: e.Sessions}
			if tc.legacyDF > 0 {
				prior.BetweenDF, prior.Sessions = tc.legacyDF, 0
			}
			var tb Table
			cellAlpha := p.Alpha / float64(p.MaxLooks)
			tb.Add("w", "tpot_ms.p50", "TPOT p50", false, e, Design{CandidateTrials: gateTrials, BaselineTrials: gateTrials,
				BaselineSessions: 1, Criterion: verdict.Criterion{LookAlpha: cellAlpha, Family: 1, PassAlpha: p.PassAlpha}}, 0.03)
			row := tb.Rows[0]

			pol := p
			pol.Noise = verdict.Priors{"w": {"tpot_ms.p50": prior}}
			cmp, err := verdict.Compare([]*result.Result{gateArm(e.WithinVar, gateTrials)}, []*result.Result{gateArm(e.WithinVar, gateTrials)},
				pol, verdict.Look{Index: 1, Max: p.MaxLooks})
			if err != nil {
				t.Fatal(err)
			}
			var cell *verdict.Cell
			for i := range cmp.Cells {
				if cmp.Cells[i].Metric == "tpot_ms.p50" {
					cell = &cmp.Cells[i]
				}
			}
			if cell == nil {
				t.Fatal("no tpot_ms.p50 cell")
			}
			t.Logf("between %.2g on %.3g df (Satterthwaite %.3g): table detectable %.2f%%, passes 90%% at %.2f%%, reached %v; gate MDE %.2f%%, pass tolerance %.2f%%, interval %.2f..%.2f%%, df %.1f, %s",
				e.BetweenVar, prior.BetweenDF, e.SatterthwaiteDF, 100*Change(row.Prediction.Detectable, false), 100*Change(row.Prediction.PassTolerance, false), row.Reached,
				cell.MDE, cell.PassTolerance, cell.CILow, cell.CIHigh, cell.Noise.DF, cell.Outcome)
			if math.IsInf(cell.CIHigh, 0) || cell.CIHigh > 10 || cell.CILow < -10 {
				t.Errorf("interval %.3g..%.3g %%: wider than 3 trials of 1 %% noise allow", cell.CILow, cell.CIHigh)
			}
			if tc.legacyDF > 0 {
				return // an old file: bounded, no table promise to keep
			}
			if !row.Reached {
				t.Fatalf("the table does not call 3 %% reached at %d trials: the scenario tests nothing", gateTrials)
			}
			if cell.MDE > 3+1e-9 || cell.PassTolerance > 3+1e-9 {
				t.Errorf("table promised 3 %% reached; the gate says MDE %.2f%%, pass tolerance %.2f%%", cell.MDE, cell.PassTolerance)
			}
			if cell.Outcome != verdict.Pass {
				t.Errorf("unchanged build: %s, want pass", cell.Outcome)
			}
		})
	}
}

// gateArm is one session of cell "w" whose n trials have log values with
// mean 0 and sample variance v exactly (offsets symmetric about 0).
func gateArm(v float64, n int) *result.Result {
	offs := make([]float64, n)
	var ss float64
	for i := range offs {
		offs[i] = float64(i) - float64(n-1)/2
		ss += offs[i] * offs[i]
	}
	c := math.Sqrt(v * float64(n-1) / ss)
	r := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: "w", Cell: "w", Hash: "hash-w"},
		Fingerprint: map[string]string{"gpu.name": "H100"}, StartedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Complete: true}
	for i, o := range offs {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: map[string]float64{"tpot_ms.p50": 12 * math.Exp(c*o), "success_rate": 1}})
	}
	return r
}
