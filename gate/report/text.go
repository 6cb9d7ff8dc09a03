package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Text writes the terminal report by the comment's rules: the verdict
// first (so `| head -1` answers "did it regress, where, by how much", the
// same cell as the comment's headline), a header line, then one aligned
// table of the regressed metrics (most severe first) and the undecided
// ones (closest to failing first, at most ShownUndecided, each with what
// would decide it), the passing and improved ones too when there are at
// most SmallFamily gated metrics (else the improved ones are named in one
// line and the passing ones counted in the summary),
// the workloads not compared with both arms' invalid trials, the runner
// health findings, and at most MaxNotes grouped notes. Strings from files
// and servers have control characters removed so they cannot move the
// cursor or recolour the terminal.
func Text(w io.Writer, d *Data) error {
	return text(w, d)
}

// SmallFamily is the most gated metrics whose passing rows the terminal
// report still lists (one workload's default gate is nine): beyond it
// they are counted, so a many-workload report stays short.
const SmallFamily = 12

func text(w io.Writer, d *Data) error {
	if d == nil || d.Comparison == nil {
		return fmt.Errorf("report: no comparison to render")
	}
	c := d.Comparison
	var b strings.Builder
	head := shout(plain(headline(d)))
	if paired(d) {
		head = "B vs A: " + head // the verdict stays the word that shouts
	}
	fmt.Fprintf(&b, "%s\n", head)
	fmt.Fprintf(&b, "%s\n", headerLine(d, false))
	fmt.Fprintf(&b, "%s (family-wise alpha %g", countsLine(c), c.Alpha)
	if c.Look.Max > 1 {
		fmt.Fprintf(&b, ", look %d of %d", c.Look.Index, c.Look.Max)
	}
	b.WriteString(")\n")
	if d.RunError != "" {
		fmt.Fprintf(&b, "\nThe run did not complete: %s. Partial results never pass.\n", plain(d.RunError))
	}
	if f := findings(d, false); f != "" {
		b.WriteString("\n" + f)
	}
	first := true
	for _, wl := range c.Workloads {
		if wl.Status == verdict.Compared {
			continue
		}
		if first {
			b.WriteString("\nNot compared:\n")
			first = false
		}
		allowed := ""
		if wl.Allowed {
			allowed = " (allowed by policy)"
		}
		fmt.Fprintf(&b, "  %s: %s: %s%s\n", plain(wl.Cell), wl.Status, notComparedWhy(d, wl, false), allowed)
	}

	reg, inc, _ := listedCells(c)
	if len(reg)+len(inc) > 0 || (c.Family > 0 && c.Family <= SmallFamily) {
		b.WriteString("\n")
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		n := armsOf(d)
		fmt.Fprintf(tw, "WORKLOAD\tMETRIC\t%s\t%s\tCHANGE\tINTERVAL\tTOL\tOUTCOME\t\n", strings.ToUpper(n.base), strings.ToUpper(n.cand))
		row := func(cell *verdict.Cell, decider string) {
			if why := whyNot(c, cell); why != "" {
				decider = why
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", plain(Truncate(cell.Workload, 40)), plain(cell.Label),
				cellValue(cell, cell.Baseline), cellValue(cell, cell.Candidate), Change(cell), Interval(cell), Tolerance(cell), strings.ToUpper(string(cell.Outcome)), decider)
		}
		// The terminal keeps the comment's open rows (openRows): the
		// worst regressions, fewer under findings, the rest counted.
		maxReg := openRows(d)
		for i, l := range reg {
			if i == maxReg {
				break
			}
			row(l.cell, "")
		}
		maxInc := ShownUndecided
		for i, l := range inc {
			if i == maxInc {
				break
			}
			row(l.cell, "needs "+strings.ReplaceAll(decides(c, l.cell), "`", ""))
		}
		if c.Family <= SmallFamily {
			for i := range c.Cells {
				if cell := &c.Cells[i]; cell.Gated && (cell.Outcome == verdict.Pass || cell.Outcome == verdict.Improvement) {
					row(cell, "")
				}
			}
		}
		tw.Flush()
		// The last column (what decides a cell) is empty on most rows:
		// no padding after the last word.
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			b.WriteString(strings.TrimRight(line, " \n"))
			if strings.HasSuffix(line, "\n") {
				b.WriteString("\n")
			}
		}
		if len(reg) > maxReg {
			fmt.Fprintf(&b, "  … %d more regressed metric(s) in the full report\n", len(reg)-maxReg)
		}
		if len(inc) > maxInc {
			fmt.Fprintf(&b, "  … %d more undecided metric(s) in the full report\n", len(inc)-maxInc)
		}
		if l := intervalLegend(c); l != "" {
			fmt.Fprintf(&b, "%s\n", l)
		}
	}
	if c.Improvements > 0 && c.Family > SmallFamily {
		fmt.Fprintf(&b, "%s\n", passingLine(c))
	}
	b.WriteString(capacityText(d))
	b.WriteString(healthText(d))
	b.WriteString(abText(d))
	b.WriteString(notesText(notesOf(d)))
	if d.Footer != "" {
		fmt.Fprintf(&b, "\n%s\n", plain(d.Footer))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// passingLine counts the passing and improved gated metrics and names
// the improvements: "8 passed; 1 improved: smoke-chat-c4 TTFT p99 -74.0 %".
func passingLine(c *verdict.Comparison) string {
	var imp []string
	for i := range c.Cells {
		if cell := &c.Cells[i]; cell.Gated && cell.Outcome == verdict.Improvement {
			imp = append(imp, plain(cell.Workload)+" "+plain(cell.Label)+" "+Change(cell))
		}
	}
	s := fmt.Sprintf("%d passed", c.Passes)
	if len(imp) > 0 {
		s += fmt.Sprintf("; %d improved: %s", len(imp), cellList(imp, 3))
	}
	return s + " (every metric: report.md, comparison.json)"
}

// shout upper-cases the verdict words that start a headline ("Regression
// in x" -> "REGRESSION in x", "Run failed: y" -> "RUN FAILED: y") so the
// verdict stands out in a terminal.
func shout(h string) string {
	end := len(h)
	for _, sep := range []string{":", ";", " in "} {
		if i := strings.Index(h, sep); i >= 0 && i < end {
			end = i
		}
	}
	return strings.ToUpper(h[:end]) + h[end:]
}

// plain removes control and bidi characters and line breaks from an
// untrusted string for the terminal.
func plain(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if hidden(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
