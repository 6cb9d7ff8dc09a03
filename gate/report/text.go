package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Text writes the terminal report: the headline first (so `| head -1`
// answers "did it regress, where, by how much"), then an aligned table of
// the gated cells (regressions first, as the comparison orders them), the
// workloads whose runner health has findings, the workloads not compared,
// and the numbered warnings. Strings from files
// and servers have control characters removed so they cannot move the
// cursor or recolour the terminal.
func Text(w io.Writer, d *Data) error {
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
	fmt.Fprintf(&b, "%d workload(s), %d gated metrics: %d regressed, %d undecided, %d improved, %d passed (family-wise alpha %g",
		len(c.Workloads), c.Family, c.Regressions, c.Inconclusives, c.Improvements, c.Passes, c.Alpha)
	if c.Look.Max > 1 {
		fmt.Fprintf(&b, ", look %d of %d", c.Look.Index, c.Look.Max)
	}
	b.WriteString(")\n\n")
	b.WriteString(findingsText(d))

	var warns []string
	ref := func(s string) string {
		for i, w := range warns {
			if w == s {
				return fmt.Sprintf(" [%d]", i+1)
			}
		}
		warns = append(warns, s)
		return fmt.Sprintf(" [%d]", len(warns))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	n := armsOf(d)
	fmt.Fprintf(tw, "WORKLOAD\tMETRIC\t%s\t%s\tCHANGE\tINTERVAL\tTOL\tOUTCOME\n", strings.ToUpper(n.base), strings.ToUpper(n.cand))
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		note := ""
		for _, w := range cell.Warnings {
			note += ref(w)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", plain(Truncate(cell.Workload, 48)), plain(cell.Label),
			cellValue(cell, cell.Baseline), cellValue(cell, cell.Candidate), Change(cell), Interval(cell), Tolerance(cell),
			strings.ToUpper(string(cell.Outcome)), note)
	}
	tw.Flush()
	b.WriteString(capacityText(d))
	b.WriteString(healthText(d))
	first := true
	for _, wl := range c.Workloads {
		if wl.Status == verdict.Compared {
			for _, warn := range wl.Warnings {
				ref(wl.Cell + ": " + warn)
			}
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
		fmt.Fprintf(&b, "  %s: %s: %s%s\n", plain(wl.Cell), wl.Status, plain(Truncate(wl.Message, 300)), allowed)
	}
	for _, warn := range c.Warnings {
		ref(warn)
	}
	b.WriteString(abText(d))
	if d.RunError != "" {
		fmt.Fprintf(&b, "\nThe run did not complete: %s. Partial results never pass.\n", plain(d.RunError))
	}
	if len(warns) > 0 {
		b.WriteString("\nWarnings:\n")
		for i, w := range warns {
			fmt.Fprintf(&b, "  [%d] %s\n", i+1, plain(Truncate(w, 500)))
		}
	}
	if d.Footer != "" {
		fmt.Fprintf(&b, "\n%s\n", plain(d.Footer))
	}
	_, err := io.WriteString(w, b.String())
	return err
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
