package verdict

import "math"

// The test scale is the one transform every estimate of perfgate is made
// on: natural logs of relative metrics (so a difference is a log ratio and
// a variance of 0.02² a CV of about 2 %), the values themselves for ratio
// metrics (Absolute), which are compared by difference. The verdict, the
// calibration fit (package noise), the history's session summaries
// (package baseline) and the paired A/B cells (package ab) all take their
// values through TestValue or ToTestScale, so no two of them can disagree
// on what a level is.

// TestValue puts one value of metric id on the test scale. ok is false for
// a relative metric's value that is not positive, whose log does not
// exist: such a metric cannot be compared as a ratio.
func TestValue(id string, v float64) (float64, bool) {
	return testValue(v, Absolute(id))
}

func testValue(v float64, absolute bool) (float64, bool) {
	if absolute {
		return v, true
	}
	if !(v > 0) {
		return 0, false
	}
	return math.Log(v), true
}

// ToTestScale puts values on the test scale (see TestValue); ok is false,
// and out nil, when some relative value is not positive.
func ToTestScale(values []float64, absolute bool) (out []float64, ok bool) {
	out = make([]float64, len(values))
	for i, v := range values {
		x, ok := testValue(v, absolute)
		if !ok {
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// SampleSD is the sample standard deviation of x (n-1 in the
// denominator), 0 for fewer than 2 values: MeanVar's, the one sample
// spread every package uses.
func SampleSD(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	_, v := MeanVar(x)
	return math.Sqrt(v)
}
