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

// night is what the gate said on one night of nightlyDrift.
type night struct {
	verdict verdict.Outcome // against the history's current segment
	drift   bool            // the drift guard fired
}

func (n night) failed() bool { return n.verdict == verdict.Regression || n.drift }

// nightlyDrift plays the nightly workflow: each night's candidate (night
// n's build is level(n) slower) is judged as the gate judges it, against
// the history's current segment (SegmentBaselines) and, when guard is
// set, against the drift guard's reference window, and promoted when it
// passes. It stops at the first failing night.
func nightlyDrift(t *testing.T, rng *rand.Rand, nights int, guard bool, level func(int) float64) []night {
	t.Helper()
	const trials, within = 10, 0.01
	lines := nightly(rng, 3, trials, 0, within, flat) // three quiet nights at the old level
	p := verdict.DefaultPolicy()
	p.Rules = []verdict.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "output_throughput", Gated: true, Tolerance: 0.03}}
	var out []night
	for n := 1; n <= nights; n++ {
		at := day0.Add(time.Duration(2+n) * 24 * time.Hour)
		cand := candidate(rng, trials, within, level(n), at)
		base := baseFor(lines[len(lines)-1])
		c := FromLines("chat", lines)
		arm, _ := c.SegmentBaselines(base, []string{"tpot_ms.p50", "output_throughput"}, len(lines)-1, DefaultDetector())
		cmp, err := verdict.Compare(arm, []*result.Result{cand}, p, verdict.Look{})
		if err != nil {
			t.Fatal(err)
		}
		nt := night{verdict: cmp.Verdict}
		if from, to, ok := c.Window(at, DefaultReference()); ok && guard {
			d, err := CheckDrift([]DriftWindow{{Cell: "chat", Name: c.Describe(from, to), Sessions: c.Results(base, from, to)}}, []*result.Result{cand}, p)
			if err != nil {
				t.Fatal(err)
			}
			nt.drift = d.Regressed()
		}
		out = append(out, nt)
		if nt.failed() {
			break
		}
		if nt.verdict == verdict.Pass {
			l := baseline.HistoryLine{Schema: baseline.HistorySchema, PromotedAt: at.Add(time.Hour), StartedAt: at, GitSHA: "n" + string(rune('a'+n)) + "0000000", WorkloadHash: "h-chat"}
			for _, tr := range cand.Trials {
				l.Trials = append(l.Trials, tr.Values)
			}
			l.Summary = baseline.Summarise(l.Trials)
			lines = append(lines, l)
		}
	}
	return out
}

// Ten nightly builds, each 1 % slower than the night before, no step
// beyond the tolerance: the gate fails by the tenth night (cumulative
// +10 %), never while the cumulative change is below the 3 % tolerance,
// and the drift guard is what fails it when the segment has caught up with
// the drift. Without drift the gate stays quiet over the same ten nights.
func TestDriftGuardCatchesTenOnePercentSteps(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for _, guard := range []bool{true, false} {
		caught, early, byGuard, quietFailed, firstNight := 0, 0, 0, 0, 0
		for s := 0; s < seeds; s++ {
			rng := rand.New(rand.NewPCG(11, uint64(s)))
			nights := nightlyDrift(t, rng, 10, guard, func(n int) float64 { return float64(n) * math.Log1p(0.01) })
			if last := nights[len(nights)-1]; last.failed() {
				caught++
				firstNight += len(nights)
				if last.drift {
					byGuard++
				}
				if len(nights) < 3 {
					early++ // failed at a cumulative change below the tolerance
				}
			}
			if quiet := nightlyDrift(t, rng, 10, guard, flat); quiet[len(quiet)-1].failed() {
				quietFailed++
			}
		}
		t.Logf("drift guard %v: cumulative drift caught in %d of %d seeded series, first failing night %.1f on average (%d by the drift guard), %d below the tolerance; A/A series failed: %d",
			guard, caught, seeds, float64(firstNight)/float64(max(caught, 1)), byGuard, early, quietFailed)
		if guard && caught != seeds {
			t.Errorf("drift caught in %d of %d series, want all", caught, seeds)
		}
		if early > 0 || quietFailed > seeds/10 {
			t.Errorf("guard %v: %d series failed below the tolerance, %d of %d A/A series failed", guard, early, quietFailed, seeds)
		}
	}
}

func TestCheckDriftNamesTheWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	lines := nightly(rng, 4, 10, 0, 0.01, flat)
	c := FromLines("chat", lines)
	base := baseFor(lines[3])
	w := DriftWindow{Cell: "chat", Name: c.Describe(0, 2), Sessions: c.Results(base, 0, 2)}
	if got := len(w.Sessions); got != 3 {
		t.Fatalf("%d sessions, want 3", got)
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

// An accepted change of level is not drift: the window starts at it.
func TestWindowStartsAtTheNewestAcceptedChange(t *testing.T) {
	lines := nightly(rand.New(rand.NewPCG(1, 1)), 40, 2, 0, 0.01, flat)
	lines[20].Accepted = "new scheduler, 10 % slower decode by design (#123)"
	c := FromLines("chat", lines)
	now := day0.Add(39*24*time.Hour + time.Hour)
	// Without the acceptance the window would be 7..9 (see TestWindow);
	// with it, the runs since session 20 are younger than 30 days, so the
	// window is their oldest 3.
	if from, to, ok := c.Window(now, DefaultReference()); !ok || from != 20 || to != 22 {
		t.Errorf("window %d..%d %v, want 20..22", from, to, ok)
	}
	// Too few runs since the acceptance: no window yet.
	if _, _, ok := FromLines("chat", lines[:23]).Window(day0.AddDate(0, 0, 22), DefaultReference()); ok {
		t.Error("a window of only the runs since the accepted change")
	}
}
