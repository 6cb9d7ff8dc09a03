package verdict

import (
	"math"
	"testing"
)

// Reference values from standard tables, the tails checked by numerical
// integration of the densities.
func TestTDistribution(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"pt(2,5)", tCDF(2, 5), 0.9490303, 1e-6},
		{"pt(-1,3)", tCDF(-1, 3), 0.1955011, 1e-6},
		{"pt(0,7)", tCDF(0, 7), 0.5, 1e-12},
		{"pt(1.96,normal)", tCDF(1.96, 0), 0.9750021, 1e-6},
		{"qt(0.975,8)", tQuantile(0.975, 8), 2.306004, 1e-5},
		{"qt(0.95,80)", tQuantile(0.95, 80), 1.664125, 1e-5},
		{"qt(0.999,10)", tQuantile(0.999, 10), 4.143700, 1e-4},
		{"qt(0.05,4)", tQuantile(0.05, 4), -2.131847, 1e-5},
		{"qt(0.8,normal)", tQuantile(0.8, 0), 0.8416212, 1e-6},
		{"1-pt(6,80)", tSurvival(6, 80), 2.7308e-8, 1e-11},
		{"1-pf(3,4,20)", fSurvival(3, 4, 20), 0.043201, 1e-5},
		{"1-pf(1,8,72)", fSurvival(1, 8, 72), 0.443719, 1e-5},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.8g, want %.8g", c.name, c.got, c.want)
		}
	}
}

func TestTQuantileRoundTrip(t *testing.T) {
	for _, df := range []float64{1, 2, 5, 30, 300, 0} {
		for _, p := range []float64{1e-6, 0.001, 0.1, 0.5, 0.9, 0.9999} {
			q := tQuantile(p, df)
			if got := tCDF(q, df); math.Abs(got-p) > 1e-6*math.Max(p, 1e-3) {
				t.Errorf("df %v: tCDF(tQuantile(%v)) = %v", df, p, got)
			}
		}
	}
}

func TestHolm(t *testing.T) {
	got := holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("holm[%d] = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
}

// tCDF is the tests' oracle for tQuantile and tSurvival (the verdict itself
// needs only the survival function).
// P(T <= t) for Student's t with df degrees of freedom; df <= 0 or
// +Inf means the standard normal.
func tCDF(t, df float64) float64 {
	if df <= 0 || math.IsInf(df, 1) || df > 1e7 {
		return normCDF(t)
	}
	if math.IsInf(t, 1) {
		return 1
	}
	if math.IsInf(t, -1) {
		return 0
	}
	x := df / (df + t*t)
	tail := 0.5 * betaReg(x, df/2, 0.5) // P(T > |t|)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}
