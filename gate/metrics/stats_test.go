package metrics

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The expected values are what numpy prints for the same inputs
// (np.percentile default method "linear", np.std ddof=0).
func TestPercentileNumpy(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 10}
	tests := []struct {
		p, want float64
	}{
		{0, 1}, {50, 3}, {90, 7.6}, {95, 8.8}, {99, 9.76}, {99.9, 9.976}, {100, 10}, {25, 2},
	}
	for _, tc := range tests {
		if got := Percentile(xs, tc.p); !near(got, tc.want) {
			t.Errorf("Percentile(%v, %v) = %v, want %v", xs, tc.p, got, tc.want)
		}
	}
	if got := Percentile(nil, 99); got != 0 {
		t.Errorf("empty percentile = %v, want 0", got)
	}
	if got := Percentile([]float64{7}, 99); got != 7 {
		t.Errorf("single percentile = %v, want 7", got)
	}
}

func TestSummarize(t *testing.T) {
	got := Summarize([]float64{4, 1, 3, 2})
	want := map[string]float64{
		"mean": 2.5, "median": 2.5, "p50": 2.5, "std": math.Sqrt(1.25),
		"p90": 3.7, "p95": 3.85, "p99": 3.97, "p99.9": 3.997, "min": 1, "max": 4,
	}
	for k, v := range want {
		st, ok := ParseStat(k)
		if !ok {
			t.Fatalf("ParseStat(%q) failed", k)
		}
		if !near(got[st], v) {
			t.Errorf("%s = %v, want %v", k, got[st], v)
		}
	}
	for k, v := range Summarize(nil) {
		if v != 0 {
			t.Errorf("empty %s = %v, want 0", k, v)
		}
	}
}

// TestMedianOf pins numpy.median: the middle value, or the mean of the two
// middle values, of unsorted input that it leaves alone.
func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{2, 1}, 1.5},
	} {
		in := append([]float64(nil), c.xs...)
		if got := MedianOf(in); got != c.want {
			t.Errorf("MedianOf(%v) = %v, want %v", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Errorf("MedianOf modified its input: %v", in)
			}
		}
	}
}
