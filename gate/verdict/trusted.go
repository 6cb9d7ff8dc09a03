package verdict

import (
	"fmt"
	"sort"
)

// tighten applies a cell's trusted rules (Policy.Trusted: the rules stored
// with its baseline at promotion) to the checked-out ones, so that a pull
// request cannot loosen its own gate in the diff it is measured on: a
// metric gated by either side is gated, and when both gate it the smaller
// tolerance applies. It returns one message per rule the checked-out side
// tried to loosen; a looser rule takes effect only once it is promoted
// from the default branch with a new baseline.
func (cr *cellRules) tighten(trusted []Rule) []string {
	var msgs []string
	sorted := append([]Rule(nil), trusted...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Metric < sorted[j].Metric })
	for _, t := range sorted {
		if !t.Gated {
			continue // an ungated trusted rule constrains nothing
		}
		if t.Tolerance == 0 {
			t.Tolerance = DefaultTolerance(t.Metric)
		}
		c, ok := cr.rules[t.Metric]
		switch {
		case !ok || !c.Gated:
			msgs = append(msgs, fmt.Sprintf("ignored a looser rule: this change stops gating %s; the baseline's rule (gated at %s) applies until a new baseline is promoted from the default branch",
				t.Metric, tolText(t.Metric, t.Tolerance)))
			cr.rules[t.Metric] = t
			delete(cr.optOut, t.Metric)
		case c.Tolerance > t.Tolerance:
			msgs = append(msgs, fmt.Sprintf("ignored a looser rule: this change raises the tolerance of %s to %s; the baseline's %s applies until a new baseline is promoted from the default branch",
				t.Metric, tolText(t.Metric, c.Tolerance), tolText(t.Metric, t.Tolerance)))
			c.Tolerance = t.Tolerance
			cr.rules[t.Metric] = c
		}
	}
	return msgs
}

// tolText formats a tolerance: percent for relative metrics, points for
// ratio metrics.
func tolText(id string, tol float64) string {
	if Absolute(id) {
		return fmt.Sprintf("%.2f points", 100*tol)
	}
	return fmt.Sprintf("%.1f %%", 100*tol)
}
