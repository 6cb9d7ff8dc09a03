package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// AB describes the interleaved experiment of `perfgate ab` behind a paired
// comparison: the report then calls the arms A and B (B vs A) instead of
// baseline and candidate, names the metrics that moved, and shows every
// block with its start-up time, so a reader can see the interleaving
// worked and what the restarts cost.
type AB struct {
	// Order is the arms of the blocks in run order ("ABBABAAB").
	Order string
	// Seed is the seed of a random balanced order (0: ABBA BAAB).
	Seed uint64
	// Blocks are the blocks as run, in order.
	Blocks []result.Block
	// Resident is true when each arm was one long-running server.
	Resident bool
}

// arms are the names a report gives the two sides of a comparison and,
// for a paired experiment, its order (what a workload's blocks are
// counted from when its cells carry none).
type arms struct {
	base, cand string
	paired     bool
	order      string
}

// paired reports whether d is the report of an interleaved experiment:
// the command said so (Data.AB) or the comparison is gate/ab's
// (Comparison.AB).
func paired(d *Data) bool {
	return d != nil && (d.AB != nil || (d.Comparison != nil && d.Comparison.AB != nil))
}

// armsOf is "A"/"B" for a paired experiment, else "Baseline"/"Candidate".
func armsOf(d *Data) arms {
	if !paired(d) {
		return arms{base: "Baseline", cand: "Candidate"}
	}
	n := arms{base: "A", cand: "B", paired: true}
	if d.AB != nil {
		n.order = d.AB.Order
	} else {
		n.order = d.Comparison.AB.Order
	}
	return n
}

// side names an arm of an excluded trial ("baseline" or "candidate", the
// comparison's sides) as the report calls it.
func (n arms) side(s string) string {
	switch {
	case n.paired && s == "baseline":
		return "A"
	case n.paired && s == "candidate":
		return "B"
	}
	return s
}

// counts is what a workload or cell was measured over: "5 vs 5 trials",
// or for a paired experiment "8 vs 8 blocks", with ", 16 vs 16 trials"
// added when trials is set.
func (n arms) counts(w verdict.Workload, cells []*verdict.Cell, trials bool) string {
	a, b, unit := n.over(w, cells)
	s := fmt.Sprintf("%d vs %d %s", a, b, unit)
	if trials && n.paired {
		s += fmt.Sprintf(", %d vs %d trials", w.BaselineTrials, w.CandidateTrials)
	}
	return s
}

// over is the two arms' counts of what a workload was measured over and
// its unit. An A/B experiment's unit is the block (its test runs on the
// block pairs): a paired workload's blocks are those of each arm with a
// value of its cells' metrics, or the order's when its cells carry none.
func (n arms) over(w verdict.Workload, cells []*verdict.Cell) (a, b int, unit string) {
	if !n.paired {
		return w.BaselineTrials, w.CandidateTrials, "trials"
	}
	for _, cell := range cells {
		ca, cb := cellBlocks(cell)
		a, b = max(a, ca), max(b, cb)
	}
	if a == 0 && b == 0 {
		a, b = strings.Count(n.order, "A"), strings.Count(n.order, "B")
	}
	return a, b, "blocks"
}

// cellBlocks counts the blocks of each arm with a value of cell's metric.
func cellBlocks(cell *verdict.Cell) (a, b int) {
	if cell == nil || cell.Blocks == nil {
		return 0, 0
	}
	for _, v := range cell.Blocks.Values {
		switch v.Arm {
		case "a":
			a++
		case "b":
			b++
		}
	}
	return a, b
}

// movedMetrics names the gated metrics whose change the verdict called a
// regression or an improvement, "workload: label" each, regressions first
// (the comparison's order).
func movedMetrics(c *verdict.Comparison) (regressed, improved []string) {
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		name := cell.Workload + ": " + cell.Label + " " + Change(cell)
		switch cell.Outcome {
		case verdict.Regression:
			regressed = append(regressed, name)
		case verdict.Improvement:
			improved = append(improved, name)
		}
	}
	return regressed, improved
}

// abPart is the experiment's section: what moved, the order, and one row
// per block with its arm, start and start-up time. Without the run's
// design (Data.AB) a paired comparison still shows what it carries: the
// order and the pairs. Empty for an unpaired comparison.
func abPart(d *Data) string {
	x := d.AB
	if x == nil {
		c := d.Comparison.AB
		if c == nil {
			return ""
		}
		x = &AB{Order: c.Order, Seed: c.Seed, Resident: c.Resident}
	}
	var b strings.Builder
	b.WriteString("\n#### Interleaved A/B: B vs A\n\n")
	reg, imp := movedMetrics(d.Comparison)
	switch {
	case len(reg) == 0 && len(imp) == 0:
		b.WriteString("No gated metric moved beyond its tolerance.\n")
	default:
		if len(reg) > 0 {
			fmt.Fprintf(&b, "B is worse than A in %s.\n", Escape(strings.Join(reg, ", ")))
		}
		if len(imp) > 0 {
			fmt.Fprintf(&b, "B is better than A in %s.\n", Escape(strings.Join(imp, ", ")))
		}
	}
	how := "restarted for every block"
	if x.Resident {
		how = "one long-running server per arm, so the between-session noise counts as for a stored baseline"
	}
	order := "the fixed ABBA BAAB order"
	if x.Seed != 0 {
		order = fmt.Sprintf("a balanced order drawn from seed %d", x.Seed)
	}
	fmt.Fprintf(&b, "\n%d blocks in %s: %s; servers %s.\n", len(x.Order), order, Code(x.Order), how)
	total, restarts := 0.0, 0
	for _, bl := range x.Blocks {
		if bl.StartupS > 0 {
			total += bl.StartupS
			restarts++
		}
	}
	if restarts > 0 {
		fmt.Fprintf(&b, "Server start-ups took %s in all (%s on average): the price of restarting per block.\n",
			startup(total), startup(total/float64(restarts)))
	}
	shown := abShown(d.Comparison)
	var rows strings.Builder
	rows.WriteString("| Block | Arm | Started | Start-up | Trials |")
	for _, cell := range shown {
		fmt.Fprintf(&rows, " %s |", Escape(cell.Workload+": "+cell.Label))
	}
	rows.WriteString("\n|--:|---|---|--:|--:|" + strings.Repeat("--:|", len(shown)) + "\n")
	for _, bl := range x.Blocks {
		up := "–"
		if bl.StartupS > 0 {
			up = startup(bl.StartupS)
		}
		fmt.Fprintf(&rows, "| %d | %s | %s | %s | %d |", bl.Index, strings.ToUpper(bl.Arm), bl.StartedAt.UTC().Format("15:04:05"), up, bl.Trials)
		for _, cell := range shown {
			fmt.Fprintf(&rows, " %s |", blockValue(cell, bl.Index))
		}
		rows.WriteString("\n")
	}
	var pairLines strings.Builder
	for _, cell := range shown {
		fmt.Fprintf(&pairLines, "- %s, B vs A per block pair: %s.\n", Escape(cell.Workload+": "+cell.Label), strings.Join(pairChanges(cell), ", "))
	}
	if pairLines.Len() > 0 {
		b.WriteString("\n" + pairLines.String())
	}
	b.WriteString(planPart(d))
	if len(x.Blocks) > 0 {
		b.WriteString(details("Blocks in run order", rows.String()))
	}
	return b.String()
}

// maxShown bounds the metrics whose per-block values the blocks table
// shows, so it stays readable.
const maxShown = 4

// abShown are the gated cells whose per-block values the report shows:
// the metrics that moved, else the headline (the most worrying undecided
// one), so a reader sees the blocks behind the verdict.
func abShown(c *verdict.Comparison) []*verdict.Cell {
	var out []*verdict.Cell
	for i := range c.Cells {
		cell := &c.Cells[i]
		if cell.Gated && cell.Blocks != nil && (cell.Outcome == verdict.Regression || cell.Outcome == verdict.Improvement) && len(out) < maxShown {
			out = append(out, cell)
		}
	}
	if len(out) == 0 && c.Headline != nil && c.Headline.Blocks != nil {
		out = append(out, c.Headline)
	}
	return out
}

// pairChanges formats each block pair's B vs A change of cell.
func pairChanges(cell *verdict.Cell) []string {
	var out []string
	for _, p := range cell.Blocks.Pairs {
		if cell.Absolute {
			out = append(out, Points(p))
		} else {
			out = append(out, Percent(p))
		}
	}
	return out
}

// blockValue is cell's value in block i, "–" when the block has none (no
// valid trial).
func blockValue(cell *verdict.Cell, i int) string {
	for _, v := range cell.Blocks.Values {
		if v.Block == i {
			return Value(v.Value, cell.Unit)
		}
	}
	return "–"
}

// startup formats a start-up time in seconds.
func startup(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.0f s", s)
}

// abText is the terminal report's lines about the experiment: the order,
// each block's start-up time, the moved metrics and, when a gated metric
// is undecided, the plan. Empty without an experiment.
func abText(d *Data) string {
	x := d.AB
	if x == nil {
		if plan := planText(d); plan != "" {
			return "\n" + plan
		}
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nA/B: %d blocks, order %s", len(x.Blocks), plain(x.Order))
	if x.Seed != 0 {
		fmt.Fprintf(&b, " (seed %d)", x.Seed)
	}
	if x.Resident {
		b.WriteString(", one long-running server per arm")
	}
	b.WriteString("\n")
	var ups []string
	for _, bl := range x.Blocks {
		if bl.StartupS > 0 {
			ups = append(ups, fmt.Sprintf("%d%s %s", bl.Index, strings.ToUpper(bl.Arm), startup(bl.StartupS)))
		}
	}
	if len(ups) > 0 {
		fmt.Fprintf(&b, "Server start-up per block: %s\n", strings.Join(ups, ", "))
	}
	reg, imp := movedMetrics(d.Comparison)
	if len(reg) > 0 {
		fmt.Fprintf(&b, "B is worse than A in: %s\n", plain(strings.Join(reg, ", ")))
	}
	if len(imp) > 0 {
		fmt.Fprintf(&b, "B is better than A in: %s\n", plain(strings.Join(imp, ", ")))
	}
	for _, cell := range abShown(d.Comparison) {
		fmt.Fprintf(&b, "%s, B vs A per block pair: %s\n", plain(cell.Workload+": "+cell.Label), strings.Join(pairChanges(cell), ", "))
	}
	b.WriteString(planText(d))
	return b.String()
}
