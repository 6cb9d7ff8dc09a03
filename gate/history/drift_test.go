package history

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func TestWindow(t *testing.T) {
	c := FromLines("chat", nightly(rand.New(rand.NewPCG(1, 1)), 40, 2, 0, 0.01, flat))
	ref := DefaultReference()
	now := day0.Add(39*24*time.Hour + time.Hour)
	// Sessions promoted at least 30 days before: 0..9; the newest 3.
	if from, to, ok := c.Window(now, ref); !ok || from != 7 || to != 9 {
		t.Errorf("window %d..%d %v, want 7..9", from, to, ok)
	}
	// A young history: its oldest 3 sessions.
	young := FromLines("chat", nightly(rand.New(rand.NewPCG(1, 1)), 5, 2, 0, 0.01, flat))
	if from, to, ok := young.Window(now.AddDate(0, 0, -35), ref); !ok || from != 0 || to != 2 {
		t.Errorf("young window %d..%d %v, want 0..2", from, to, ok)
	}
	tiny := FromLines("chat", nightly(rand.New(rand.NewPCG(1, 1)), 3, 2, 0, 0.01, flat))
	if _, _, ok := tiny.Window(day0.AddDate(0, 0, 5), Reference{Days: 30, Runs: 3}); ok {
		t.Error("a window of every session: nothing older than the baseline to compare with")
	}
	if _, _, ok := c.Window(now, Reference{}); ok {
		t.Error("days 0 must turn the guard off")
	}
}

// nightlyDrift plays nights of the nightly workflow: each night's
// candidate is judged against the newest promoted baseline (the step) and
// against the drift guard's reference window, and promoted when both
// pass. Night i's build is level(i) slower. It returns, per night up to
// the first drift alarm (after it nothing is promoted, so later nights'
// steps are no longer one night's change), the step comparison's verdict
// and whether the drift guard fired.
func nightlyDrift(t *testing.T, rng *rand.Rand, nights int, level func(int) float64) ([]verdict.Outcome, []bool) {
	t.Helper()
	const trials, within = 10, 0.01
	lines := nightly(rng, 3, trials, 0, within, flat) // three quiet nights at the old level
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "output_throughput", Gated: true, Tolerance: 0.03}}
	var steps []verdict.Outcome
	var drift []bool
	for n := 1; n <= nights; n++ {
		at := day0.Add(time.Duration(2+n) * 24 * time.Hour)
		cand := candidate(rng, trials, within, level(n), at)
		base := baseFor(lines[len(lines)-1])
		step, err := verdict.Compare([]*result.Result{base}, []*result.Result{cand}, p, verdict.Look{})
		if err != nil {
			t.Fatal(err)
		}
		c := FromLines("chat", lines)
		var windows []DriftWindow
		if from, to, ok := c.Window(at, DefaultReference()); ok {
			windows = append(windows, DriftWindow{Cell: "chat", Name: c.Describe(from, to), Reference: Pool(c.Results(base, from, to))})
		}
		d, err := CheckDrift(windows, []*result.Result{cand}, p)
		if err != nil {
			t.Fatal(err)
		}
		steps, drift = append(steps, step.Verdict), append(drift, d.Regressed())
		if d.Regressed() {
			break
		}
		if step.Verdict == verdict.Pass && !d.Regressed() {
			l := baseline.HistoryLine{Schema: baseline.HistorySchema, PromotedAt: at.Add(time.Hour), StartedAt: at, GitSHA: "n" + string(rune('a'+n)) + "0000000", WorkloadHash: "h-chat"}
			for _, tr := range cand.Trials {
				l.Trials = append(l.Trials, tr.Values)
			}
			l.Summary = baseline.Summarise(l.Trials)
			lines = append(lines, l)
		}
	}
	return steps, drift
}

// Ten nightly promotions, each 1 % slower than the night before: every
// night's step passes against its baseline, and the drift guard fails by
// the tenth night (cumulative +10 %) naming the window. Without drift the
// guard stays quiet over the same ten nights.
func TestDriftGuardCatchesTenOnePercentSteps(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	caught, stepRegressions, stepPasses, nights, quietFired, firstNight := 0, 0, 0, 0, 0, 0
	for s := 0; s < seeds; s++ {
		rng := rand.New(rand.NewPCG(11, uint64(s)))
		steps, drift := nightlyDrift(t, rng, 10, func(n int) float64 { return float64(n) * math.Log1p(0.01) })
		first := -1
		for n, v := range steps {
			nights++
			switch v {
			case verdict.Regression:
				stepRegressions++
			case verdict.Pass:
				stepPasses++
			}
			if drift[n] && first < 0 {
				first = n + 1
			}
		}
		if first > 0 {
			caught++
			firstNight += first
		}
		_, quiet := nightlyDrift(t, rng, 10, flat)
		for _, f := range quiet {
			if f {
				quietFired++
				break
			}
		}
	}
	t.Logf("drift caught in %d of %d seeded series (first at night %.1f on average); nightly steps: %d of %d pass, %d regressions; A/A series with a drift alarm %d", caught, seeds, float64(firstNight)/float64(max(caught, 1)), stepPasses, nights, stepRegressions, quietFired)
	if caught != seeds {
		t.Errorf("drift caught in %d of %d series, want all", caught, seeds)
	}
	if stepRegressions != 0 {
		t.Errorf("%d nightly 1 %% steps failed their own comparison, want 0", stepRegressions)
	}
	if quietFired > seeds/10 {
		t.Errorf("drift guard fired on %d of %d series without drift", quietFired, seeds)
	}
}

func TestCheckDriftNamesTheWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	lines := nightly(rng, 4, 10, 0, 0.01, flat)
	c := FromLines("chat", lines)
	base := baseFor(lines[3])
	w := DriftWindow{Cell: "chat", Name: c.Describe(0, 2), Reference: Pool(c.Results(base, 0, 2))}
	if got := len(w.Reference.Trials); got != 30 {
		t.Fatalf("pooled %d trials, want 30", got)
	}
	d, err := CheckDrift([]DriftWindow{w}, []*result.Result{candidate(rng, 10, 0.01, math.Log1p(0.10), day0.AddDate(0, 0, 5))}, verdict.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Regressed() || len(d.Messages) == 0 {
		t.Fatalf("no drift found: %+v", d.Comparison.Cells)
	}
	want := "against the reference window (3 runs promoted 2026-10-01..2026-10-03"
	if m := d.Messages[0]; !contains(m, want) || !contains(m, "cumulative drift: chat") {
		t.Errorf("message %q, want it to name the window", m)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
