package metrics

import (
	"testing"
	"time"
)

// TestRecordedWith: a percentile outside Stats is recorded exactly when
// the workload asks for it; everything Recorded accepts stays accepted.
func TestRecordedWith(t *testing.T) {
	for _, c := range []struct {
		id    string
		extra []float64
		want  bool
	}{
		{"tpot_ms.p75", nil, false},
		{"tpot_ms.p75", []float64{25, 75}, true},
		{"tpot_ms.p75", []float64{25}, false},
		{"ttft_ms.p99.99", []float64{99.99}, true},
		{"ttft_ms.p99", nil, true},
		{"output_throughput", nil, true},
		{"nonsense.p75", []float64{75}, false},
	} {
		if got := RecordedWith(c.id, c.extra); got != c.want {
			t.Errorf("RecordedWith(%s, %v) = %v, want %v", c.id, c.extra, got, c.want)
		}
	}
}

// TestAccumulatorPercentiles: the extra percentiles come out of a trial
// with numpy's linear definition, the same as the reference Percentile;
// ones Stats holds, and out-of-range ones, add nothing.
func TestAccumulatorPercentiles(t *testing.T) {
	a := NewAccumulator(SLO{}, 0).Percentiles(25, 75, 99, 0, 100)
	var e2el []float64
	for i := 1; i <= 9; i++ {
		d := time.Duration(i) * 10 * time.Millisecond
		a.Add(&Request{Success: true, Sent: 0, FirstToken: d / 2, LastToken: d, Chunks: 1, OutputTokens: 1, InputTokens: 1})
		e2el = append(e2el, float64(i*10))
	}
	tr := a.Finish(time.Second, 0, DefaultLimits)
	for _, p := range []float64{25, 75} {
		id := ID{"e2el_ms", Pct(p)}.String()
		if got, want := tr.Values[id], Percentile(e2el, p); got != want {
			t.Errorf("%s = %v, want %v", id, got, want)
		}
	}
	if len(a.extra) != 2 {
		t.Errorf("extra stats %v, want p25 and p75 only", a.extra)
	}
	if _, ok := tr.Values["e2el_ms.p0"]; ok {
		t.Error("p0 recorded")
	}
}
