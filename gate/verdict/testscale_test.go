package verdict

import (
	"math"
	"testing"
)

// TestToTestScale: logs for relative metrics, values as they are for
// absolute ones, and a zero of a relative metric refused. (It was
// noise.Scale's test, a forwarder removed as dead code in issue 19.)
func TestToTestScale(t *testing.T) {
	if got, ok := ToTestScale([]float64{1, math.E}, false); !ok || got[0] != 0 || math.Abs(got[1]-1) > 1e-15 {
		t.Errorf("logs: %v %v", got, ok)
	}
	if got, ok := ToTestScale([]float64{0.99, 0}, true); !ok || got[1] != 0 {
		t.Errorf("absolute: %v %v", got, ok)
	}
	if _, ok := ToTestScale([]float64{1, 0}, false); ok {
		t.Error("a zero of a relative metric was accepted")
	}
}
