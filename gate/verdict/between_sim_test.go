package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestSimulatedBetweenSessions: between-session CV 3 % and within-session
// CV 1 %, 10 workloads x the default gated metrics, 5 trials per arm, each
// arm its own session. The v1 model (trials are the whole noise: here
// assumed_between 0) calls session offsets regressions in most runs; the
// documented defaults (1 % for throughput, 3 % medians, 4 % tails) hold
// the latency metrics but not throughput, whose simulated 3 % is three
// times the studies' 1 %; a calibration of 5 restarts x 5 trials holds
// alpha over 1,000 runs.
func TestSimulatedBetweenSessions(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 1000)
	for _, sc := range []struct {
		name  string
		prior bool
		p     Policy
		limit float64 // 0: measured and reported only
	}{
		{"v1 (no between term)", false, oneSession(), 0},
		{"uncalibrated defaults", false, DefaultPolicy(), 0},
		{"calibrated (5 restarts x 5 trials)", true, DefaultPolicy(), 0.01},
	} {
		t.Run(sc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 31))
			var s simCounts
			warned := 0
			for r := 0; r < runs; r++ {
				w := newWorld(rng, simWorkloads, constant(0.01), 0.03)
				p := sc.p
				if sc.prior {
					p.Noise = w.calibrate(rng, 5, 5)
				}
				cmp, err := Compare(w.session(rng, simTrials, "", 1), w.session(rng, simTrials, "", 1), p, Look{})
				if err != nil {
					t.Fatal(err)
				}
				s.count(cmp, "")
				if hasWarning(cmp.Warnings, "between-session noise not calibrated") {
					warned++
				}
			}
			t.Logf("between CV 3%%, within 1%%, %s, %d runs: any regression %.2f%%, pass %.1f%%, 'not calibrated' warned in %d",
				sc.name, s.runs, 100*s.rate(s.anyRegression), 100*s.rate(s.pass), warned)
			if sc.limit > 0 && s.rate(s.anyRegression) > slack(sc.limit) {
				t.Errorf("%s: false alarms %.2f%% > %.1f%%", sc.name, 100*s.rate(s.anyRegression), 100*sc.limit)
			}
			if (warned > 0) == sc.prior {
				t.Errorf("%s: 'not calibrated' warned in %d of %d runs", sc.name, warned, s.runs)
			}
		})
	}
}

// TestSimulatedHistoryBaseline: the baseline is 10 sessions (a history
// segment) of 5 trials, between-session CV 1 %, within 2 %, 5 candidate
// trials, no calibration: the sessions' spread gives the between-session
// noise. An 8 % TPOT regression in one workload is found and named in at
// least 90 % of runs; the power curve over 3, 5, 8 and 12 % is printed
// next to the power Comparison.Power predicts from each comparison's noise
// estimate and the power a Design predicts from the true noise (what a
// calibration's table says), and both agree within 5 points; so do the
// predicted pass chances of an unchanged cell and its measured pass rate.
func TestSimulatedHistoryBaseline(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 400)
	const sessions = 10
	// 5 points over 400 runs; a quarter of the runs (-short, -race) has
	// twice the sampling error.
	agree, power := 0.05, 0.90
	if reduced() {
		agree, power = 0.10, 0.85
	}
	for i, change := range []float64{0, 0.03, 0.05, 0.08, 0.12} {
		t.Run(fmt.Sprintf("change %.0f%%", 100*change), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, uint64(i)))
			var s simCounts
			var predicted, passChance, wdf, bdf float64
			var design Design
			cellPass := 0
			for r := 0; r < runs; r++ {
				w := newWorld(rng, simWorkloads, constant(0.02), 0.01)
				var base []*result.Result
				for k := 0; k < sessions; k++ {
					ss := w.session(rng, simTrials, "", 1)
					for _, r := range ss {
						r.StartedAt = t0.AddDate(0, 0, k-sessions)
					}
					base = append(base, ss...)
				}
				cmp, err := Compare(base, w.session(rng, simTrials, "tpot_ms.p50", 1+change), DefaultPolicy(), Look{})
				if err != nil {
					t.Fatal(err)
				}
				s.count(cmp, "tpot_ms.p50")
				cell := cellOf(cmp, "w00", "tpot_ms.p50")
				predicted += cmp.Power(cell, change)
				wdf += cell.Noise.WithinDF / float64(runs)
				bdf += cell.Noise.BetweenDF / float64(runs)
				design = Design{CandidateTrials: simTrials, BaselineTrials: simTrials, BaselineSessions: sessions,
					Criterion: Criterion{Tolerance: cell.Tolerance / 100, Family: cmp.Family, LookAlpha: cmp.LookAlpha, PassAlpha: DefaultPolicy().PassAlpha}}
				passChance += cell.PassChance
				if cell.Outcome == Pass {
					cellPass++
				}
				if r == 0 && (cell.Noise.BetweenSource != "sessions" || cell.Baseline.Sessions != sessions) {
					t.Fatalf("between source %q, sessions %d", cell.Noise.BetweenSource, cell.Baseline.Sessions)
				}
			}
			predicted /= float64(runs)
			passChance /= float64(runs)
			// What a calibration that knew the true noise would predict, on
			// the degrees of freedom the comparisons had.
			design.Noise = Prior{WithinVar: math.Log1p(0.02 * 0.02), WithinDF: wdf, BetweenVar: math.Log1p(0.01 * 0.01), BetweenDF: bdf}
			measuredPass := float64(cellPass) / float64(runs)
			if change == 0 {
				t.Logf("A/A, 10-session baseline, %d runs: any regression %.2f%%; w00 tpot_ms.p50 passes %.1f%%, predicted %.1f%% (from the true noise %.1f%%)",
					runs, 100*s.rate(s.anyRegression), 100*measuredPass, 100*passChance, 100*design.PassChance())
				if s.rate(s.anyRegression) > slack(0.01) {
					t.Errorf("A/A false alarms %.2f%% > alpha", 100*s.rate(s.anyRegression))
				}
				if math.Abs(measuredPass-passChance) > agree || math.Abs(measuredPass-design.PassChance()) > agree {
					t.Errorf("pass rate %.1f%% vs predicted %.1f%% (true noise %.1f%%): more than %.0f points apart", 100*measuredPass, 100*passChance, 100*design.PassChance(), 100*agree)
				}
				return
			}
			t.Logf("tpot_ms.p50 +%.0f%%, 10-session baseline, %d runs: named %.1f%%, predicted %.1f%% (from the true noise %.1f%%), other cells named %.2f%%",
				100*change, runs, 100*s.rate(s.named), 100*predicted, 100*design.Power(change), 100*s.rate(s.otherNamed))
			if math.Abs(s.rate(s.named)-predicted) > agree || math.Abs(s.rate(s.named)-design.Power(change)) > agree {
				t.Errorf("+%.0f%%: measured power %.1f%% vs predicted %.1f%% (true noise %.1f%%): more than %.0f points apart", 100*change, 100*s.rate(s.named), 100*predicted, 100*design.Power(change), 100*agree)
			}
			if change == 0.08 && s.rate(s.named) < power {
				t.Errorf("+8%%: named in %.1f%% < 90%%", 100*s.rate(s.named))
			}
		})
	}
}
