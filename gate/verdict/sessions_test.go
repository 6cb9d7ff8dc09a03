package verdict

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// sessionsOf draws k baseline sessions of cell "w" (5 trials, CV 1 %),
// session s's level multiplied by levels[s].
func sessionsOf(rng *rand.Rand, levels []float64) []*result.Result {
	var out []*result.Result
	for s, f := range levels {
		factor := map[string]float64{}
		for _, id := range DefaultGated {
			if id != "success_rate" {
				factor[id] = f
			}
		}
		r := simArm(rng, "w", 5, 0.01, factor)
		r.StartedAt = t0.AddDate(0, 0, s-len(levels))
		out = append(out, r)
	}
	return out
}

// TestSeveralSessionBaseline: several baseline results of one cell are
// sessions: the level is the mean of the session means (not of the pooled
// trials), the sessions' spread is the between-session noise, and the
// baseline's invalid trials are listed by session.
func TestSeveralSessionBaseline(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	base := sessionsOf(rng, []float64{0.97, 1.0, 1.03, 1.0})
	base[3].Trials = append(base[3].Trials, result.Trial{Index: 9, InvalidReason: "client saturated"})
	// Give session 1 three more trials: a pooled mean would lean toward it.
	extra := simArm(rng, "w", 3, 0.01, map[string]float64{"tpot_ms.p50": 0.97})
	for i, tr := range extra.Trials {
		tr.Index = 5 + i
		base[0].Trials = append(base[0].Trials, tr)
	}
	cand := []*result.Result{simArm(rng, "w", 5, 0.01, nil)}
	cmp := mustCompare(t, base, cand, DefaultPolicy())
	w := cmp.Workloads[0]
	if w.Status != Compared || w.BaselineSessions != 4 || w.BaselineTrials != 23 {
		t.Fatalf("workload %+v", w)
	}
	if len(w.Excluded) != 1 || w.Excluded[0].Session != 4 || w.Excluded[0].Trial != 9 {
		t.Errorf("excluded %+v, want trial 9 of session 4", w.Excluded)
	}
	cell := cellOf(cmp, "w", "tpot_ms.p50")
	if cell.Baseline.Sessions != 4 || cell.Noise.BetweenSource != "sessions" || cell.Noise.BetweenDF != 3 {
		t.Errorf("baseline %d sessions, between %q on %v df", cell.Baseline.Sessions, cell.Noise.BetweenSource, cell.Noise.BetweenDF)
	}
	var sessionMeans float64
	for _, s := range base {
		var x []float64
		for _, v := range s.Samples("tpot_ms.p50") {
			x = append(x, math.Log(v))
		}
		sessionMeans += mean(x) / 4
	}
	if got := math.Log(cell.Baseline.Centre); math.Abs(got-sessionMeans) > 1e-12 {
		t.Errorf("baseline centre %v, want the mean of session means %v", cell.Baseline.Centre, math.Exp(sessionMeans))
	}
	// A 2.4 % session spread (sd of 0.97, 1, 1.03, 1) is measured.
	if cell.Noise.Between < 0.01 || cell.Noise.Between > 0.05 {
		t.Errorf("between-session sd %.4f, want about 0.024", cell.Noise.Between)
	}
	if hasWarning(cmp.Warnings, "tpot_ms.p50") {
		t.Errorf("tpot_ms.p50 measured from sessions but listed as not calibrated: %q", cmp.Warnings)
	}
}

// TestSessionMismatch: a baseline session that cannot be compared (another
// workload hash) decides the workload's status, named by its number.
func TestSessionMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	base := sessionsOf(rng, []float64{1, 1, 1})
	base[1].Workload.Hash = "old"
	cmp := mustCompare(t, base, []*result.Result{simArm(rng, "w", 5, 0.01, nil)}, DefaultPolicy())
	w := cmp.Workloads[0]
	if w.Status != WorkloadChanged || !strings.Contains(w.Message, "baseline session 2 of 3") {
		t.Errorf("status %s message %q", w.Status, w.Message)
	}
}

// TestSessionsShrinkTheSessionTerm: with the same between-session noise
// known (a calibration), a baseline of 10 sessions has a smaller standard
// error than one of a single session: σb²(1 + 1/m) instead of 2σb².
func TestSessionsShrinkTheSessionTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	prior := Priors{"w": {}}
	for _, id := range DefaultGated {
		prior["w"][id] = Prior{BetweenVar: 0.02 * 0.02, BetweenDF: 1000, Source: "calibration"}
	}
	p := DefaultPolicy()
	p.Noise = prior
	cand := []*result.Result{simArm(rng, "w", 5, 0.01, nil)}
	one := cellOf(mustCompare(t, sessionsOf(rng, []float64{1}), cand, p), "w", "tpot_ms.p50")
	ten := cellOf(mustCompare(t, sessionsOf(rng, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), cand, p), "w", "tpot_ms.p50")
	if one.Noise.BetweenSource != "calibration" || ten.Noise.BetweenSource != "calibration+sessions" {
		t.Errorf("sources %q, %q", one.Noise.BetweenSource, ten.Noise.BetweenSource)
	}
	// One session: SE ≥ sqrt(2)·2 %; ten: about sqrt(1.1)·2 %.
	if one.Noise.SE < 0.028 || ten.Noise.SE > 0.024 {
		t.Errorf("SE one session %.4f, ten sessions %.4f", one.Noise.SE, ten.Noise.SE)
	}
}
