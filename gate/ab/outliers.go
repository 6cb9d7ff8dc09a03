package ab

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// dropOutlierBlocks applies verdict's outlier rule (verdict.Screen, the
// rule of docs/statistics.md "Outlier trials") to each arm's block values
// of one cell: among an arm's blocks with a valid trial, the block whose
// value (the mean of its trials on the test scale) is farthest from the
// arm's median is left out when it lies too far from the arm's other
// blocks, at most one block per arm. The yardstick is the other blocks'
// own spread, never below the policy's per-trial floor carried through a
// block's mean. A block, not a trial, is screened: at the default two
// trials per block a block has too few trials to judge one by the others,
// and a stalled trial moves its whole block. The dropped blocks are
// recorded in c.Outliers and warned about; they are removed from blocks,
// so their pairs are left out as a pair with an empty block is.
func dropOutlierBlocks(c *verdict.Cell, order string, blocks map[int][]float64, p *verdict.Policy) map[int]bool {
	if p.OutlierAlpha <= 0 {
		return nil
	}
	dropped := map[int]bool{}
	for _, letter := range []byte{'A', 'B'} {
		var idx []int
		var x []float64
		fewest := 0
		for i := 1; i <= len(order); i++ {
			if order[i-1] != letter || len(blocks[i]) == 0 {
				continue
			}
			m, _ := verdict.MeanVar(blocks[i])
			idx, x = append(idx, i), append(x, m)
			if fewest == 0 || len(blocks[i]) < fewest {
				fewest = len(blocks[i])
			}
		}
		if len(x) == 0 {
			continue
		}
		k, r, pv, out := verdict.Screen(x, p.WithinFloor(c.Absolute)/float64(fewest), p.OutlierAlpha)
		if !out {
			continue
		}
		raw := x[k]
		if !c.Absolute {
			raw = math.Exp(raw)
		}
		arm := string(letter + 'a' - 'A')
		c.Outliers = append(c.Outliers, verdict.Outlier{Arm: arm, Block: idx[k], Value: raw, Score: r, P: pv})
		c.Warnings = append(c.Warnings, fmt.Sprintf("block %d of arm %c left out as an outlier (%.1f standard deviations from the arm's other blocks)", idx[k], letter, r))
		dropped[idx[k]] = true
		delete(blocks, idx[k])
	}
	return dropped
}
