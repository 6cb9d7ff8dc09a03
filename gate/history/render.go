package history

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/gate/report"
)

// JSON writes r as indented JSON (schema ReportSchema).
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// CSV writes r in long form, one row per (cell, metric, session); the step
// columns are filled on the first session after a step.
func CSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"cell", "metric", "run", "date", "commit", "value", "spread", "trials", "step_change", "step_low", "step_high", "step_p"}); err != nil {
		return err
	}
	for _, c := range r.Cells {
		for _, m := range c.Metrics {
			steps := stepsByRun(m)
			for _, p := range m.Points {
				s := c.Sessions[p.Run-1]
				row := []string{c.Cell, m.Metric, strconv.Itoa(p.Run), s.Date.UTC().Format("2006-01-02T15:04:05Z"), s.Commit,
					num(p.Value), num(p.Spread), strconv.Itoa(p.N), "", "", "", ""}
				if st, ok := steps[p.Run]; ok {
					row[8], row[9], row[10], row[11] = num(st.Change), num(st.Low), num(st.High), num(st.P)
				}
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Text writes r for a terminal: per cell the steps found, then a table of
// the sessions with one column per metric, a * marking the first session
// after a step.
func Text(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "perfgate history of profile %s: %s\n", r.Profile, method(r.Detector))
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "\n%s: %s\n", c.Cell, runs(c))
		steps := allSteps(c)
		if len(steps) == 0 {
			b.WriteString("  no step detected\n")
		}
		for _, st := range steps {
			fmt.Fprintf(&b, "  step: %s\n", stepLine(c, st))
		}
		for _, m := range c.Metrics {
			if m.Noise != nil {
				fmt.Fprintf(&b, "  noise: %s\n", noiseLine(m))
			}
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		hdr := []string{"run", "date", "commit"}
		for _, m := range c.Metrics {
			hdr = append(hdr, m.Label)
		}
		fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
		for _, row := range grid(c) {
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes r as GitHub markdown: the steps first (what the nightly
// issue needs: the night and the commit), then each cell's table folded
// in a details block. Names from files are escaped.
func Markdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### perfgate history · %s\n\n", report.Escape(r.Profile))
	fmt.Fprintf(&b, "Change points: %s.\n\n", method(r.Detector))
	any := false
	for _, c := range r.Cells {
		for _, st := range allSteps(c) {
			if !any {
				b.WriteString("| Workload | Metric | First run after the step | Change | 95 % interval |\n|---|---|---|---|---|\n")
				any = true
			}
			s := c.Sessions[st.Session]
			fmt.Fprintf(&b, "| %s | %s | run %d, %s, `%s` | %s | %s |\n", report.Escape(c.Cell), report.Escape(st.label),
				s.Run, day(s.Date), report.Escape(commitName(s.Commit)), signed(st.Change, st.Absolute), interval(st.Step))
		}
	}
	if !any {
		b.WriteString("No step detected in any gated metric.\n")
	}
	trendTable(&b, r)
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "\n<details><summary>%s: %s</summary>\n\n", report.Escape(c.Cell), report.Escape(runs(c)))
		for _, m := range c.Metrics {
			if m.Noise != nil {
				fmt.Fprintf(&b, "- noise: %s\n", report.Escape(noiseLine(m)))
			}
		}
		b.WriteString("\n")
		hdr := []string{"Run", "Date", "Commit"}
		for _, m := range c.Metrics {
			hdr = append(hdr, report.Escape(m.Label))
		}
		fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(hdr, " | "), strings.Repeat("---|", len(hdr)))
		for _, row := range grid(c) {
			for i := range row {
				row[i] = report.Escape(row[i])
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trendTable writes one row per gated cell and metric: a text sparkline
// of the session levels, oldest to newest, as the line chart (it renders
// in every markdown viewer, unlike an image or a mermaid block), then the
// first and last levels and the runs that start a step.
func trendTable(b *strings.Builder, r *Report) {
	b.WriteString("\n| Workload | Metric | Trend, oldest to newest | First | Last | Steps at run |\n|---|---|---|---|---|---|\n")
	for _, c := range r.Cells {
		for _, m := range c.Metrics {
			if len(m.Points) == 0 {
				continue
			}
			vals := make([]float64, len(m.Points))
			for i, p := range m.Points {
				vals[i] = p.Value
			}
			var at []string
			for _, st := range m.Steps {
				at = append(at, strconv.Itoa(c.Sessions[st.Session].Run))
			}
			steps := "none"
			if len(at) > 0 {
				steps = strings.Join(at, ", ")
			}
			fmt.Fprintf(b, "| %s | %s | `%s` | %s | %s | %s |\n", report.Escape(c.Cell), report.Escape(m.Label),
				report.Sparkline(vals), level(m, m.Points[0]), level(m, m.Points[len(m.Points)-1]), steps)
		}
	}
}

// level is a session's value with the metric's unit, four digits; a ratio
// metric in percent (a success rate of 1 is "100 %", not "1").
func level(m MetricReport, p Level) string {
	v := valueText(m, p.Value)
	if m.Unit == "" || m.Unit == "ratio" {
		return v
	}
	return v + " " + report.Escape(m.Unit)
}

// valueText is a value at four significant digits, in percent for ratio
// metrics.
func valueText(m MetricReport, v float64) string {
	if m.Unit == "ratio" {
		return strconv.FormatFloat(100*v, 'g', 4, 64) + " %"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// labelled is a step with its metric's label.
type labelled struct {
	Step
	label string
}

func allSteps(c CellReport) []labelled {
	var out []labelled
	for _, m := range c.Metrics {
		for _, st := range m.Steps {
			out = append(out, labelled{st, m.Label})
		}
	}
	return out
}

func stepsByRun(m MetricReport) map[int]Step {
	out := map[int]Step{}
	for _, st := range m.Steps {
		out[st.Session+1] = st
	}
	return out
}

// grid is the sessions table: run, date, commit, then each metric's
// value (with * on the first session after a step).
func grid(c CellReport) [][]string {
	var rows [][]string
	for _, s := range c.Sessions {
		row := []string{strconv.Itoa(s.Run), day(s.Date), commitName(s.Commit)}
		for _, m := range c.Metrics {
			v := "-"
			for _, p := range m.Points {
				if p.Run == s.Run {
					v = valueText(m, p.Value)
				}
			}
			if _, ok := stepsByRun(m)[s.Run]; ok {
				v = "*" + v
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

func stepLine(c CellReport, st labelled) string {
	s := c.Sessions[st.Session]
	return fmt.Sprintf("%s %s from run %d (%s, %s): %s, 95 %% interval %s, %s",
		st.label, direction(st.Change), s.Run, day(s.Date), commitName(s.Commit), signed(st.Change, st.Absolute), interval(st.Step), pText(st.P))
}

// noiseLine is what the gate learns about a metric from the current
// segment.
func noiseLine(m MetricReport) string {
	n, u := m.Noise, "%"
	if m.Unit == "ratio" {
		u = "points"
	}
	return fmt.Sprintf("%s over runs %d-%d: within-session %.2f %s, between-session %.2f %s (%.0f df)",
		m.Label, n.FromRun, n.ToRun, n.Within, u, n.Between, u, n.BetweenDF)
}

func runs(c CellReport) string {
	n := len(c.Sessions)
	if n == 0 {
		return "no runs"
	}
	s := fmt.Sprintf("%d runs, %s..%s", n, day(c.Sessions[0].Date), day(c.Sessions[n-1].Date))
	if c.Dropped > 0 {
		s += fmt.Sprintf(" (%d older runs of another workload version left out)", c.Dropped)
	}
	return s
}

func method(d Detector) string {
	return fmt.Sprintf("binary segmentation of steps and step-and-return, t test on each run's trials and the between-run noise (family-wise alpha %g over %d series, at least %d runs either side)", d.Alpha, max(d.Family, 1), d.MinSize)
}

func direction(change float64) string {
	if change >= 0 {
		return "rose"
	}
	return "fell"
}

func signed(v float64, abs bool) string {
	if abs {
		return fmt.Sprintf("%+.2f points", v)
	}
	return fmt.Sprintf("%+.1f %%", v)
}

func interval(st Step) string {
	if st.Absolute {
		return fmt.Sprintf("[%+.2f, %+.2f]", st.Low, st.High)
	}
	return fmt.Sprintf("[%+.1f, %+.1f]", st.Low, st.High)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func commitName(s string) string {
	if s == "" {
		return "(no commit)"
	}
	return shortSHA(s)
}

// pText shows a family-wise adjusted p-value: three decimals, or "p <
// 0.001" below them (a parametric p-value can be 1e-9, which "p 0.000"
// would misstate as zero).
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p %.3f", p)
}
