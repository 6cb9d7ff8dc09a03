package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestABReportGolden: a paired comparison reads "B vs A" in the headline,
// the sentence and the table headers, counts blocks rather than trials,
// names the moved metrics, lists the blocks with their start-up times,
// and names no stored baseline (an A/B experiment has none).
func TestABReportGolden(t *testing.T) {
	d := abFixture(t, "ab-regression")
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "ab-regression.md", md.Bytes())
	golden(t, "ab-regression.txt", txt.Bytes())
	first, _, _ := strings.Cut(md.String(), "\n")
	if !strings.HasPrefix(first, "### ❌ B vs A: Regression in cx8-4000-1000-c16: TPOT p") || !strings.HasSuffix(first, ", 8 vs 8 blocks; 2 regressed metrics in all") {
		t.Errorf("headline %q", first)
	}
	for _, want := range []string{"| Metric | A | B |", "B is worse than A in ", "Server start-ups took ", "| 2 | B | 09:03:00 | ",
		"cx8-4000-1000-c16: TPOT p50, B vs A per block pair: +", "#### ❌ cx8-4000-1000-c16 — regression, 8 vs 8 blocks, 16 vs 16 trials (1 invalid trial(s) excluded)",
		"| cx8-4000-1000-c16 | B | 16 | server died: &lt;EOF&gt; |", "(add blocks)", "| pairs (df 6) |", "`ab-out/a/cx8-4000-1000-c16.json`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, not := range []string{"| Baseline | Candidate |", " old", "baseline `", "vs 5 trials", "add trials", "| candidate |", "baseline → candidate"} {
		if strings.Contains(md.String(), not) {
			t.Errorf("a paired report says %q", not)
		}
	}
	for _, want := range []string{"B vs A: REGRESSION in cx8-4000-1000-c16", "A         B         CHANGE", "Server start-up per block: 1A "} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
}

// TestABReportUndecided: an undecided experiment says, from gate/ab's
// plans, what the blocks run could decide and how many blocks (and how
// much time at the measured time per block) would decide every undecided
// gated metric, in one line and per metric, in both reports.
func TestABReportUndecided(t *testing.T) {
	d := abFixture(t, "ab-undecided")
	c := d.Comparison
	if c.Verdict != verdict.Inconclusive || c.AB.Plan == nil || len(undecidedPlans(c)) != c.Inconclusives {
		t.Fatalf("the fixture is not an undecided experiment with plans: %s, plan %+v, %d plans, %d undecided", c.Verdict, c.AB.Plan, len(undecidedPlans(c)), c.Inconclusives)
	}
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "ab-undecided.md", md.Bytes())
	golden(t, "ab-undecided.txt", txt.Bytes())
	p := c.AB.Plan
	line := fmt.Sprintf("%d gated metric(s) undecided at 8 blocks, which find a worsening of twice the tolerance with at least %s power. Deciding all of them takes %s in all",
		c.Inconclusives, chance(p.Power), blocksText(p.BlocksToPass))
	if !strings.Contains(md.String(), line) || !strings.Contains(txt.String(), line) {
		t.Errorf("the reports lack the plan line %q", line)
	}
	if !strings.Contains(md.String(), ", at the measured 3 min per block.") {
		t.Errorf("markdown lacks the cost per block")
	}
	for _, cell := range undecidedPlans(c) {
		row := fmt.Sprintf("| %s | %s | %s | %s | %s | %s | ", Escape(cell.Workload), Escape(cell.Label), Tolerance(cell),
			planTolerance(cell, cell.PassTolerance), planChange(cell, cell.Plan.Change), chance(cell.Plan.Power))
		if !strings.Contains(md.String(), row) {
			t.Errorf("markdown lacks the plan row %q", row)
		}
		if !strings.Contains(txt.String(), "  "+cell.Workload+": "+cell.Label+": finds ") {
			t.Errorf("text lacks the plan of %s", cell.Label)
		}
	}
	// A decided experiment has no plan.
	r := abFixture(t, "ab-regression")
	var rmd bytes.Buffer
	if err := Markdown(&rmd, r, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rmd.String(), "What more blocks would decide") {
		t.Error("a decided experiment shows a plan")
	}
}

// TestPlanText: block counts and costs as the plan prints them.
func TestPlanText(t *testing.T) {
	for _, tc := range []struct {
		n      int
		blockS float64
		blocks string
		cost   string
	}{
		{40, 80, "40 blocks", " (about 53 min)"},
		{0, 80, "more than 400 blocks", ""},
		{24, 0, "24 blocks", ""},
		{400, 200, "400 blocks", " (about 22.2 h)"},
		{1, 30, "1 blocks", " (about 30 s)"},
	} {
		if got := blocksText(tc.n); got != tc.blocks {
			t.Errorf("blocksText(%d) = %q, want %q", tc.n, got, tc.blocks)
		}
		if got := costText(tc.n, tc.blockS); got != tc.cost {
			t.Errorf("costText(%d, %v) = %q, want %q", tc.n, tc.blockS, got, tc.cost)
		}
	}
}

// TestABReportResident: a pass with improvements names them, two resident
// servers report no start-ups, and a report without an experiment has no
// A/B section.
func TestABReportResident(t *testing.T) {
	d := loadFixture(t, "pass")
	var plainMD bytes.Buffer
	if err := Markdown(&plainMD, d, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plainMD.String(), "Interleaved A/B") {
		t.Error("a stored-baseline report shows an A/B section")
	}
	d.AB = &AB{Order: "AB", Resident: true, Blocks: []result.Block{{Index: 1, Arm: "a", Trials: 1}, {Index: 2, Arm: "b", Trials: 1}}}
	var md bytes.Buffer
	if err := Markdown(&md, d, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"B is better than A in ", "one long-running server per arm"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "start-ups took") {
		t.Error("resident servers reported start-ups")
	}
}

// TestABHeadlineInconclusive: an undecided experiment says it ran out of
// blocks, not of a trial budget it never had.
func TestABHeadlineInconclusive(t *testing.T) {
	d := loadFixture(t, "inconclusive")
	d.AB = &AB{Order: "ABBA"}
	if h := Headline(d); !strings.HasPrefix(h, "B vs A: Inconclusive") || !strings.Contains(h, "undecided within the blocks run") {
		t.Errorf("headline %q", h)
	}
}

// TestABPairedComparisonAlone: a comparison gate/ab made says B vs A even
// when the caller passes no design (perfgate compare --format of a saved
// comparison, a library user).
func TestABPairedComparisonAlone(t *testing.T) {
	d := loadFixture(t, "regression")
	d.Comparison.AB = &verdict.Paired{Order: "ABBA", Blocks: 4, Pairs: 2}
	var md bytes.Buffer
	if err := Markdown(&md, d, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "### ❌ B vs A: Regression") || !strings.Contains(md.String(), "| Metric | A | B |") ||
		!strings.Contains(md.String(), "4 blocks in the fixed ABBA BAAB order") || strings.Contains(md.String(), "Blocks in run order") {
		t.Errorf("a paired comparison without Data.AB:\n%.400s", md.String())
	}
}
