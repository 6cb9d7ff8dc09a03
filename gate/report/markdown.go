package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Markdown writes the PR comment for d to w. With limit > 0 the comment is
// kept within limit characters (use CommentLimit for GitHub) by trimming
// the collapsed details first, then the chart and footnotes, then by
// folding the tables of passing workloads into one summary table; the
// headline and the tables of regressed or undecided workloads are kept.
// The hidden marker always ends the comment.
func Markdown(w io.Writer, d *Data, limit int) error {
	if d == nil || d.Comparison == nil {
		return fmt.Errorf("report: no comparison to render")
	}
	notes := newFootnotes()
	head := headPart(d, notes)
	tables := tablesPart(d, notes)
	parts := []*part{
		{name: "headline", versions: []string{head}, order: 1000},
		{name: "server log", versions: serverLogVersions(d), order: 900},
		tables,
		{name: "chart", versions: []string{chartPart(d), ""}, order: 30},
		{name: "serving facts", versions: factsVersions(d), order: 20},
		{name: "invalid trials", versions: []string{excludedPart(d), ""}, order: 19},
		{name: "fingerprint differences", versions: []string{fingerprintPart(d), ""}, order: 18},
		{name: "noise and detectable effects", versions: []string{noisePart(d), ""}, order: 15},
		{name: "all metrics", versions: []string{allMetricsPart(d), ""}, order: 10},
		{name: "warnings", versions: notes.versions(), order: 25},
	}
	if d.Footer != "" || d.Artifact.Name != "" {
		parts = append(parts, &part{name: "footer", versions: []string{"\n" + d.Footer + artifactLine(d.Artifact) + "\n"}, order: 1000})
	}
	marker := "\n" + Marker(d.Profile) + "\n"
	budget := limit
	if budget > 0 {
		budget -= runeLen(marker)
	}
	body := fit(budget, parts, defaultTrimmedNote(d.FullReport))
	_, err := io.WriteString(w, body+marker)
	return err
}

// artifactLine is the footer's link to the uploaded output directory, ""
// when there is none. The name comes from a workflow input and the URL from
// the runner's environment, so both are escaped.
func artifactLine(a Artifact) string {
	if a.Name == "" {
		return ""
	}
	where := "this workflow run"
	if a.URL != "" {
		where = "[this workflow run](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(a.URL) + ")"
	}
	return "\nFull report and raw results: artifact " + Code(a.Name) + " of " + where + "."
}

// outcomeIcon is the emoji GitHub users scan for.
func outcomeIcon(o string) string {
	switch o {
	case string(verdict.Regression):
		return "❌"
	case string(verdict.Pass):
		return "✅"
	case string(verdict.Improvement):
		return "🟢"
	case string(verdict.Inconclusive):
		return "⚠️"
	}
	return "🚫"
}

// headPart is the first line (the verdict and its headline cell), the
// one-line summary of the run and, for a failed run, what went wrong.
func headPart(d *Data, notes *footnotes) string {
	c := d.Comparison
	var b strings.Builder
	fmt.Fprintf(&b, "### %s %s\n\n", outcomeIcon(d.verdictOf()), Escape(Headline(d)))
	fmt.Fprintf(&b, "perfgate · profile %s · %d workload(s), %d gated metrics: %d regressed, %d undecided, %d improved, %d passed · family-wise α = %g",
		Code(orDefault(d.Profile, "default")), len(c.Workloads), c.Family, c.Regressions, c.Inconclusives, c.Improvements, c.Passes, c.Alpha)
	if c.Look.Max > 1 {
		fmt.Fprintf(&b, " over up to %d looks (this is look %d)", c.Look.Max, c.Look.Index)
	}
	for _, w := range c.Warnings {
		b.WriteString(notes.ref(w))
	}
	b.WriteString("\n")
	if d.RunError != "" {
		fmt.Fprintf(&b, "\n> [!CAUTION]\n> The run did not complete: %s. The tables below compare the partial results; they cannot pass the gate.\n", Escape(d.RunError))
	}
	if c.Verdict == verdict.Regression && c.Headline != nil {
		fmt.Fprintf(&b, "\n%s\n", regressionSentence(c.Headline))
	}
	return b.String()
}

// regressionSentence says in words what the headline cell's numbers mean.
func regressionSentence(cell *verdict.Cell) string {
	return fmt.Sprintf("%s of %s moved %s (baseline %s, candidate %s); the tolerance is %s and the family-wise adjusted p-value %s.",
		Escape(cell.Label), Code(cell.Workload), Change(cell), cellValue(cell, cell.Baseline), cellValue(cell, cell.Candidate),
		Tolerance(cell), pValue(cell.PAdjusted))
}

func pValue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// gatedByWorkload groups the gated cells by workload, keeping each
// workload's cells in the comparison's order.
func gatedByWorkload(c *verdict.Comparison) map[string][]*verdict.Cell {
	m := map[string][]*verdict.Cell{}
	for i := range c.Cells {
		if cell := &c.Cells[i]; cell.Gated {
			m[cell.Workload] = append(m[cell.Workload], cell)
		}
	}
	return m
}

// workloadOutcome is the worst gated outcome of a workload.
func workloadOutcome(cells []*verdict.Cell) verdict.Outcome {
	rank := map[verdict.Outcome]int{verdict.Regression: 0, verdict.Inconclusive: 1, verdict.Improvement: 2, verdict.Pass: 3}
	worst := verdict.Pass
	for _, c := range cells {
		if rank[c.Outcome] < rank[worst] {
			worst = c.Outcome
		}
	}
	return worst
}

const tableHeader = "| Metric | Baseline | Candidate | Change | %s | Tolerance | Outcome |\n|---|--:|--:|--:|--:|--:|---|\n"

// tablesPart renders a table of gated metrics per compared workload (the
// undecided and regressed ones first) and a table of the workloads that
// could not be compared. Smaller versions fold passing workloads into one
// summary row each, then cap the rows, so the part always fits.
func tablesPart(d *Data, notes *footnotes) *part {
	c := d.Comparison
	byW := gatedByWorkload(c)
	var bad, good []verdict.Workload
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared {
			continue
		}
		if o := workloadOutcome(byW[w.Cell]); o == verdict.Regression || o == verdict.Inconclusive {
			bad = append(bad, w)
		} else {
			good = append(good, w)
		}
	}
	notCompared := notComparedTable(c)

	var full strings.Builder
	for _, w := range bad {
		full.WriteString(workloadTable(w, byW[w.Cell], notes))
		full.WriteString(serverContext(d, w.Cell))
	}
	for _, w := range good {
		full.WriteString(workloadTable(w, byW[w.Cell], notes))
	}
	full.WriteString(notCompared)

	var compact strings.Builder
	for _, w := range bad {
		compact.WriteString(workloadTable(w, byW[w.Cell], notes))
		compact.WriteString(serverContext(d, w.Cell))
	}
	compact.WriteString(summaryTable(good, byW, -1))
	compact.WriteString(notCompared)

	// Last resort: at most 40 rows of undecided or regressed workloads and
	// 100 summary rows; the rest are counted and named in the full report.
	var capped strings.Builder
	rows := 0
	for i, w := range bad {
		if rows >= 40 {
			fmt.Fprintf(&capped, "\n… %d more regressed or undecided workload(s) are in the full report.\n", len(bad)-i)
			break
		}
		capped.WriteString(workloadTable(w, byW[w.Cell], notes))
		rows += len(byW[w.Cell])
	}
	capped.WriteString(summaryTable(good, byW, 100))
	capped.WriteString(notCompared)

	return &part{name: "passing workloads' tables", versions: []string{full.String(), compact.String(), capped.String()}, order: 50}
}

// workloadTable is one workload's heading and its gated-metrics table.
func workloadTable(w verdict.Workload, cells []*verdict.Cell, notes *footnotes) string {
	var b strings.Builder
	o := workloadOutcome(cells)
	fmt.Fprintf(&b, "\n#### %s %s — %s, %d vs %d trials", outcomeIcon(string(o)), Escape(w.Cell), o, w.BaselineTrials, w.CandidateTrials)
	if len(w.Excluded) > 0 {
		fmt.Fprintf(&b, " (%d invalid trial(s) excluded)", len(w.Excluded))
	}
	for _, warn := range w.Warnings {
		b.WriteString(notes.ref(warn))
	}
	b.WriteString("\n\n")
	if len(cells) == 0 {
		b.WriteString("No gated metrics.\n")
		return b.String()
	}
	fmt.Fprintf(&b, tableHeader, intervalHeader(cells))
	for _, cell := range cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s %s",
			Escape(cell.Label), cellValue(cell, cell.Baseline), cellValue(cell, cell.Candidate),
			Change(cell), Interval(cell), Tolerance(cell), outcomeIcon(string(cell.Outcome)), cell.Outcome)
		for _, warn := range cell.Warnings {
			b.WriteString(notes.ref(warn))
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// intervalHeader names the interval column with its level.
func intervalHeader(cells []*verdict.Cell) string {
	if len(cells) == 0 || cells[0].CILevel == 0 {
		return "Interval"
	}
	return level(cells[0].CILevel) + " CI"
}

// summaryTable folds passing workloads into one row each. max < 0 means
// all rows.
func summaryTable(ws []verdict.Workload, byW map[string][]*verdict.Cell, max int) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n#### ✅ %d workload(s) without regression\n\n| Workload | Trials | Gated metrics | Worst change (vs tolerance) | Improved |\n|---|--:|--:|---|--:|\n", len(ws))
	for i, w := range ws {
		if max >= 0 && i >= max {
			fmt.Fprintf(&b, "\n… and %d more passing workload(s), listed in the full report.\n", len(ws)-i)
			break
		}
		cells := byW[w.Cell]
		var worst *verdict.Cell
		improved := 0
		for _, c := range cells {
			if c.Outcome == verdict.Improvement {
				improved++
			}
			if worst == nil || c.Worse-c.Tolerance > worst.Worse-worst.Tolerance {
				worst = c
			}
		}
		ws := "–"
		if worst != nil {
			ws = fmt.Sprintf("%s %s (%s)", Escape(worst.Label), Change(worst), Tolerance(worst))
		}
		fmt.Fprintf(&b, "| %s | %d vs %d | %d | %s | %d |\n", Escape(w.Cell), w.BaselineTrials, w.CandidateTrials, len(cells), ws, improved)
	}
	return b.String()
}

// notComparedTable lists workloads that were not compared and why.
func notComparedTable(c *verdict.Comparison) string {
	var b strings.Builder
	n := 0
	for _, w := range c.Workloads {
		if w.Status == verdict.Compared {
			continue
		}
		if n == 0 {
			b.WriteString("\n#### 🚫 Not compared\n\n| Workload | Status | Why | Blocks the gate |\n|---|---|---|---|\n")
		}
		n++
		blocks := "yes"
		if w.Allowed {
			blocks = "no (allowed by policy)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", Escape(w.Cell), w.Status, Escape(Truncate(w.Message, 300)), blocks)
	}
	return b.String()
}

// chartPart is the mermaid chart of the gated cells, most severe first.
func chartPart(d *Data) string {
	c := d.Comparison
	var bars []Bar
	multi := comparedWorkloads(c) > 1
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		label := cell.Label
		if multi {
			label = cell.Workload + ": " + cell.Label
		}
		bars = append(bars, Bar{Label: label, Change: cell.Worse, Tolerance: cell.Tolerance})
	}
	if len(bars) == 0 {
		return ""
	}
	title := "Worse by % or pp (bars) vs tolerance (line)"
	s := "\n" + Chart(title, bars)
	if len(bars) > MaxBars {
		s += fmt.Sprintf("\nThe chart shows the %d most severe of %d gated metrics.\n", MaxBars, len(bars))
	}
	return s
}
