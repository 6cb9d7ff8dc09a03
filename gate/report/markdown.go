package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Markdown writes the PR comment for d to w. Its layout, top to bottom:
// the headline; the list of every regressed metric (with the bar column
// and, given history, a trend) and, collapsed, every undecided one; the
// tables of the regressed workloads, the most severe open while the
// visible part stays within VisibleLines; everything else collapsed. With
// limit > 0 the comment is kept within limit characters (use CommentLimit
// for GitHub) by trimming the collapsed details first, then by folding the tables of passing workloads into one summary table;
// the headline, the list and the regressed tables are kept. The hidden
// marker always ends the comment.
func Markdown(w io.Writer, d *Data, limit int) error {
	if d == nil || d.Comparison == nil {
		return fmt.Errorf("report: no comparison to render")
	}
	c := d.Comparison
	head := headPart(d)
	tables := tablesPart(d, c, 0)
	notes := notesOf(d)
	parts := []*part{
		{name: "headline", versions: []string{head}, order: 1000},
		{name: "findings", versions: []string{findings(d, true)}, order: 1000},
		{name: "list", versions: []string{listPart(d)}, order: 1000},
		{name: "notes", versions: []string{notesMarkdown(notes, limit <= 0), notesMarkdown(notes, false)}, order: 1000},
		{name: "a/b design", versions: []string{abPart(d)}, order: 950},
		{name: "server log", versions: serverLogVersions(d), order: 900},
		tables,
		{name: "phase split", versions: []string{phasesPart(d), ""}, order: 17},
		{name: "serving facts", versions: factsVersions(d), order: 20},
		{name: "capacity curves", versions: []string{capacityPart(d), ""}, order: 21},
		{name: "invalid trials", versions: []string{excludedPart(d), ""}, order: 19},
		{name: "fingerprint differences", versions: []string{fingerprintPart(d), ""}, order: 18},
		{name: "noise and detectable effects", versions: []string{noisePart(d), ""}, order: 15},
		{name: "all metrics", versions: []string{allMetricsPart(d), ""}, order: 10},
	}
	if d.Footer != "" || d.Artifact.Name != "" {
		parts = append(parts, &part{name: "footer", versions: []string{"\n" + d.Footer + artifactLine(d.Artifact) + "\n"}, order: 1000})
	}
	openTables(d, c, parts, tables)
	marker := "\n" + Marker(d.Profile) + "\n"
	budget := limit
	if budget > 0 {
		budget -= runeLen(marker)
	}
	body := fit(budget, parts, defaultTrimmedNote(shownPath(d, d.FullReport), d.Artifact.Name))
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

// headPart is the first line (the verdict and its headline cell, the
// list's row 1), the header (base → head, profile, runner, trials), the
// counts, and what stops the gate before any table: a failed run, the
// workloads that could not be compared.
func headPart(d *Data) string {
	c := d.Comparison
	var b strings.Builder
	fmt.Fprintf(&b, "### %s %s\n\n", outcomeIcon(d.verdictOf()), Escape(Headline(d)))
	fmt.Fprintf(&b, "%s  \n", headerLine(d, true))
	fmt.Fprintf(&b, "%s · family-wise α = %g", countsLine(c), c.Alpha)
	if c.Look.Max > 1 {
		fmt.Fprintf(&b, " over up to %d looks (this is look %d)", c.Look.Max, c.Look.Index)
	}
	b.WriteString("\n")
	if d.RunError != "" {
		fmt.Fprintf(&b, "\n> [!CAUTION]\n> The run did not complete: %s. The tables below compare the partial results; they cannot pass the gate.\n", Escape(d.RunError))
	}
	b.WriteString(notComparedLines(d))
	return b.String()
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

const tableHeader = "| Metric | %s | %s | Change | Interval | Tol. | Outcome |\n|---|--:|--:|--:|--:|--:|---|\n"

// ranked is a compared workload with its gated cells.
type ranked struct {
	Workload verdict.Workload
	cells    []*verdict.Cell
}

// regressedWorkloads are the compared workloads with a regressed gated
// cell, the one with the most severe regression first.
func regressedWorkloads(c *verdict.Comparison) []ranked {
	byW := gatedByWorkload(c)
	var out []ranked
	worst := map[string]float64{}
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared || workloadOutcome(byW[w.Cell]) != verdict.Regression {
			continue
		}
		out = append(out, ranked{w, byW[w.Cell]})
		worst[w.Cell] = -1e308
		for _, cell := range byW[w.Cell] {
			if cell.Outcome == verdict.Regression && severity(cell) > worst[w.Cell] {
				worst[w.Cell] = severity(cell)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return worst[out[i].Workload.Cell] > worst[out[j].Workload.Cell] })
	return out
}

// tablesPart renders a table of gated metrics per compared workload and a
// table of the workloads that could not be compared. The first open
// regressed workloads' tables are open; the other regressed ones are
// collapsed together (their regressed metrics are all in the list above),
// each undecided workload is collapsed on its own, and the passing ones
// are collapsed together. Smaller versions fold the passing workloads into
// one summary row each, then cap the rows, so the part always fits.
func tablesPart(d *Data, c *verdict.Comparison, open int) *part {
	byW := gatedByWorkload(c)
	reg := regressedWorkloads(c)
	var inc, good []verdict.Workload
	for _, w := range c.Workloads {
		if w.Status != verdict.Compared {
			continue
		}
		switch workloadOutcome(byW[w.Cell]) {
		case verdict.Regression:
		case verdict.Inconclusive:
			inc = append(inc, w)
		default:
			good = append(good, w)
		}
	}
	notCompared := notComparedTable(c)
	open = min(open, len(reg))

	bad := func(b *strings.Builder) {
		for _, r := range reg[:open] {
			b.WriteString(workloadTable(r.Workload, r.cells, c, armsOf(d)))
			b.WriteString(serverContext(d, r.Workload.Cell))
		}
		var more strings.Builder
		for _, r := range reg[open:] {
			more.WriteString(workloadTable(r.Workload, r.cells, c, armsOf(d)))
			more.WriteString(serverContext(d, r.Workload.Cell))
		}
		b.WriteString(details(fmt.Sprintf("❌ %d more regressed workload(s): their tables (every regressed metric is in the list above)", len(reg)-open), more.String()))
		for _, w := range inc {
			b.WriteString(details(fmt.Sprintf("⚠️ %s: inconclusive, %s", HTMLText(w.Cell), armsOf(d).counts(w, byW[w.Cell], false)),
				workloadTable(w, byW[w.Cell], c, armsOf(d))+serverContext(d, w.Cell)))
		}
	}
	goodSummary := fmt.Sprintf("✅ %d workload(s) without regression", len(good))

	var full strings.Builder
	bad(&full)
	var goodTables strings.Builder
	for _, w := range good {
		goodTables.WriteString(workloadTable(w, byW[w.Cell], c, armsOf(d)))
	}
	full.WriteString(details(goodSummary, goodTables.String()))
	full.WriteString(notCompared)

	var compact strings.Builder
	bad(&compact)
	compact.WriteString(details(goodSummary, summaryTable(good, byW, -1, armsOf(d))))
	compact.WriteString(notCompared)

	// Last resort: the open tables, then at most 40 rows of the other
	// regressed or undecided workloads and 100 summary rows; the rest are
	// counted and named in the full report.
	var capped strings.Builder
	for _, r := range reg[:open] {
		capped.WriteString(workloadTable(r.Workload, r.cells, c, armsOf(d)))
	}
	var rest strings.Builder
	rows := 0
	others := make([]verdict.Workload, 0, len(reg)-open+len(inc))
	for _, r := range reg[open:] {
		others = append(others, r.Workload)
	}
	others = append(others, inc...)
	for i, w := range others {
		if rows >= 40 {
			fmt.Fprintf(&rest, "\n… %d more regressed or undecided workload(s) are in the full report.\n", len(others)-i)
			break
		}
		rest.WriteString(workloadTable(w, byW[w.Cell], c, armsOf(d)))
		rows += len(byW[w.Cell])
	}
	capped.WriteString(details(fmt.Sprintf("%d more regressed or undecided workload(s)", len(others)), rest.String()))
	capped.WriteString(details(goodSummary, summaryTable(good, byW, 100, armsOf(d))))
	capped.WriteString(notCompared)

	return &part{name: "passing workloads' tables", versions: []string{full.String(), compact.String(), capped.String()}, order: 50}
}

// workloadTable is one workload's heading and its gated-metrics table.
// The interval is the one each outcome was decided on; a row whose
// interval lies wholly past its tolerance without that outcome says why.
func workloadTable(w verdict.Workload, cells []*verdict.Cell, c *verdict.Comparison, n arms) string {
	var b strings.Builder
	o := workloadOutcome(cells)
	fmt.Fprintf(&b, "\n#### %s %s — %s, %s", outcomeIcon(string(o)), Escape(w.Cell), o, n.counts(w, cells, true))
	if len(w.Excluded) > 0 {
		fmt.Fprintf(&b, " (%d invalid trial(s) excluded)", len(w.Excluded))
	}
	b.WriteString("\n\n")
	if len(cells) == 0 {
		b.WriteString("No gated metrics.\n")
		return b.String()
	}
	fmt.Fprintf(&b, tableHeader, n.base, n.cand)
	for _, cell := range cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s %s",
			Escape(cell.Label), nb(cellValue(cell, cell.Baseline)), nb(cellValue(cell, cell.Candidate)),
			nb(Change(cell)), nb(Interval(cell)), nb(Tolerance(cell)), outcomeIcon(string(cell.Outcome)), cell.Outcome)
		if why := whyNot(c, cell); why != "" {
			b.WriteString(" (" + Escape(why) + ")")
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// summaryTable folds passing workloads into one row each. max < 0 means
// all rows.
func summaryTable(ws []verdict.Workload, byW map[string][]*verdict.Cell, max int, n arms) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	_, _, unit := n.over(verdict.Workload{}, nil)
	fmt.Fprintf(&b, "| Workload | %s | Gated metrics | Worst change (vs tolerance) | Improved |\n|---|--:|--:|---|--:|\n", strings.ToUpper(unit[:1])+unit[1:])
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
		ca, cb, _ := n.over(w, cells)
		fmt.Fprintf(&b, "| %s | %d vs %d | %d | %s | %d |\n", Escape(w.Cell), ca, cb, len(cells), ws, improved)
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", Escape(w.Cell), w.Status, nb(Escape(Truncate(w.Message, 300))), blocks)
	}
	return b.String()
}
