package trust

import (
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// After adds the trusted side's notes to the comparison c of the
// candidates cand and runs the drift guard: a candidate that passes
// against its baseline but is beyond the tolerance against the reference
// window fails, naming the window. bases are the baseline files (one per
// cell) the history's sessions are rebuilt from.
func (s *Side) After(c *verdict.Comparison, cand, bases []*result.Result, p verdict.Policy) error {
	if c == nil {
		return nil
	}
	c.Warnings = append(c.Warnings, s.Warnings...)
	byCell := map[string]*result.Result{}
	for _, b := range bases {
		byCell[b.Workload.Cell] = b
	}
	var windows []history.DriftWindow
	for _, r := range cand {
		h, b := s.cells[r.Workload.Cell], byCell[r.Workload.Cell]
		if h == nil || b == nil {
			continue
		}
		if from, to, ok := h.Window(r.StartedAt, s.ref); ok {
			windows = append(windows, history.DriftWindow{Cell: h.Name, Name: h.Describe(from, to), Sessions: h.Results(b, from, to)})
		}
	}
	d, err := history.CheckDrift(windows, cand, p)
	if err != nil || !d.Regressed() {
		return err
	}
	c.Warnings = append(d.Messages, c.Warnings...)
	if c.Verdict != verdict.Regression {
		c.Verdict = verdict.Regression
		h := *d.Comparison.Headline
		h.Label += " (cumulative drift against " + windowOf(h.Workload, windows) + ")"
		c.Headline = &h
		c.Regressions += d.Comparison.Regressions
	}
	return nil
}

func windowOf(cell string, ws []history.DriftWindow) string {
	for _, w := range ws {
		if w.Cell == cell {
			return w.Name
		}
	}
	return "the reference window"
}
