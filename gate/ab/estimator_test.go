package ab

import (
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestSeededEstimators measures the three ways of combining the pair
// differences at the default design and one look: under a drift of
// 2 %/minute (no per-start offset) and under a per-start offset of CV 2 %
// (no drift). The drift alternates in sign between the pairs of ABBA BAAB;
// the plain mean cancels it but its interval carries it, quads cancel it at
// the price of half the degrees of freedom, and the drift regression removes
// it for one degree of freedom. The regression is the default because it
// is the only one within 10 points of the best power in every world: the
// plain mean loses nearly all its power under drift, quads most of theirs
// to the per-start offset, and the regression pays one degree of freedom
// for the insurance (about 10 points of power where there is no drift).
func TestSeededEstimators(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	p := verdict.DefaultPolicy()
	p.MaxLooks = 1
	type row struct{ se, falseAlarms, power float64 }
	measure := func(w world, e Estimator) row {
		var out row
		n := runs() / 2
		for i := 0; i < n; i++ {
			for _, b := range []arm{{1, 1}, {1, 1.05}} {
				r := rand.New(rand.NewPCG(uint64(i), 0xe5))
				c, _ := abRun(w, r, arm{1, 1}, b, Options{Policy: p, Estimator: e}, DefaultBlocks, DefaultBlockTrials, 0)
				cell := cellOf(c, "tpot_ms.p50")
				if b.Decode == 1 {
					out.se += cell.Noise.SE / float64(n)
					if c.Verdict == verdict.Regression {
						out.falseAlarms += 1 / float64(n)
					}
				} else if cell.Outcome == verdict.Regression {
					out.power += 1 / float64(n)
				}
			}
		}
		return out
	}
	worlds := []struct {
		name string
		w    world
	}{{"drift 2%/min", drifting}, {"per-start CV 2%", restarting},
		{"both", world{TrialS: 30, StartupS: 60, DriftPctPerMinute: 2, SessionCV: 0.02}}}
	got := map[string]map[Estimator]row{}
	for _, wc := range worlds {
		got[wc.name] = map[Estimator]row{}
		for _, e := range []Estimator{Pairs, Quads, PairsDrift} {
			r := measure(wc.w, e)
			got[wc.name][e] = r
			t.Logf("%-16s %-12s TPOT p50 mean SE %.2f%%, A/A false alarms %.1f%%, power vs decode x1.05 %.1f%%", wc.name, e, 100*r.se, 100*r.falseAlarms, 100*r.power)
			if r.falseAlarms > p.Alpha {
				t.Errorf("%s, %s: A/A false alarms %.3f > alpha", wc.name, e, r.falseAlarms)
			}
		}
	}
	d := got["drift 2%/min"]
	if d[PairsDrift].se > d[Pairs].se/2 {
		t.Errorf("under drift the drift regression's SE %.4f is not well below the plain mean's %.4f", d[PairsDrift].se, d[Pairs].se)
	}
	for _, wc := range worlds {
		best := 0.0
		for _, r := range got[wc.name] {
			best = max(best, r.power)
		}
		if got[wc.name][PairsDrift].power < best-0.1 {
			t.Errorf("%s: the drift regression's power %.3f is more than 10 points below the best %.3f", wc.name, got[wc.name][PairsDrift].power, best)
		}
	}
	if d[Pairs].power > d[PairsDrift].power-0.3 {
		t.Errorf("under drift the plain mean's power %.3f is not far below the regression's %.3f: the drift should inflate its interval", d[Pairs].power, d[PairsDrift].power)
	}
	if c := got["per-start CV 2%"]; c[Quads].power > c[PairsDrift].power-0.2 {
		t.Errorf("per-start CV 2%%: quads' power %.3f is not far below the drift regression's %.3f (half the degrees of freedom should cost)", c[Quads].power, c[PairsDrift].power)
	}
}
