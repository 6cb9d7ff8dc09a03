package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// abFixture is the regression scenario as the paired verdict of an
// interleaved experiment: four restarted blocks in ABBA order.
func abFixture(t *testing.T) *Data {
	d := loadFixture(t, "regression")
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	d.AB = &AB{Order: "ABBA", Blocks: []result.Block{
		{Index: 1, Arm: "a", StartupS: 41.5, StartedAt: t0, Trials: 3},
		{Index: 2, Arm: "b", StartupS: 43.25, StartedAt: t0.Add(3 * time.Minute), Trials: 3},
		{Index: 3, Arm: "b", StartupS: 40, StartedAt: t0.Add(6 * time.Minute), Trials: 3},
		{Index: 4, Arm: "a", StartupS: 42, StartedAt: t0.Add(9 * time.Minute), Trials: 3},
	}}
	// What gate/ab puts on a paired cell: the block values and the pairs'
	// changes (here made up around the fixture's centres).
	for i := range d.Comparison.Cells {
		c := &d.Comparison.Cells[i]
		a, b := c.Baseline.Centre, c.Candidate.Centre
		c.Blocks = &verdict.PairedCell{Values: []verdict.BlockValue{
			{Block: 1, Arm: "a", Trials: 3, Value: a * 0.99}, {Block: 2, Arm: "b", Trials: 3, Value: b * 1.01},
			{Block: 3, Arm: "b", Trials: 3, Value: b * 0.99}, {Block: 4, Arm: "a", Trials: 3, Value: a * 1.01},
		}, Pairs: []float64{100 * (b*1.01/(a*0.99) - 1), 100 * (b*0.99/(a*1.01) - 1)}}
	}
	return d
}

// TestABReportGolden: a paired comparison reads "B vs A" in the headline,
// the sentence and the table headers, names the moved metrics, and lists
// the blocks with their start-up times.
func TestABReportGolden(t *testing.T) {
	d := abFixture(t)
	var md, txt bytes.Buffer
	if err := Markdown(&md, d, CommentLimit); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "ab-regression.md", md.Bytes())
	golden(t, "ab-regression.txt", txt.Bytes())
	for _, want := range []string{"### ❌ B vs A: Regression in ", "| Metric | A | B |", "B is worse than A in ", "Server start-ups took 167 s in all (42 s on average)", "| 2 | B | 12:03:00 | 43 s | 3 | 23.45 ms | 30.74 ms |", "cx8-4000-1000-c16: TPOT p50, B vs A per block pair: +"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "| Baseline | Candidate |") {
		t.Error("a paired report still says baseline and candidate in its tables")
	}
	for _, want := range []string{"B vs A: REGRESSION in cx8-4000-1000-c16", "METRIC              A            B ", "Server start-up per block: 1A 42 s, 2B 43 s, 3B 40 s, 4A 42 s"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
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
	if h := Headline(d); !strings.HasPrefix(h, "B vs A: Inconclusive") || !strings.HasSuffix(h, "undecided within the blocks run") {
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
