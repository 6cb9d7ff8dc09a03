package verdict

// NeedsTrials lists, sorted, the compared workload cells with an
// inconclusive gated cell that more candidate trials can decide (Cell.Limit
// LimitCandidate or LimitBaseline): the ones perfgate gate adds trials to
// before its next look. It is empty once the verdict is regression (adding
// trials cannot undo a regression found with the look's share of alpha) or
// when this was the last look. A cell inconclusive because one arm lacks
// the metric does not count: more trials of the same run cannot add it;
// nor does one whose between-session noise alone keeps it undecided
// (LimitBetween): more trials of this session cannot shrink that, and the
// cell's warning says what would decide it.
func (c *Comparison) NeedsTrials() []string {
	return c.needing(func(l Limit) bool { return l == LimitCandidate || l == LimitBaseline })
}

// NeedsBaselineTrials lists, sorted, the compared workload cells with an
// inconclusive gated cell for which the baseline's trials are the limit:
// they are the larger part of its standard error, or more candidate trials
// alone cannot decide it. perfgate gate adds baseline trials to these when
// it can run the baseline's server; otherwise the report says the baseline
// needs more trials (or sessions).
func (c *Comparison) NeedsBaselineTrials() []string {
	return c.needing(func(l Limit) bool { return l == LimitBaseline })
}

// Undecidable lists, sorted, the compared workload cells with an
// inconclusive gated cell that no number of trials of these sessions can
// decide (LimitBetween).
func (c *Comparison) Undecidable() []string {
	return c.needing(func(l Limit) bool { return l == LimitBetween })
}

func (c *Comparison) needing(want func(Limit) bool) []string {
	if c.Verdict == Regression || c.Look.Index >= c.Look.Max {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range c.Workloads {
		if w.Status != Compared {
			continue
		}
		for _, cell := range c.Cells {
			untestable := cell.Baseline.N == 0 || cell.Candidate.N == 0
			if cell.Workload == w.Cell && cell.Gated && cell.Outcome == Inconclusive && !untestable && want(cell.Limit) && !seen[w.Cell] {
				seen[w.Cell] = true
				out = append(out, w.Cell)
			}
		}
	}
	return out
}
