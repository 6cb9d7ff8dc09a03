package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/verdict"
)

// listed is one row of the list of regressed and undecided cells.
type listed struct {
	cell *verdict.Cell
	bar  bool // the row carries one of the MaxBars bars
}

// severity orders the list: how far past its tolerance the cell's change
// went (the change over the tolerance), so a +9 % TPOT regression on a
// 3 % tolerance comes before a +7 % one on 6 %.
func severity(c *verdict.Cell) float64 {
	w := worseBy(c)
	if c.Tolerance > 0 {
		return w / c.Tolerance
	}
	return w
}

// listedCells are the gated regressed cells then the gated undecided
// ones, each most severe first (the report's one ordering: the headline is
// row 1); the first MaxBars regressed cells in percent that
// are worse by a finite amount are marked for a bar (cells in points get
// none: a point is not a percent, and the column has one scale). full is
// the scale: the largest barred value.
func listedCells(c *verdict.Comparison) (reg, inc []listed, full float64) {
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		switch cell.Outcome {
		case verdict.Regression:
			reg = append(reg, listed{cell: cell})
		case verdict.Inconclusive:
			inc = append(inc, listed{cell: cell})
		}
	}
	for _, l := range [][]listed{reg, inc} {
		sort.SliceStable(l, func(i, j int) bool { return severity(l[i].cell) > severity(l[j].cell) })
	}
	bars := 0
	for _, l := range [][]listed{reg} {
		for i := range l {
			w := worseBy(l[i].cell)
			if bars < MaxBars && !l[i].cell.Absolute && w > 0 && !math.IsInf(w, 0) {
				l[i].bar = true
				bars++
				full = math.Max(full, w)
			}
		}
	}
	return reg, inc, full
}

// listPart is the compact list at the top of the comment: every regressed
// cell (workload, metric, change with the interval it was decided on,
// tolerance, worse by with its bar, trend, baseline when the workloads'
// differ), the legend, then the undecided cells with what would decide
// each (undecidedPart).
func listPart(d *Data) string {
	reg, inc, full := listedCells(d.Comparison)
	if len(reg)+len(inc) == 0 {
		return ""
	}
	barred := 0
	for _, l := range reg {
		if l.bar {
			barred++
		}
	}
	trend := d.History != nil
	// An A/B experiment has no stored baseline: no baseline is named. The
	// header names a baseline every workload shares; a column only when
	// they differ and some is known.
	column := !paired(d) && sharedBaseline(d, append(append([]listed{}, reg...), inc...)) == "" && anyBaseline(d, reg)
	var b strings.Builder
	n := 0
	if len(reg) > 0 {
		fmt.Fprintf(&b, "\n**%d regressed metric(s)**, most severe first\n\n", len(reg))
		open := reg[:min(len(reg), openRows(d))]
		b.WriteString(listTable(d, open, &n, trend, column, full))
		// Beyond the barred rows the list is collapsed, so the first screen
		// holds the verdict, the worst regressions and what decides each
		// undecided metric however many regressed (the demo's list varies
		// from 9 to 22 rows between runs).
		if rest := reg[len(open):]; len(rest) > 0 {
			b.WriteString(details(fmt.Sprintf("❌ %d more regressed metric(s)", len(rest)), listTable(d, rest, &n, trend, column, full)))
		}
	}
	var legend []string
	if full > 0 {
		s := fmt.Sprintf("Bars: worse by %%, one scale from zero (the longest %s; throughput sign-flipped; none in pp or when no worse", Percent(full))
		if barred == MaxBars && len(reg) > barred {
			s += fmt.Sprintf(" or beyond the %d most severe", MaxBars)
		}
		legend = append(legend, s+").")
	}
	if trend && len(reg) > 0 {
		legend = append(legend, fmt.Sprintf("Trend: the last %d promoted baselines, then the candidate, from the row's lowest (▁) to its highest (█), and how far apart they are.", trendRuns(d)))
	}
	if l := intervalLegend(d.Comparison); l != "" {
		legend = append(legend, l)
	}
	// The legend after both tables: the first screen is the verdict, the
	// list and what decides each undecided metric.
	b.WriteString(undecidedPart(d.Comparison, inc, len(reg) > 0, &n))
	if len(legend) > 0 {
		b.WriteString("\n" + strings.Join(legend, " ") + "\n")
	}
	return b.String()
}

// OpenWithFindings is how many regressed rows stay open under findings
// (issue 24): the findings already say what moved and why, so the first
// screen keeps the verdict, the findings, the worst few rows and what
// decides each undecided metric within its 900 px (the render check).
const OpenWithFindings = 5

// openRows is how many regressed rows the list shows before collapsing
// the rest: the barred rows, fewer when findings open the comment.
func openRows(d *Data) int {
	if e := d.Comparison.Explanation; e != nil && len(e.Findings) > 0 {
		return OpenWithFindings
	}
	return MaxBars
}

// anyBaseline says whether some listed row's baseline is known.
func anyBaseline(d *Data, rows []listed) bool {
	for _, r := range rows {
		if baselineOf(d, r.cell.Workload) != "–" {
			return true
		}
	}
	return false
}

// sharedBaseline is the baseline every listed cell was compared with when
// they all share one (the usual case: a profile is promoted at once), so
// the list names it once instead of in a column that would make every row
// wrap at GitHub's width; "" when they differ or none is known.
func sharedBaseline(d *Data, rows []listed) string {
	shared := ""
	for i, r := range rows {
		b := baselineOf(d, r.cell.Workload)
		if i > 0 && b != shared {
			return ""
		}
		shared = b
	}
	if shared == "–" {
		return ""
	}
	return shared
}

// listTable renders the regressed rows, counted on from *n; the Baseline
// column only when the rows do not share one baseline (see
// sharedBaseline). The rows carry no interval: at GitHub's 780 px a
// seventh column made every row wrap to two lines, and a regression's
// interval is in the headline (row 1) and its workload's table; the
// undecided table, where the interval is the reason, keeps it.
func listTable(d *Data, rows []listed, n *int, trend, baselineColumn bool, full float64) string {
	var b strings.Builder
	b.WriteString("| Workload | Metric | Change | Tol. | Worse by |")
	if trend {
		b.WriteString(" Trend |")
	}
	if baselineColumn {
		b.WriteString(" Baseline |")
	}
	b.WriteString("\n|---|---|---|--:|---|")
	if trend {
		b.WriteString("---|")
	}
	if baselineColumn {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		*n++
		cell := r.cell
		worse := nb(WorseBy(cell))
		if r.bar {
			if bar := Bar(worseBy(cell), full); bar != "" {
				worse = "`" + bar + "` " + worse
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", Escape(cell.Workload), Escape(cell.Label),
			nb(Change(cell)), nb(Tolerance(cell)), worse)
		if trend {
			fmt.Fprintf(&b, " %s |", nb(trendOf(d, cell)))
		}
		if baselineColumn {
			fmt.Fprintf(&b, " %s |", baselineOf(d, cell.Workload))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// trendOf is the cell's sparkline over the last promoted runs that have
// the metric and the candidate, with the range it spans.
func trendOf(d *Data, cell *verdict.Cell) string {
	runs := d.History[cell.Workload]
	max := trendRuns(d)
	var vals []float64
	for _, r := range runs {
		if v, ok := r.Centre[cell.Metric]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	if len(vals) > max {
		vals = vals[len(vals)-max:]
	}
	if len(vals) == 0 || cell.Candidate.N == 0 {
		return "no history"
	}
	vals = append(vals, cell.Candidate.Centre)
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if cell.Unit == "ratio" || lo <= 0 {
		return fmt.Sprintf("`%s` %s – %s", Sparkline(vals), Value(lo, cell.Unit), Value(hi, cell.Unit))
	}
	// The span, not the two ends: a sparkline scales its row to fill the
	// height, so the reader needs its size to tell noise from a step, and
	// "14.6 %" keeps a row from wrapping where "21.43 – 24.57 ms" does.
	return fmt.Sprintf("`%s` %.1f %%", Sparkline(vals), 100*(hi/lo-1))
}

// baselineOf names the baseline a workload was compared with: its commit
// and its age when the candidate ran. It comes from the baseline result's
// provenance, else from the newest history run.
func baselineOf(d *Data, workload string) string {
	var commit string
	var promoted time.Time
	if b := d.Baselines[workload]; b != nil && b.Provenance != nil {
		commit, promoted = b.Provenance.GitSHA, b.Provenance.PromotedAt
	} else if runs := d.History[workload]; len(runs) > 0 {
		commit, promoted = runs[len(runs)-1].Commit, runs[len(runs)-1].PromotedAt
	}
	var parts []string
	if commit != "" {
		parts = append(parts, Code(shortCommit(commit)))
	}
	if c := d.Candidates[workload]; c != nil && !promoted.IsZero() && !c.StartedAt.IsZero() {
		parts = append(parts, Age(c.StartedAt.Sub(promoted))+" old")
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

// Age formats a duration the way people say how old something is.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "newer than the run"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// shortCommit is a commit's first seven characters, as git abbreviates.
func shortCommit(s string) string {
	if r := []rune(s); len(r) > 7 {
		return string(r[:7])
	}
	return s
}

// trendRuns is how many promoted runs a trend shows.
func trendRuns(d *Data) int {
	if d.Trend > 0 {
		return d.Trend
	}
	return TrendRuns
}
