package verdict

// NeedsTrials lists, sorted, the compared workload cells with an
// inconclusive gated cell: the ones perfgate gate adds trials to before its
// next look. It is empty once the verdict is regression (adding trials
// cannot undo a regression found with the look's share of alpha) or when
// this was the last look.
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
			if cell.Workload == w.Cell && cell.Gated && cell.Outcome == Inconclusive && !seen[w.Cell] {
				seen[w.Cell] = true
				out = append(out, w.Cell)
			}
		}
	}
	return out
}
