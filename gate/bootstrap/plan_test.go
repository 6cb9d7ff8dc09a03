package bootstrap

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/verdict"
)

// cvVar is the log-scale variance of a CV.
func cvVar(cv float64) float64 { return math.Log1p(cv * cv) }

func metric(cell, id string, within, between, tol float64) Metric {
	return Metric{Cell: cell, ID: id, Label: id, Tolerance: tol,
		Noise: verdict.Prior{WithinVar: cvVar(within), WithinDF: 20, BetweenVar: cvVar(between), BetweenDF: 4}}
}

func rules(family int) Rules {
	r := DefaultRules()
	p := verdict.DefaultPolicy()
	r.Family, r.LookAlpha, r.PassAlpha = family, p.Alpha/float64(p.MaxLooks), p.PassAlpha
	return r
}

// TestDecide: each row is a runner's calibrated noise and what init must
// choose for it. The predictions behind each choice are the Designs'
// own, so the rows also pin that the chosen check decides at the
// tolerances written.
func TestDecide(t *testing.T) {
	costs := Costs{Startup: 2 * time.Minute, Trial: 20 * time.Second}
	success := Metric{Cell: "chat", ID: "success_rate", Label: "success_rate", Absolute: true, Tolerance: 0.005}
	for _, tc := range []struct {
		name        string
		ms          []Metric
		maxGPU      time.Duration
		mode        Mode
		why         []string
		undecidable []string
	}{
		// Quiet sessions: the stored baseline decides with a few trials,
		// and a metric calibration saw no noise in does not get in the way.
		{"quiet", []Metric{metric("chat", "tpot_ms.p50", 0.02, 0.003, 0.05), success}, 0, Stored,
			[]string{"stored baseline decides every gated metric", "cheapest"}, nil},
		// Between-session CV 2 % at a 3 % tolerance: no single candidate
		// session passes an unchanged build (the Monte Carlo found
		// 0 of 300), the interleaved A/B does.
		{"session noise", []Metric{metric("chat", "tpot_ms.p50", 0.01, 0.02, 0.03)}, 0, AB,
			[]string{"between-session noise of chat tpot_ms.p50 (CV 2.0 %)", "interleaved A/B", "blocks"}, nil},
		// Between-session CV 2 % at a 5 % tolerance: 8 trials over 4
		// server starts per arm decide it from one build, at a third of
		// the A/B's 12 blocks' GPU time.
		{"restarts", []Metric{metric("chat", "tpot_ms.p50", 0.01, 0.02, 0.05)}, 0, Restarted,
			[]string{"over 4 server starts on each arm (trials.restarts: 4)", "10m40s of GPU time per PR", "the A/B that would (12 blocks) costs 32m0s"}, nil},
		// Between-session CV 2 % at 3 %, with a GPU budget the A/B (16
		// blocks, 42m40s) exceeds: no check decides 3 %, and widening over
		// 10 trials in 5 starts per arm reaches 3.5 % where one session
		// needs 9.0 %, within the budget.
		{"restarts widened", []Metric{metric("chat", "tpot_ms.p50", 0.01, 0.02, 0.03)}, 15 * time.Minute, RestartedWidened,
			[]string{"10 trials spread over 5 server starts on each arm (trials.restarts: 5)", "tighter tolerances than one session", "13m20s of GPU time"}, nil},
		// The same, with a GPU budget the A/B exceeds: stored at widened
		// tolerances, saying what the A/B would have cost.
		{"budget", []Metric{metric("chat", "tpot_ms.p50", 0.01, 0.02, 0.03)}, time.Minute, Widened,
			[]string{"costs", "above the 1m0s allowed", "tolerances calibration shows decidable"}, nil},
		// Noise no tolerance up to 50 % survives: that metric keeps its
		// tolerance and will be reported inconclusive, and the choice is
		// made for the others (here the A/B).
		{"hopeless", []Metric{metric("chat", "tpot_ms.p50", 0.01, 0.02, 0.03), metric("chat", "ttft_ms.p99", 1.5, 0.9, 0.06)}, 0, AB,
			[]string{"interleaved A/B", "ttft_ms.p99 stay gated at their tolerances, but no tolerance up to 50 % is decidable"}, []string{"ttft_ms.p99"}},
		// A between-session estimate on 0.2 df: the verdict's interval on
		// it can be unbounded, so init does not count on deciding it, and
		// says more restarts would firm it up.
		{"unsure", []Metric{metric("chat", "tpot_ms.p50", 0.02, 0.003, 0.05), unsureMetric()}, 0, Stored,
			[]string{"e2el_ms.p50 stay gated at their tolerances, but the calibration's between-session estimate", "more --restarts"}, []string{"e2el_ms.p50"}},
		// Within-session noise a stored baseline of 30 trials cannot
		// average to 3 %, with blocks beyond the A/B's bound: widened.
		{"widened", []Metric{metric("chat", "tpot_ms.p50", 0.15, 0.0, 0.03)}, 0, Widened,
			[]string{"no A/B of up to 64 blocks does either", "tolerances calibration shows decidable"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rules(len(tc.ms))
			r.MaxGPU = tc.maxGPU
			p, err := Decide(tc.ms, r, costs)
			if err != nil {
				t.Fatal(err)
			}
			if p.Mode != tc.mode {
				t.Fatalf("mode %s, want %s: %s", p.Mode, tc.mode, p.Why)
			}
			for _, w := range tc.why {
				if !strings.Contains(p.Why, w) {
					t.Errorf("why lacks %q: %s", w, p.Why)
				}
			}
			if strings.Join(p.Undecidable, ",") != strings.Join(tc.undecidable, ",") {
				t.Errorf("undecidable %v, want %v", p.Undecidable, tc.undecidable)
			}
			// The whole check passes an unchanged build in 90 % of runs
			// when every metric is decidable: the product of the metrics'
			// pass chances, not each one's alone (issue 21).
			whole := 1.0
			for _, row := range p.Rows {
				var orig Metric
				for _, m := range tc.ms {
					if m.ID == row.ID {
						orig = m
					}
				}
				if row.Tolerance < orig.Tolerance {
					t.Errorf("%s: tolerance lowered from %v to %v", row.ID, orig.Tolerance, row.Tolerance)
				}
				if silent(row.Metric) {
					continue
				}
				// The chosen check decides at the tolerance it runs at.
				var o Outcome
				switch p.Mode {
				case AB:
					o = row.AB
				case Restarted, RestartedWidened:
					o = row.Restarts
				default:
					o = row.Stored
				}
				if contains(p.Undecidable, row.ID) {
					// Gated at its own tolerance, undecided.
					if p.Tolerances[row.ID] != orig.Tolerance {
						t.Errorf("%s: undecidable, tolerance %v, want its own %v", row.ID, p.Tolerances[row.ID], orig.Tolerance)
					}
					continue
				}
				whole *= o.PassChance
				if !o.Decidable(row.Tolerance) || o.PassChance < p.PassRate-1e-6 {
					t.Errorf("%s: the chosen %s check passes an unchanged build at %v only at %v (chance %.3f)", row.ID, p.Mode, row.Tolerance, o.PassTolerance, o.PassChance)
				}
				if got, ok := p.Tolerances[row.ID]; !ok || got < row.Tolerance {
					t.Errorf("%s: config tolerance %v (%v), want at least %v", row.ID, got, ok, row.Tolerance)
				}
			}
			if len(p.Undecidable) == 0 && (p.Mode == Stored || p.Mode == AB || p.Mode == Restarted) && whole < verdict.TargetPass-1e-6 {
				t.Errorf("the chosen %s check passes an unchanged build in %.3f of runs, want at least %.2f", p.Mode, whole, verdict.TargetPass)
			}
			if p.Mode == AB && (p.Blocks%4 != 0 || p.Blocks > r.MaxBlocks || p.ABGPU != time.Duration(p.Blocks)*(costs.Startup+time.Duration(r.BlockTrials)*costs.Trial)) {
				t.Errorf("A/B blocks %d, GPU %v", p.Blocks, p.ABGPU)
			}
			if p.StoredGPU != costs.Startup+time.Duration(p.Trials)*costs.Trial {
				t.Errorf("stored GPU %v for %d trials", p.StoredGPU, p.Trials)
			}
			var b bytes.Buffer
			if err := WriteTable(&b, &p); err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{"workload", "decides / passes at", "GPU time per PR check", "PR check: "} {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
			t.Logf("\n%s", b.String())
		})
	}
}

func unsureMetric() Metric {
	m := metric("chat", "e2el_ms.p50", 0.04, 0.012, 0.03)
	m.Noise.BetweenDF = 0.18
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDecideMoreBuys: twice the trials lets an unchanged build pass a
// narrower tolerance, and a week of nightly history narrows both what the
// stored check passes and what it finds (the between-session term of the
// baseline shrinks as 1/m); twice the blocks finds less.
func TestDecideMoreBuys(t *testing.T) {
	ms := []Metric{metric("chat", "tpot_ms.p50", 0.03, 0.01, 0.05)}
	p, err := Decide(ms, rules(1), Costs{})
	if err != nil {
		t.Fatal(err)
	}
	row := p.Rows[0]
	if !(row.MoreTrials.PassTolerance < row.Stored.PassTolerance) || !(row.History.PassTolerance < row.Stored.PassTolerance) || !(row.History.Decides < row.Stored.Decides) {
		t.Errorf("stored %+v, 2x trials %+v, history %+v", row.Stored, row.MoreTrials, row.History)
	}
	if !(row.MoreBlocks.Decides <= row.AB.Decides) {
		t.Errorf("A/B %+v, 2x blocks %+v", row.AB, row.MoreBlocks)
	}
}

// TestDecideRefuses: nothing to plan and bad bounds are errors that say
// what is wrong.
func TestDecideRefuses(t *testing.T) {
	if _, err := Decide(nil, rules(1), Costs{}); err == nil || !strings.Contains(err.Error(), "no gated metric") {
		t.Errorf("no metrics: %v", err)
	}
	if _, err := Decide([]Metric{metric("c", "ttft_ms.p99", 3, 2, 0.06)}, rules(1), Costs{}); err == nil || !strings.Contains(err.Error(), "too noisy") {
		t.Errorf("hopeless only: %v", err)
	}
	if _, err := Decide([]Metric{unsureMetric()}, rules(1), Costs{}); err == nil || !strings.Contains(err.Error(), "more --restarts") {
		t.Errorf("unsure only: %v", err)
	}
	r := rules(1)
	r.MaxTrials = 1
	if _, err := Decide([]Metric{metric("c", "tpot_ms.p50", 0.01, 0, 0.03)}, r, Costs{}); err == nil || !strings.Contains(err.Error(), "trials 5-1") {
		t.Errorf("bad bounds: %v", err)
	}
}

// TestProgress: the ETA is the rate so far applied to what is left.
func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		p    Progress
		eta  time.Duration
		ok   bool
		line string
	}{
		{Progress{"calibration", 0, 40, 5 * time.Second}, 0, false, "ETA unknown"},
		{Progress{"calibration", 10, 40, 30 * time.Second}, 90 * time.Second, true, "[#####...............]  25 % calibration, 10/40 trials, 30s elapsed, ETA 1m30s"},
		{Progress{"first baseline (8 trials)", 40, 40, time.Minute}, 0, true, "100 % first baseline (8 trials)"},
	} {
		eta, ok := tc.p.ETA()
		if eta != tc.eta || ok != tc.ok || !strings.Contains(tc.p.Line(), tc.line) {
			t.Errorf("%+v: ETA %v %v, line %q; want %v %v and %q", tc.p, eta, ok, tc.p.Line(), tc.eta, tc.ok, tc.line)
		}
	}
}

// TestBestStored: with a between-session estimate on a fraction of a
// degree of freedom (3 calibration sessions that barely differed), more
// trials move the test's degrees of freedom towards it and the pass
// tolerance grows again; the need init quotes is the smallest over the
// trial range, not the value at its end.
func TestBestStored(t *testing.T) {
	r := rules(1)
	m := metric("chat", "e2el_ms.p50", 0.15, 0.02, 0.03)
	m.Noise.BetweenDF = 0.05
	atMin := StoredDesign(m, r, r.MinTrials, 1).PassTolerance()
	atMax := StoredDesign(m, r, r.MaxTrials, 1).PassTolerance()
	best := bestStored(m, r)
	if !(best <= atMin && best < atMax) {
		t.Errorf("best %.4f, at %d trials %.4f, at %d %.4f", best, r.MinTrials, atMin, r.MaxTrials, atMax)
	}
	t.Logf("pass tolerance: %d trials %.1f %%, %d trials %.1f %%, best %.1f %%", r.MinTrials, 100*atMin, r.MaxTrials, 100*atMax, 100*best)
}
