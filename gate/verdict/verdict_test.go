package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// pair builds a baseline and a candidate of cell "w" with 5 quiet trials
// of every default gated metric; mutate adjusts them.
func pair(seed uint64, mutate func(b, c *result.Result)) ([]*result.Result, []*result.Result) {
	rng := rand.New(rand.NewPCG(seed, 1))
	b, c := simArm(rng, "w", 5, 0.005, nil), simArm(rng, "w", 5, 0.005, nil)
	if mutate != nil {
		mutate(b, c)
	}
	return []*result.Result{b}, []*result.Result{c}
}

func mustCompare(t *testing.T, b, c []*result.Result, p Policy) *Comparison {
	t.Helper()
	cmp, err := Compare(b, c, p, Look{})
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

func TestMatching(t *testing.T) {
	allowMissing := oneSession()
	allowMissing.AllowMissing = true
	allowMismatch := oneSession()
	allowMismatch.AllowMismatch = true
	cases := []struct {
		name    string
		mutate  func(b, c *result.Result)
		policy  Policy
		status  Status
		verdict Outcome
		message string // substring of the workload's message or warnings
	}{
		{"same", nil, oneSession(), Compared, Pass, ""},
		{"hash changed", func(b, c *result.Result) { c.Workload.Hash = "other" }, oneSession(), WorkloadChanged, Invalid, "workload changed since the baseline; re-baseline"},
		{"incomplete candidate", func(b, c *result.Result) { c.Complete, c.IncompleteReason = false, "server died" }, oneSession(), IncompleteRun, Invalid, "server died"},
		{"gpu differs", func(b, c *result.Result) { c.Fingerprint["gpu.name"] = "A100" }, oneSession(), FingerprintMismatch, Invalid, `gpu.name "H100" vs "A100"`},
		{"gpu differs, allowed", func(b, c *result.Result) { c.Fingerprint["gpu.name"] = "A100" }, allowMismatch, Compared, Pass, "--allow-mismatch"},
		{"soft key differs", func(b, c *result.Result) { c.Fingerprint["vllm.version"] = "0.9" }, oneSession(), Compared, Pass, ""},
		{"one invalid trial", func(b, c *result.Result) {
			c.Trials = append(c.Trials, result.Trial{Index: 5, InvalidReason: "client saturated"})
		}, oneSession(), Compared, Pass, "1 invalid candidate trial(s) excluded"},
		{"too many invalid", func(b, c *result.Result) {
			c.Trials[0].Valid, c.Trials[1].Valid = false, false
		}, oneSession(), NoValidTrials, Invalid, "2 of the candidate's 5 trials are invalid"},
		{"old baseline", func(b, c *result.Result) { c.StartedAt = b.StartedAt.Add(40 * 24 * time.Hour) }, oneSession(), Compared, Pass, "40 days older"},
		{"missing gated metric", func(b, c *result.Result) {
			for i := range c.Trials {
				delete(c.Trials[i].Values, "ttft_ms.p99")
			}
		}, oneSession(), Compared, Inconclusive, "ttft_ms.p99 is missing from the candidate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, c := pair(1, tc.mutate)
			cmp := mustCompare(t, b, c, tc.policy)
			w := cmp.Workloads[0]
			if w.Status != tc.status || cmp.Verdict != tc.verdict {
				t.Fatalf("status %s verdict %s, want %s %s (%s)", w.Status, cmp.Verdict, tc.status, tc.verdict, w.Message)
			}
			text := w.Message + "|" + strings.Join(w.Warnings, "|")
			for _, cell := range cmp.Cells {
				text += "|" + strings.Join(cell.Warnings, "|")
			}
			if !strings.Contains(text, tc.message) {
				t.Errorf("message %q lacks %q", text, tc.message)
			}
		})
	}
}

func TestMatchingDetails(t *testing.T) {
	b, c := pair(2, func(b, c *result.Result) {
		c.Fingerprint["vllm.version"] = "0.9"
		c.Trials = append(c.Trials, result.Trial{Index: 7, InvalidReason: "token counts not as requested"})
	})
	cmp := mustCompare(t, b, c, oneSession())
	w := cmp.Workloads[0]
	if len(w.Fingerprint) != 1 || w.Fingerprint[0] != (FingerprintDiff{Key: "vllm.version", Baseline: "", Candidate: "0.9"}) {
		t.Errorf("fingerprint diffs %+v", w.Fingerprint)
	}
	if len(w.Excluded) != 1 || w.Excluded[0] != (Excluded{Arm: "candidate", Trial: 7, Reason: "token counts not as requested"}) {
		t.Errorf("excluded %+v", w.Excluded)
	}
	if w.CandidateTrials != 5 || w.BaselineTrials != 5 {
		t.Errorf("trial counts %d %d", w.BaselineTrials, w.CandidateTrials)
	}
}

func TestMissing(t *testing.T) {
	b, c := pair(3, nil)
	other := simArm(rand.New(rand.NewPCG(4, 4)), "x", 5, 0.005, nil)
	for _, tc := range []struct {
		name    string
		b, c    []*result.Result
		allow   bool
		status  Status
		verdict Outcome
	}{
		{"missing baseline", b, append(c, other), false, MissingBaseline, Invalid},
		{"missing baseline allowed", b, append(c, other), true, MissingBaseline, Pass},
		{"missing candidate", append(b, other), c, false, MissingCandidate, Invalid},
		{"nothing comparable", nil, c, true, MissingBaseline, Invalid},
	} {
		p := oneSession()
		p.AllowMissing = tc.allow
		cmp := mustCompare(t, tc.b, tc.c, p)
		var got Status
		for _, w := range cmp.Workloads {
			if w.Status != Compared {
				got = w.Status
			}
		}
		if got != tc.status || cmp.Verdict != tc.verdict {
			t.Errorf("%s: status %s verdict %s, want %s %s", tc.name, got, cmp.Verdict, tc.status, tc.verdict)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	b, c := pair(5, nil)
	bad := oneSession()
	bad.Alpha = 0
	if _, err := Compare(b, c, bad, Look{}); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("bad alpha: %v", err)
	}
	if _, err := Compare(b, c, oneSession(), Look{Index: 3, Max: 2}); err == nil {
		t.Error("look 3 of 2 accepted")
	}
	if _, err := Compare(b, append(c, c[0]), oneSession(), Look{}); err == nil || !strings.Contains(err.Error(), `two results for workload cell "w"`) {
		t.Errorf("duplicate candidate cell: %v", err)
	}
	if _, err := Compare(append(b, b[0]), c, oneSession(), Look{}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("one baseline session given twice: %v", err)
	}
	withSpec(c[0], map[string]any{"gate": []map[string]any{{"metric": "no_such_metric"}}})
	if _, err := Compare(b, c, oneSession(), Look{}); err == nil || !strings.Contains(err.Error(), "no_such_metric") {
		t.Errorf("unknown gate metric: %v", err)
	}
}

func TestResolve(t *testing.T) {
	p := oneSession()
	off := false
	rules, err := p.Resolve(mustJSON(map[string]any{"gate": []map[string]any{
		{"metric": "ttft_ms.p99", "gated": off},
		{"metric": "tpot_ms.p50", "tolerance": 0.05},
		{"metric": "itl_ms.p99"},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	check := func(id string, gated bool, tol float64) {
		t.Helper()
		if r := rules[id]; r.Gated != gated || r.Tolerance != tol {
			t.Errorf("%s: %+v, want gated %v tolerance %v", id, r, gated, tol)
		}
	}
	check("ttft_ms.p99", false, 0.06)
	check("tpot_ms.p50", true, 0.05)
	check("itl_ms.p99", true, 0.06)
	check("success_rate", true, 0.005)
	check("output_throughput", true, 0.03)
	if _, err := p.Resolve(mustJSON(map[string]any{"gate": []map[string]any{{"metric": "completed"}}})); err == nil {
		t.Error("gating an informational metric accepted")
	}
}

func mustJSON(v any) []byte { return withSpec(&result.Result{}, v).Workload.Spec }

// TestLowSample: imported files may carry one trial per arm. The cell is
// labelled low-confidence and uses the assumed noise; a large slowdown is
// still a regression, a small difference stays inconclusive.
func TestLowSample(t *testing.T) {
	p := oneSession()
	p.Rules = []Rule{{Metric: "tpot_ms.p50", Gated: true}}
	one := func(v float64) []*result.Result {
		return []*result.Result{newResult("w", map[string][]float64{"tpot_ms.p50": {v}})}
	}
	cmp := mustCompare(t, one(10), one(14), p)
	c := cellOf(cmp, "w", "tpot_ms.p50")
	if c.Outcome != Regression || !c.LowConfidence || c.Noise.Source != "assumed" {
		t.Errorf("40%% slowdown, 1 trial: %v low=%v noise=%+v", c, c.LowConfidence, c.Noise)
	}
	cmp = mustCompare(t, one(10), one(10.1), p)
	if c := cellOf(cmp, "w", "tpot_ms.p50"); c.Outcome != Inconclusive || !c.LowConfidence || len(c.Warnings) == 0 {
		t.Errorf("1%% change, 1 trial: %v", c)
	}
}

// TestModeratedHeterogeneity: a workload much noisier than the others
// keeps (most of) its own spread under the empirical-Bayes prior, and the
// quiet ones are not dragged up to it: the prior's weight d0 falls when
// the cells' variances disagree, and when they disagree by far more than
// the inverse-chi-square family describes (d0's bound at most
// minPriorDF) there is no prior and every cell keeps its own spread.
func TestModeratedHeterogeneity(t *testing.T) {
	for _, tc := range []struct {
		noisyCV  float64
		moderate bool
	}{{0.008, true}, {0.15, false}} {
		rng := rand.New(rand.NewPCG(6, 6))
		var b, c []*result.Result
		for w, cell := range []string{"a", "b", "c", "d", "noisy"} {
			cv := 0.005
			if w == 4 {
				cv = tc.noisyCV
			}
			b = append(b, simArm(rng, cell, 6, cv, nil))
			c = append(c, simArm(rng, cell, 6, cv, nil))
		}
		cmp := mustCompare(t, b, c, oneSession())
		for _, n := range cmp.Noise {
			if n.Metric == "success_rate" {
				continue
			}
			// The cap (variances that agree) is the cells' 50 df.
			if n.Pooled != 5 || tc.moderate && (!n.Usable || n.DF > 25) || !tc.moderate && n.Usable {
				t.Errorf("noisy CV %g, %s: prior %+v, want usable %v, with under half the pooled weight", tc.noisyCV, n.Metric, n, tc.moderate)
			}
		}
		noisy, quiet := cellOf(cmp, "noisy", "tpot_ms.p50"), cellOf(cmp, "a", "tpot_ms.p50")
		src := map[bool]string{true: "moderated", false: "own"}[tc.moderate]
		if noisy.Noise.Source != src || noisy.Noise.Sigma < 0.5*tc.noisyCV {
			t.Errorf("noisy CV %g: noisy cell noise %+v, want %s", tc.noisyCV, noisy.Noise, src)
		}
		if quiet.Noise.Sigma > 0.02 || quiet.Noise.Source != src || tc.moderate && quiet.Noise.WithinDF <= 10 {
			t.Errorf("noisy CV %g: quiet cell noise %+v, want %s", tc.noisyCV, quiet.Noise, src)
		}
		if warned := strings.Contains(strings.Join(noisy.Warnings, "\n"), "differ too much"); warned == tc.moderate {
			t.Errorf("noisy CV %g: warnings %q, want the spread named: %v", tc.noisyCV, noisy.Warnings, !tc.moderate)
		}
	}
}

// TestModeratedAgreement: when the workloads' variances agree, the prior
// adds degrees of freedom to every cell (d0 is taken at its lower
// confidence bound, see priorLevel, so fewer than the v1 pool's 80).
func TestModeratedAgreement(t *testing.T) {
	b, c := arms(12, 10, 5, 0.02, "", 1)
	cmp := mustCompare(t, b, c, oneSession())
	cell := cellOf(cmp, "w03", "tpot_ms.p50")
	if cell.Noise.WithinDF < 16 || cell.Noise.Source != "moderated" {
		t.Errorf("equal CVs: within df %.1f (%s), want the prior to add at least 8", cell.Noise.WithinDF, cell.Noise.Source)
	}
}

func TestAbsoluteSuccessRate(t *testing.T) {
	b, c := pair(7, func(b, c *result.Result) {
		for i := range c.Trials {
			c.Trials[i].Values["success_rate"] = 0.98
		}
	})
	cmp := mustCompare(t, b, c, oneSession())
	cell := cellOf(cmp, "w", "success_rate")
	if cell.Outcome != Regression || !cell.Absolute || cell.Worse < 1.99 || cell.Worse > 2.01 || cell.Tolerance != 0.5 {
		t.Errorf("success_rate 1 -> 0.98: %v absolute=%v tol=%v", cell, cell.Absolute, cell.Tolerance)
	}
	if cmp.Headline == nil || cmp.Headline.Metric != "success_rate" || cmp.Cells[0].Metric != "success_rate" {
		t.Errorf("headline %v, first cell %v", cmp.Headline, cmp.Cells[0])
	}
}

func TestZeroValues(t *testing.T) {
	b, c := pair(8, func(b, c *result.Result) { c.Trials[0].Values["output_throughput"] = 0 })
	cmp := mustCompare(t, b, c, oneSession())
	cell := cellOf(cmp, "w", "output_throughput")
	// A throughput that falls to zero is a regression (zero.go), never
	// an inconclusive cell that lets the gate pass.
	if cell.Outcome != Regression || cmp.Verdict != Regression || len(cell.Warnings) == 0 {
		t.Errorf("zero throughput: %v, verdict %s", cell, cmp.Verdict)
	}
}

func TestNeedsTrials(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	// w0 is quiet and passes; w1 is noisy with one trial each: inconclusive.
	b := []*result.Result{simArm(rng, "w0", 5, 0.002, nil), simArm(rng, "w1", 1, 0.05, nil)}
	c := []*result.Result{simArm(rng, "w0", 5, 0.002, nil), simArm(rng, "w1", 1, 0.05, nil)}
	cmp, err := Compare(b, c, oneSession(), Look{Index: 1, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := cmp.NeedsTrials(); len(got) != 1 || got[0] != "w1" {
		t.Errorf("NeedsTrials = %v (verdict %s)", got, cmp.Verdict)
	}
	if cmp.LookAlpha != 0.01/3 {
		t.Errorf("look alpha %v", cmp.LookAlpha)
	}
	cmp, _ = Compare(b, c, oneSession(), Look{Index: 3, Max: 3})
	if got := cmp.NeedsTrials(); got != nil {
		t.Errorf("last look still needs trials: %v", got)
	}
}
