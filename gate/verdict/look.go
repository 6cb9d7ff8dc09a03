package verdict

// NeedsTrials lists, sorted, the compared workload cells with an
// inconclusive gated cell: the ones perfgate gate adds trials to before its
// next look. It is empty once the verdict is regression (adding trials
// cannot undo a regression found with the look's share of alpha) or when
// this was the last look. A cell inconclusive because one arm lacks the
// metric does not count: more trials of the same run cannot add it.
func (c *Comparison) NeedsTrials() []string {
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
			if cell.Workload == w.Cell && cell.Gated && cell.Outcome == Inconclusive && !untestable && !seen[w.Cell] {
				seen[w.Cell] = true
				out = append(out, w.Cell)
			}
		}
	}
	return out
}
