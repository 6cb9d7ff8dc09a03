package verdict

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// The simulations of this file are the evidence behind the defaults and the
// rates quoted in docs/statistics.md. They are seeded, so they are exact
// regression tests of the method, and sized to keep the package fast.
// Run with -v to see the observed rates.

const (
	simWorkloads = 10
	simTrials    = 5
	simCV        = 0.02
)

// simRuns is the number of simulated gate runs per scenario; -short and
// -race keep a quarter (the bounds below are then checked with more slack).
func simRuns(t *testing.T, full int) int {
	if reduced() {
		return full / 4
	}
	return full
}

type simCounts struct {
	runs, anyRegression, named, otherNamed, pass, inconclusive int
}

func (s simCounts) rate(n int) float64 { return float64(n) / float64(s.runs) }

// simulate runs gate comparisons with log-normal trials (CV simCV) and,
// when inject is set, multiplies metric inject of workload w00 by factor in
// the candidate.
func simulate(t *testing.T, p Policy, seed uint64, runs int, inject string, factor float64) simCounts {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var s simCounts
	for r := 0; r < runs; r++ {
		var b, c []*result.Result
		for w := 0; w < simWorkloads; w++ {
			cell := fmt.Sprintf("w%02d", w)
			b = append(b, simArm(rng, cell, simTrials, simCV, nil))
			var f map[string]float64
			if w == 0 && inject != "" {
				f = map[string]float64{inject: factor}
			}
			c = append(c, simArm(rng, cell, simTrials, simCV, f))
		}
		cmp, err := Compare(b, c, p, Look{Index: 1, Max: 1})
		if err != nil {
			t.Fatal(err)
		}
		s.count(cmp, inject)
	}
	return s
}

func (s *simCounts) count(cmp *Comparison, inject string) {
	s.runs++
	switch cmp.Verdict {
	case Regression:
		s.anyRegression++
	case Pass:
		s.pass++
	case Inconclusive:
		s.inconclusive++
	}
	named, other := false, false
	for _, c := range cmp.Cells {
		if c.Outcome != Regression || !c.Gated {
			continue
		}
		if c.Workload == "w00" && c.Metric == inject {
			named = true
		} else {
			other = true
		}
	}
	if named && cmp.Headline != nil && cmp.Headline.Metric == inject && cmp.Headline.Workload == "w00" {
		s.named++
	}
	if other {
		s.otherNamed++
	}
}

// TestSimulatedFalseAlarms: on unchanged builds the share of gate runs that
// report any regression stays at alpha (0.01): over 2,000 runs an observed
// rate up to 1.5 % is consistent with that.
func TestSimulatedFalseAlarms(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 2000)
	s := simulate(t, oneSession(), 1, runs, "", 1)
	t.Logf("A/A, %d runs of %d workloads x %d gated metrics x %d trials, CV %.0f%%: any regression %.2f%%, pass %.1f%%, inconclusive %.1f%%",
		s.runs, simWorkloads, len(DefaultGated), simTrials, 100*simCV, 100*s.rate(s.anyRegression), 100*s.rate(s.pass), 100*s.rate(s.inconclusive))
	limit := 0.015
	if reduced() {
		limit = 0.025
	}
	if s.rate(s.anyRegression) > limit {
		t.Errorf("A/A false-alarm rate %.2f%% > %.1f%%", 100*s.rate(s.anyRegression), 100*limit)
	}
}

// TestSimulatedPower: an 8 % regression in one metric of one workload is
// found and named (as the headline) in at least 90 % of runs, and other
// cells are falsely named in at most about alpha of runs.
func TestSimulatedPower(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 1000)
	for i, metric := range []string{"tpot_ms.p50", "output_throughput", "ttft_ms.p99"} {
		factor := 1.08
		if metric == "output_throughput" {
			factor = 1 / 1.08 // 8 % slower is 7.4 % less throughput
		}
		if metric == "ttft_ms.p99" {
			factor = 1.12 // tail metrics have a 6 % tolerance
		}
		s := simulate(t, oneSession(), uint64(10+i), runs/2, metric, factor)
		t.Logf("%s x%.3f: named %.1f%%, other cells named %.2f%% of %d runs", metric, factor, 100*s.rate(s.named), 100*s.rate(s.otherNamed), s.runs)
		want := 0.90
		if reduced() {
			want = 0.85 // a quarter of the runs: twice the sampling error
		}
		if s.rate(s.named) < want {
			t.Errorf("%s x%.3f found and named in %.1f%% of runs, want >= %.0f%%", metric, factor, 100*s.rate(s.named), 100*want)
		}
		if s.rate(s.otherNamed) > 0.02 {
			t.Errorf("%s: other cells named in %.2f%% of runs, want <= ~1%%", metric, 100*s.rate(s.otherNamed))
		}
	}
}

// TestSimulatedPoolingMatters: without pooling (each cell tested with its
// own 5 + 5 trials, Welch), the same 8 % regression is found far less
// often: Holm's per-cell threshold then needs t of about 5 at ~8 degrees
// of freedom. This is why the noise is pooled per metric.
func TestSimulatedPoolingMatters(t *testing.T) {
	runs := simRuns(t, 200)
	own := oneSession()
	own.MinPooledDF = 1 << 20 // never usable: every cell uses its own spread
	pooled := simulate(t, oneSession(), 20, runs, "tpot_ms.p50", 1.08)
	alone := simulate(t, own, 20, runs, "tpot_ms.p50", 1.08)
	aa := simulate(t, own, 21, runs, "", 1)
	t.Logf("tpot_ms.p50 x1.08, %d runs: named %.1f%% pooled vs %.1f%% per-cell Welch; per-cell Welch A/A false alarms %.2f%%",
		runs, 100*pooled.rate(pooled.named), 100*alone.rate(alone.named), 100*aa.rate(aa.anyRegression))
	if alone.rate(alone.named) > pooled.rate(pooled.named)-0.15 {
		t.Errorf("per-cell Welch found %.1f%%, pooled %.1f%%: pooling should matter", 100*alone.rate(alone.named), 100*pooled.rate(pooled.named))
	}
}

// TestSimulatedLooks: perfgate gate adds 5 candidate trials to every
// workload with an inconclusive gated cell and compares again, up to
// MaxLooks looks, against a fixed baseline. With alpha split evenly over
// the looks, the A/A chance of a false regression at any look stays at most
// alpha; an 8 % regression is still found with alpha/MaxLooks per look.
func TestSimulatedLooks(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 200)
	for _, sc := range []struct {
		name       string
		baseTrials int
		inject     string
	}{
		{"A/A, baseline 5 trials", 5, ""},
		{"A/A, baseline 10 trials", 10, ""},
		{"A/A, baseline 20 trials", 20, ""},
		{"tpot_ms.p50 x1.08, baseline 5 trials", 5, "tpot_ms.p50"},
	} {
		s, meanLooks := simulateLooks(t, 99, runs, sc.baseTrials, sc.inject, 1.08)
		t.Logf("%s, up to %d looks, %d runs: any regression %.2f%%, named %.1f%%, other named %.2f%%, pass %.1f%%, inconclusive %.1f%%, mean looks %.2f",
			sc.name, oneSession().MaxLooks, runs, 100*s.rate(s.anyRegression), 100*s.rate(s.named), 100*s.rate(s.otherNamed), 100*s.rate(s.pass), 100*s.rate(s.inconclusive), meanLooks)
		if sc.inject == "" && s.rate(s.anyRegression) > 0.02 {
			t.Errorf("%s: false regression over looks %.2f%% > alpha", sc.name, 100*s.rate(s.anyRegression))
		}
		if sc.inject != "" && s.rate(s.named) < 0.90 {
			t.Errorf("%s: named in %.1f%% of runs, want >= 90%%", sc.name, 100*s.rate(s.named))
		}
	}
}

func simulateLooks(t *testing.T, seed uint64, runs, baseTrials int, inject string, factor float64) (simCounts, float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := oneSession()
	var s simCounts
	looks := 0
	for r := 0; r < runs; r++ {
		b := map[string]*result.Result{}
		c := map[string]*result.Result{}
		f := map[string]map[string]float64{}
		for w := 0; w < simWorkloads; w++ {
			cell := fmt.Sprintf("w%02d", w)
			if w == 0 && inject != "" {
				f[cell] = map[string]float64{inject: factor}
			}
			b[cell] = simArm(rng, cell, baseTrials, simCV, nil)
			c[cell] = simArm(rng, cell, simTrials, simCV, f[cell])
		}
		for look := 1; look <= p.MaxLooks; look++ {
			cmp, err := Compare(values(b), values(c), p, Look{Index: look, Max: p.MaxLooks})
			if err != nil {
				t.Fatal(err)
			}
			looks++
			more := cmp.NeedsTrials()
			if len(more) == 0 {
				s.count(cmp, inject)
				break
			}
			for _, cell := range more {
				extra := simArm(rng, cell, simTrials, simCV, f[cell])
				c[cell].Trials = append(c[cell].Trials, extra.Trials...)
			}
		}
	}
	return s, float64(looks) / float64(runs)
}

func values(m map[string]*result.Result) []*result.Result {
	out := make([]*result.Result, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	return out
}

func reduced() bool { return testing.Short() || raceBuild }

// TestSimulatedPassRule: pass means "the worsening is inside the
// tolerance" with confidence 1-PassAlpha. A cell whose true worsening is
// exactly its tolerance passes in at most PassAlpha of runs; unchanged
// builds pass overall when the noise is small against the tolerance, and
// stay inconclusive (not pass) when it is not.
func TestSimulatedPassRule(t *testing.T) {
	t.Parallel() // seeded and pure: its own rng, no shared state
	runs := simRuns(t, 200)
	p := oneSession()
	for _, sc := range []struct {
		cv       float64
		trials   int
		factor   float64 // on tpot_ms.p50 of w00
		minPass  float64 // overall pass rate at least
		maxCell  float64 // w00/tpot_ms.p50 pass rate at most
		describe string
	}{
		{0.01, 5, 1, 0.90, 1, "A/A, CV 1%, 5 trials"},
		{0.02, 5, 1, 0, 1, "A/A, CV 2%, 5 trials"},
		{0.02, 10, 1, 0, 1, "A/A, CV 2%, 10 trials"},
		{0.02, 20, 1, 0.90, 1, "A/A, CV 2%, 20 trials"},
		{0.02, 10, 1.03, 0, p.PassAlpha + 0.05, "tpot_ms.p50 +3% (= tolerance), CV 2%, 10 trials"},
		{0.02, 5, 1.06, 0, 0.01, "tpot_ms.p50 +6% (2x tolerance), CV 2%, 5 trials"},
	} {
		rng := rand.New(rand.NewPCG(uint64(1000*sc.cv)+uint64(sc.trials), 11))
		var pass, cellPass int
		for r := 0; r < runs; r++ {
			var b, c []*result.Result
			for w := 0; w < simWorkloads; w++ {
				cell := fmt.Sprintf("w%02d", w)
				b = append(b, simArm(rng, cell, sc.trials, sc.cv, nil))
				var f map[string]float64
				if w == 0 && sc.factor != 1 {
					f = map[string]float64{"tpot_ms.p50": sc.factor}
				}
				c = append(c, simArm(rng, cell, sc.trials, sc.cv, f))
			}
			cmp, err := Compare(b, c, p, Look{})
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Verdict == Pass {
				pass++
			}
			if cell := cellOf(cmp, "w00", "tpot_ms.p50"); cell.Outcome == Pass {
				cellPass++
			}
		}
		pr, cr := float64(pass)/float64(runs), float64(cellPass)/float64(runs)
		t.Logf("%s, %d runs: overall pass %.1f%%, w00 tpot_ms.p50 pass %.1f%%", sc.describe, runs, 100*pr, 100*cr)
		if pr < sc.minPass {
			t.Errorf("%s: overall pass %.1f%% < %.0f%%", sc.describe, 100*pr, 100*sc.minPass)
		}
		if cr > sc.maxCell {
			t.Errorf("%s: the changed cell passed in %.1f%% of runs > %.0f%%", sc.describe, 100*cr, 100*sc.maxCell)
		}
	}
}
