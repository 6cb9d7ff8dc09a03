package ab

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestOutlierBlock: the outlier rule applied to paired cells' block
// values. A block moved far from its arm's other blocks is left out,
// recorded with its arm and block, warned about, and its pair dropped; a
// real change (every B block) and a drift (every block) are not outliers;
// the rule off keeps every block.
func TestOutlierBlock(t *testing.T) {
	order, _ := Order(16, 0)
	base := func(seed uint64, drift, bScale float64) map[int][]float64 {
		r := rand.New(rand.NewPCG(seed, 7))
		vals := map[int][]float64{}
		for i := 1; i <= 16; i++ {
			lvl := 10 * (1 + drift*float64(i))
			if order[i-1] == 'B' {
				lvl *= bScale
			}
			vals[i] = []float64{lvl * (1 + 0.01*r.NormFloat64()), lvl * (1 + 0.01*r.NormFloat64())}
		}
		return vals
	}
	stalled := func(vals map[int][]float64, block int, f float64) map[int][]float64 {
		vals[block][0] *= f
		return vals
	}
	off := tpotOnly()
	off.OutlierAlpha = 0
	for _, c := range []struct {
		name    string
		vals    map[int][]float64
		policy  verdict.Policy
		arm     string // "" when nothing is left out
		block   int
		outcome verdict.Outcome
	}{
		{"one trial x3 in an A block", stalled(base(1, 0, 1), 1, 3), tpotOnly(), "a", 1, verdict.Pass},
		{"one trial x3 in a B block", stalled(base(2, 0, 1), 3, 3), tpotOnly(), "b", 3, verdict.Pass},
		{"rule off", stalled(base(1, 0, 1), 1, 3), off, "", 0, verdict.Inconclusive},
		{"quiet", base(3, 0, 1), tpotOnly(), "", 0, verdict.Pass},
		{"B 10 % slower everywhere", base(4, 0, 1.1), tpotOnly(), "", 0, verdict.Regression},
		{"drift 3 % per block", base(5, 0.03, 1), tpotOnly(), "", 0, verdict.Pass},
	} {
		a, b := pairOf(order, c.vals)
		cmp, err := Compare([]*result.Result{a}, []*result.Result{b}, Options{Policy: c.policy})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cell := cmp.Cells[0]
		if cell.Outcome != c.outcome {
			t.Errorf("%s: outcome %s, want %s (change %.2f%%, CI %.2f..%.2f)", c.name, cell.Outcome, c.outcome, cell.Change, cell.CILow, cell.CIHigh)
		}
		if c.arm == "" {
			if len(cell.Outliers) != 0 || len(cell.Blocks.Lost) != 0 {
				t.Errorf("%s: outliers %+v, lost pairs %v", c.name, cell.Outliers, cell.Blocks.Lost)
			}
			continue
		}
		pair := (c.block + 1) / 2
		if len(cell.Outliers) != 1 || cell.Outliers[0].Arm != c.arm || cell.Outliers[0].Block != c.block || cell.Outliers[0].Trial != 0 {
			t.Fatalf("%s: outliers %+v", c.name, cell.Outliers)
		}
		letter := strings.ToUpper(c.arm)
		if len(cell.Blocks.Lost) != 1 || cell.Blocks.Lost[0] != pair || len(cell.Blocks.Pairs) != 7 || len(cell.Blocks.Values) != 16 {
			t.Errorf("%s: lost %v, %d pairs, %d block values", c.name, cell.Blocks.Lost, len(cell.Blocks.Pairs), len(cell.Blocks.Values))
		}
		for _, w := range []string{fmt.Sprintf("block %d of arm %s left out as an outlier", c.block, letter), fmt.Sprintf("block %d (arm %s) was left out as an outlier", c.block, letter)} {
			if !strings.Contains(strings.Join(cell.Warnings, "\n"), w) {
				t.Errorf("%s: no warning %q in %q", c.name, w, cell.Warnings)
			}
		}
	}
}
