package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// details wraps body in a collapsed section; an empty body gives "".
func details(summary, body string) string {
	if body == "" {
		return ""
	}
	return "\n<details><summary>" + summary + "</summary>\n\n" + body + "\n</details>\n"
}

// allMetricsPart lists every compared metric of every workload, gated or
// not, with the raw test numbers, grouped by workload.
func allMetricsPart(d *Data) string {
	c := d.Comparison
	if len(c.Cells) == 0 {
		return ""
	}
	byW := map[string][]*verdict.Cell{}
	for i := range c.Cells {
		byW[c.Cells[i].Workload] = append(byW[c.Cells[i].Workload], &c.Cells[i])
	}
	var b strings.Builder
	for _, w := range c.Workloads {
		cells := byW[w.Cell]
		if len(cells) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n**%s**\n\n| Metric | Gated | %s | %s | Change | Interval | p (adj.) | Outcome |\n|---|---|--:|--:|--:|--:|--:|---|\n", Escape(w.Cell), armsOf(d).base, armsOf(d).cand)
		for _, cell := range cells {
			gated := ""
			if cell.Gated {
				gated = "yes"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
				Escape(cell.Label), gated, cellValue(cell, cell.Baseline), cellValue(cell, cell.Candidate),
				Change(cell), Interval(cell), pValue(cell.PAdjusted), cell.Outcome)
		}
	}
	return details(fmt.Sprintf("All %d compared metrics", len(c.Cells)), b.String())
}

// noisePart shows, per gated cell, where the noise estimate came from and
// the smallest worsening this look could detect, next to the tolerance,
// and the pooled per-metric noise.
func noisePart(d *Data) string {
	c := d.Comparison
	var b strings.Builder
	n := 0
	for i := range c.Cells {
		cell := &c.Cells[i]
		if !cell.Gated {
			continue
		}
		if n == 0 {
			fmt.Fprintf(&b, "| Workload | Metric | %s CV | %s CV | Noise | Detectable change | Tolerance |\n|---|---|--:|--:|---|--:|--:|\n", armsOf(d).base, armsOf(d).cand)
		}
		n++
		mde := mdcText(cell)
		if cell.MDE > cell.Tolerance {
			mde += " ⚠️"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s (df %.0f) | %s | %s |\n",
			Escape(cell.Workload), Escape(cell.Label), spread(cell, cell.Baseline), spread(cell, cell.Candidate),
			Escape(cell.Noise.Source), cell.Noise.DF, strings.TrimPrefix(mde, "+"), Tolerance(cell))
	}
	if len(c.Noise) > 0 {
		b.WriteString("\nNoise prior per metric (within-session spread, empirical-Bayes across workloads; between-session spread pooled):\n\n| Metric | σ | df | Workloads | Between σ | Between df | Used |\n|---|--:|--:|--:|--:|--:|---|\n")
		for _, nz := range c.Noise {
			used := "no (too few workloads or df)"
			if nz.Usable {
				used = "yes"
			}
			fmt.Fprintf(&b, "| %s | %.4f | %.0f | %d | %.4f | %.0f | %s |\n", Escape(nz.Metric), nz.Sigma, nz.DF, nz.Pooled, nz.Between, nz.BetweenDF, used)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	more := "trials"
	if paired(d) {
		more = "blocks"
	}
	return details("Noise and minimum detectable change", "A change smaller than the detectable change cannot be called a regression at this look; ⚠️ marks cells where that is more than the tolerance (add "+more+").\n\n"+b.String())
}

// mdcText is a cell's minimum detectable change as the noise table shows
// it: "9.1 %", "0.50 pp", and for one above 100 % "over 100 %" (a number
// like 1,955.8 % only tells the reader to stop trusting the table; what it
// says is that not even a doubling can be found).
func mdcText(cell *verdict.Cell) string {
	switch {
	case cell.Absolute:
		return Points(cell.MDE)
	case cell.MDE > 100:
		return "over 100 %"
	}
	return Percent(cell.MDE)
}

// spread formats an arm's coefficient of variation (or standard deviation
// in points for absolute metrics).
func spread(cell *verdict.Cell, a verdict.Arm) string {
	if a.N < 2 {
		return "–"
	}
	if cell.Absolute {
		return fmt.Sprintf("%.2f pp", a.CV*100)
	}
	return fmt.Sprintf("%.1f %%", a.CV*100)
}

// excludedPart lists invalid trials left out of the comparison and why.
func excludedPart(d *Data) string {
	var rows []string
	for _, w := range d.Comparison.Workloads {
		for _, e := range w.Excluded {
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s |\n", Escape(w.Cell), Escape(armsOf(d).side(e.Arm)), e.Trial, Escape(Truncate(e.Reason, 300))))
		}
	}
	return rowsPart("%d invalid trial(s) excluded", "| Workload | Arm | Trial | Why |\n|---|---|--:|---|\n", rows)
}

// fingerprintPart lists environment differences between the arms; hard
// keys (which block the comparison unless allowed) are marked.
func fingerprintPart(d *Data) string {
	var rows []string
	for _, w := range d.Comparison.Workloads {
		for _, f := range w.Fingerprint {
			hard := ""
			if f.Hard {
				hard = "yes"
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s |\n", Escape(w.Cell), Code(f.Key), orDash(Escape(Truncate(shown(f.Key, f.Baseline), 200))), orDash(Escape(Truncate(shown(f.Key, f.Candidate), 200))), hard))
		}
	}
	head := fmt.Sprintf("| Workload | Key | %s | %s | Must match |\n|---|---|---|---|---|\n", armsOf(d).base, armsOf(d).cand)
	return rowsPart("%d fingerprint difference(s)", head, rows)
}

// rowsPart is a collapsed table of rows under head, its summary the
// count of rows written into summary (a format with one %d); "" without
// rows.
func rowsPart(summary, head string, rows []string) string {
	if len(rows) == 0 {
		return ""
	}
	return details(fmt.Sprintf(summary, len(rows)), head+strings.Join(rows, ""))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
