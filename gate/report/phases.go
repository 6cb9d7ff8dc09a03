package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// phasesPart is the collapsed detail behind the findings: for each
// regressed workload the mean E2EL split into server queue, prefill and
// decode (with the time per output token and the tokens per request), the
// client's queue beside it, and every server figure both arms recorded.
// "" without an explanation.
func phasesPart(d *Data) string {
	e := d.Comparison.Explanation
	if e == nil || (len(e.Workloads) == 0 && len(e.Warnings) == 0) {
		return ""
	}
	n := armsOf(d)
	var b strings.Builder
	if len(e.Workloads) > 0 {
		fmt.Fprintf(&b, "The median request, %s → %s (per-trial medians, averaged over trials), each change with its %.0f %% interval and its share of the E2EL change. E2EL p50 = server queue (its mean) + prefill + decode; decode = time per output token × (tokens − 1). The client queue (waiting for a concurrency slot) is not part of E2EL.\n\n",
			strings.ToLower(n.base), strings.ToLower(n.cand), 100*e.CILevel)
		b.WriteString("| Workload | E2EL | Server queue | Prefill | Decode | Per output token | Tokens | Client queue | Carried by |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range e.Workloads {
			queue := phaseCell(s.Phases[0], true)
			if !s.ServerQueue {
				queue = "not recorded (TTFT counts as prefill)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", Escape(s.Workload),
				levels(s.E2EL), queue, phaseCell(s.Phases[1], true), phaseCell(s.Phases[2], true),
				levels(s.PerToken)+" "+interval(s.PerToken), tokensCell(s.Tokens), levels(s.ClientQueue), phaseWords[s.Carrier][0])
		}
	}
	if rows := counterRows(e); rows != "" {
		fmt.Fprintf(&b, "\nServer `/metrics` per trial, median (range) over valid trials, %s → %s. ⚑ marks a figure whose ranges do not overlap: it moved beyond its trial spread (the chance of that with no real change is shown).\n\n",
			strings.ToLower(n.base), strings.ToLower(n.cand))
		fmt.Fprintf(&b, "| Workload | Figure | Series | %s | %s | |\n|---|---|---|---|---|---|\n", n.base, n.cand)
		b.WriteString(rows)
	}
	for _, w := range e.Warnings {
		fmt.Fprintf(&b, "\n- Not split: %s\n", Escape(w))
	}
	return details(fmt.Sprintf("Why it regressed: phase split and server figures of %d workload(s)", len(e.Workloads)), b.String())
}

// levels is "43.9 → 51.4 ms (+17.0 %)".
func levels(c verdict.PhaseChange) string {
	return fmt.Sprintf("%s → %s ms (%s)", Number(c.Baseline), Number(c.Candidate), Percent(c.Change))
}

// phaseCell is a phase's change in ms with its interval and share:
// "+5.9 ms (+4.4 to +7.3), 79 %".
func phaseCell(c verdict.PhaseChange, share bool) string {
	s := fmt.Sprintf("%s ms %s", signedMS(c.Delta), interval(c))
	s = strings.Replace(s, " ms)", ")", 1) // one unit is enough: "+5.9 ms (+4.4 to +7.3)"
	if share {
		s += fmt.Sprintf(", %.0f %%", c.Share)
	}
	return s
}

// interval is "(+4.4 to +7.3)" in ms, or "(one trial)" without one.
func interval(c verdict.PhaseChange) string {
	if c.NoInterval {
		return "(no interval: one trial)"
	}
	return fmt.Sprintf("(%s to %s ms)", signedMS(c.DeltaLow), signedMS(c.DeltaHigh))
}

func signedMS(v float64) string {
	if v > 0 {
		return "+" + Number(v)
	}
	if v == 0 {
		return "±0"
	}
	return Number(v)
}

func tokensCell(c verdict.PhaseChange) string {
	if c.Delta == 0 {
		return Number(c.Baseline)
	}
	return fmt.Sprintf("%s → %s (%s)", Number(c.Baseline), Number(c.Candidate), Percent(c.Change))
}

// counterRows is one table row per server figure per workload, flagged
// ones first within a workload.
func counterRows(e *verdict.Explanation) string {
	var b strings.Builder
	for _, s := range e.Workloads {
		for _, flaggedFirst := range []bool{true, false} {
			for _, c := range s.Counters {
				if c.Flagged != flaggedFirst {
					continue
				}
				mark := ""
				if c.Flagged {
					mark = fmt.Sprintf("⚑ (%.2g %% by chance)", 100*c.FalseFlag)
				}
				series := "–"
				if c.Series != "" {
					series = Code(c.Series)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", Escape(s.Workload), counterLabel(c.Key), series,
					spreadOf(c.Key, c.Baseline, c.BaseMin, c.BaseMax), spreadOf(c.Key, c.Candidate, c.CandMin, c.CandMax), mark)
			}
		}
	}
	return b.String()
}

// spreadOf is "37 (30 – 41)", or the value alone when the range is a point.
func spreadOf(key string, med, lo, hi float64) string {
	if lo == hi {
		return counterValue(key, med)
	}
	return fmt.Sprintf("%s (%s – %s)", counterValue(key, med), counterValue(key, lo), counterValue(key, hi))
}
