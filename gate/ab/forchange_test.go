package ab

import "testing"

// TestForChange: a plan for a worsening has one row per gated metric on
// its scale with measured noise; a row whose tolerance holds the change
// says so and asks no blocks; the others are each metric's own design's
// power and blocks, and the plan's most blocks is their largest.
func TestForChange(t *testing.T) {
	c := undecided(t)
	for _, tc := range []struct {
		change   float64
		absolute bool
	}{{0.02, false}, {0.08, false}, {0.5, false}, {0.005, true}} {
		p := ForChange(c, tc.change, tc.absolute)
		want, within, most := 0, 0, 0
		for i := range c.Cells {
			if cell := &c.Cells[i]; cell.Gated && cell.Absolute == tc.absolute && cell.Noise.SE > 0 {
				want++
			}
		}
		if len(p.Rows) != want || want == 0 {
			t.Fatalf("change %v: %d rows, want one per gated metric on the scale (%d)", tc.change, len(p.Rows), want)
		}
		for _, row := range p.Rows {
			d := DesignOf(c, row.Cell)
			if row.BlocksToPass != d.BlocksToPass(PlanPass) || row.Blocks != d.Blocks {
				t.Errorf("change %v, %s: %+v, design blocks %d to pass %d", tc.change, row.Cell.Metric, row, d.Blocks, d.BlocksToPass(PlanPass))
			}
			if row.Within != (tc.change <= d.Tolerance) {
				t.Errorf("change %v, %s: within %v, tolerance %v", tc.change, row.Cell.Metric, row.Within, d.Tolerance)
			}
			if row.Within {
				within++
				if row.Power != 0 || row.BlocksFor != 0 {
					t.Errorf("change %v, %s: a change within the tolerance has power %v and %d blocks", tc.change, row.Cell.Metric, row.Power, row.BlocksFor)
				}
				continue
			}
			if row.Power != d.Power(tc.change) || row.BlocksFor != d.BlocksFor(tc.change, PlanPower) {
				t.Errorf("change %v, %s: %+v, design power %v blocks %d", tc.change, row.Cell.Metric, row, d.Power(tc.change), d.BlocksFor(tc.change, PlanPower))
			}
			most = max(most, row.BlocksFor)
		}
		if p.Within != within || p.Most != most {
			t.Errorf("change %v: within %d most %d, want %d and %d", tc.change, p.Within, p.Most, within, most)
		}
	}
	// A larger worsening is found in fewer blocks.
	if a, b := ForChange(c, 0.08, false), ForChange(c, 0.5, false); b.Most > a.Most {
		t.Errorf("50 %% needs %d blocks, 8 %% %d", b.Most, a.Most)
	}
}
