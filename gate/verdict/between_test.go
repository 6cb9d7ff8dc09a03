package verdict

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestDefaultBetweenFromStudies recomputes the between-session spreads of
// the runs of shared/docs/studies.md §6 that should have performed alike
// (the pooled variance of log values: a group of three runs gives its
// sample variance on 2 df, a pair d²/2 on 1 df) and checks the assumed
// default covers every group's own spread, not only the pooled one: an
// assumption below the truth is what made throughput (1 % assumed, 0.84 %
// pooled) fail unchanged builds at a true 2 %.
func TestDefaultBetweenFromStudies(t *testing.T) {
	type group []float64
	sd := func(gs []group) (float64, float64) {
		var ss, df float64
		for _, g := range gs {
			x := make([]float64, len(g))
			for i, v := range g {
				x[i] = math.Log(v)
			}
			ss += variance(x) * float64(len(g)-1)
			df += float64(len(g) - 1)
		}
		return math.Sqrt(ss / df), df
	}
	for _, sc := range []struct {
		metric string
		runs   []group
	}{
		{"output_throughput", []group{{11465, 11533, 11388}, {2.57, 2.54}, {3.73, 3.67}}},
		{"tpot_ms.p50", []group{{1234, 1138, 1166}, {1893, 1864, 1854}, {16.18, 16.87, 16.91}, {1038, 1068}, {1556, 1615}}},
		{"ttft_ms.p99", []group{{3238, 3377}, {6155, 6558}}},
	} {
		pooled, df := sd(sc.runs)
		worst := 0.0
		for _, g := range sc.runs {
			s, _ := sd([]group{g})
			worst = math.Max(worst, s)
		}
		t.Logf("%s: pooled between-session CV %.2f%% on %.0f df, largest group %.2f%%", sc.metric, 100*pooled, df, 100*worst)
		if DefaultBetweenCV(sc.metric) < worst {
			t.Errorf("DefaultBetweenCV(%s) = %v is below a study group's %v", sc.metric, DefaultBetweenCV(sc.metric), worst)
		}
	}
	if DefaultBetweenCV("success_rate") != 0 || DefaultBetweenCV("request_throughput") != DefaultBetween || DefaultBetweenCV("e2el_ms.p99") != DefaultBetween {
		t.Error("metric kinds map to the wrong defaults")
	}
}

// TestBetweenLimit: with the uncalibrated default, an unchanged cell is
// undecided by the between-session term alone, so NeedsTrials stops asking
// for trials and the cell says what would decide it; with both arms in one
// session the same data is a cell more candidate trials can decide.
func TestBetweenLimit(t *testing.T) {
	b, c := arms(3, 10, 5, 0.02, "", 1)
	p := DefaultPolicy()
	p.Rules = []Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}}
	cmp, err := Compare(b, c, p, Look{Index: 1, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	cell := cellOf(cmp, "w00", "tpot_ms.p50")
	if cell.Outcome != Inconclusive || cell.Limit != LimitBetween || !hasWarning(cell.Warnings, "perfgate calibrate") || cell.PassTolerance < 10 {
		t.Errorf("default between: %s limit %q pass tolerance %.1f warnings %q", cell.Outcome, cell.Limit, cell.PassTolerance, cell.Warnings)
	}
	if got, u := cmp.NeedsTrials(), cmp.Undecidable(); len(got) != 0 || len(u) < 5 || u[0] != "w00" {
		t.Errorf("NeedsTrials %v, Undecidable %v", got, cmp.Undecidable())
	}
	if !hasWarning(cmp.Warnings, "between-session noise not calibrated") {
		t.Errorf("warnings %q", cmp.Warnings)
	}
	p.AssumedBetween = map[string]float64{"*": 0}
	one, err := Compare(b, c, p, Look{Index: 1, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cell := cellOf(one, "w00", "tpot_ms.p50"); cell.Outcome == Inconclusive && cell.Limit == LimitBetween {
		t.Errorf("one session: limit %q", cell.Limit)
	}
}

// TestNeedsBaselineTrials: a 3-trial baseline against a 20-trial candidate
// at CV 5 % (one session) leaves the baseline the larger part of the
// standard error, and more candidate trials alone could not pass it:
// the workload is listed as needing baseline trials, and still as needing
// trials at all.
func TestNeedsBaselineTrials(t *testing.T) {
	var cv []float64
	for i := 0; i < 10; i++ {
		cv = append(cv, 9.5, 10.5)
	}
	b := []*result.Result{newResult("w", map[string][]float64{"tpot_ms.p50": {9.5, 10, 10.5}})}
	c := []*result.Result{newResult("w", map[string][]float64{"tpot_ms.p50": cv})}
	p := oneSession()
	p.Rules = []Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}}
	cmp, err := Compare(b, c, p, Look{Index: 1, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	cell := cellOf(cmp, "w", "tpot_ms.p50")
	if cell.Outcome != Inconclusive || cell.Limit != LimitBaseline {
		t.Fatalf("outcome %s limit %q", cell.Outcome, cell.Limit)
	}
	if got := cmp.NeedsBaselineTrials(); len(got) != 1 || got[0] != "w" {
		t.Errorf("NeedsBaselineTrials = %v", got)
	}
	if got := cmp.NeedsTrials(); len(got) != 1 {
		t.Errorf("NeedsTrials = %v", got)
	}
	// The report says so: the gate adds candidate trials only.
	said := false
	for _, w := range cell.Warnings {
		said = said || strings.Contains(w, "the baseline's 3 trial(s) are the larger part")
	}
	if !said {
		t.Errorf("no warning names the baseline as the limit: %q", cell.Warnings)
	}
}

// TestPolicyNoiseKnobs: assumed_between and outlier_alpha are validated.
func TestPolicyNoiseKnobs(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Policy)
		want string
	}{
		{"unknown metric", func(p *Policy) { p.AssumedBetween = map[string]float64{"nope": 0.01} }, `assumed_between: unknown metric "nope"`},
		{"negative", func(p *Policy) { p.AssumedBetween = map[string]float64{"*": -0.01} }, "assumed_between.*"},
		{"outlier alpha", func(p *Policy) { p.OutlierAlpha = 0.7 }, "outlier_alpha 0.7"},
	} {
		p := DefaultPolicy()
		c.set(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	p := DefaultPolicy()
	p.AssumedBetween = map[string]float64{"*": 0, "ttft_ms.p99": 0.05}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if v, set := p.assumedBetween("tpot_ms.p50"); v != 0 || !set {
		t.Errorf("tpot_ms.p50 under *: %v %v", v, set)
	}
	if v, _ := p.assumedBetween("ttft_ms.p99"); math.Abs(v-math.Log1p(0.05*0.05)) > 1e-15 {
		t.Errorf("ttft_ms.p99: %v", v)
	}
}

// TestDesignMatchesCompare: a Design with the noise a comparison used
// predicts the same standard error, MDE, pass tolerance and pass chance as
// the comparison's cell (the calibrate table and the report agree).
func TestDesignMatchesCompare(t *testing.T) {
	b, c := arms(13, 10, 5, 0.02, "", 1)
	p := DefaultPolicy()
	p.Noise = Priors{}
	for w := 0; w < 10; w++ {
		cell := map[string]Prior{}
		for _, id := range DefaultGated {
			cell[id] = Prior{BetweenVar: 0.01 * 0.01, BetweenDF: 20, Source: "calibration"}
		}
		p.Noise[b[w].Workload.Cell] = cell
	}
	cmp := mustCompare(t, b, c, p)
	cell := cellOf(cmp, "w04", "tpot_ms.p50")
	d := Design{
		CandidateTrials: 5, BaselineTrials: 5, BaselineSessions: 1,
		Noise: Prior{WithinVar: cell.Noise.Sigma * cell.Noise.Sigma, WithinDF: cell.Noise.WithinDF,
			BetweenVar: cell.Noise.Between * cell.Noise.Between, BetweenDF: cell.Noise.BetweenDF},
		Criterion: Criterion{Tolerance: cell.Tolerance / 100, Family: cmp.Family, LookAlpha: cmp.LookAlpha, PassAlpha: p.PassAlpha},
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"MDE", 100 * d.MDE(), cell.MDE},
		{"pass tolerance", 100 * d.PassTolerance(), cell.PassTolerance},
		{"pass chance", d.PassChance(), cell.PassChance},
		{"power at 8 %", d.Power(0.08), cmp.Power(cell, 0.08)},
	} {
		if math.Abs(c.got-c.want) > 1e-6*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: design %v, comparison %v", c.name, c.got, c.want)
		}
	}
	// Ten baseline sessions shrink the session term: a smaller MDE.
	d10 := d
	d10.BaselineSessions = 10
	if d10.MDE() >= d.MDE() {
		t.Errorf("MDE with 10 sessions %v, with one %v", d10.MDE(), d.MDE())
	}
}

// TestAssumedBetweenWarningIsShort: a policy of "*=0" over a whole
// comparison names the entry and a count, not every metric id (the demo's
// warning was 1,378 characters), and a metric's own entry is named.
func TestAssumedBetweenWarningIsShort(t *testing.T) {
	p := &Policy{AssumedBetween: map[string]float64{"*": 0, "ttft_ms.p99": 0.05}}
	ids := []string{"ttft_ms.p50", "ttft_ms.p99", "tpot_ms.p50", "output_throughput"}
	got := betweenWarnings(nil, ids, p)
	want := "between-session noise not calibrated: the policy's assumed_between is used (CV 5.0% for ttft_ms.p99; `*` = CV 0.0% for 3 other metric(s))"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
