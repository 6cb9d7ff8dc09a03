package verdict

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestExtremeValuesStayEncodable: values a result file may hold (at most
// result.MaxValue) can still differ by more than e^709 (1e-300 against
// 9e14); the relative change then overflowed to +Inf and writing the
// comparison failed with "json: unsupported value: +Inf" after every trial
// had run (issue 14, defect 16). The change is capped at the largest
// float64, and the comparison encodes.
func TestExtremeValuesStayEncodable(t *testing.T) {
	b, c := pair(16, func(b, c *result.Result) {
		for i := range b.Trials {
			b.Trials[i].Values["ttft_ms.p99"] = 1e-300 * (1 + float64(i)/10)
			c.Trials[i].Values["ttft_ms.p99"] = 9e14 * (1 + float64(i)/100)
		}
	})
	cmp := mustCompare(t, b, c, DefaultPolicy())
	cell := cellOf(cmp, "w", "ttft_ms.p99")
	if cell == nil || cell.Outcome != Regression {
		t.Fatalf("cell %+v", cell)
	}
	for name, v := range map[string]float64{"change": cell.Change, "worse": cell.Worse, "ci_low": cell.CILow, "ci_high": cell.CIHigh, "mde": cell.MDE} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Errorf("%s = %v", name, v)
		}
	}
	if _, err := json.Marshal(cmp); err != nil {
		t.Fatalf("comparison does not encode: %v", err)
	}
}
