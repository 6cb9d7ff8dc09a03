package workload

import (
	"math"
	"sort"
	"testing"
	"time"
)

// TestPoissonArrivals checks the vLLM load shape at rate 2 with 500
// requests: the last arrival is exactly 250 s and the inter-arrival times
// look exponential with mean 1/rate (mean, variance, Kolmogorov-Smirnov).
func TestPoissonArrivals(t *testing.T) {
	const n, rate = 500, 2.0
	at := arrivals(n, rate, 1, newStream(42, "arrivals"))
	if at[n-1] != 250*time.Second {
		t.Fatalf("last arrival = %v, want exactly 250s", at[n-1])
	}
	gaps := make([]float64, n)
	prev := time.Duration(0)
	for i, a := range at {
		if a < prev {
			t.Fatalf("arrival %d (%v) before arrival %d (%v)", i, a, i-1, prev)
		}
		gaps[i] = (a - prev).Seconds()
		prev = a
	}
	mean, variance := meanVar(gaps)
	// The rescaling makes the mean exactly N/rate / N.
	if math.Abs(mean-0.5) > 1e-9 {
		t.Errorf("mean gap = %v, want 0.5", mean)
	}
	// Exponential(mean 0.5): variance 0.25; the sample variance of 500
	// draws has sd sqrt(8/500)*0.25 = 0.032. Allow 4 sd.
	if math.Abs(variance-0.25) > 0.126 {
		t.Errorf("gap variance = %v, want 0.25 +- 0.126", variance)
	}
	if d := ksExponential(gaps, 1/mean); d > 1.63/math.Sqrt(n) {
		t.Errorf("KS distance to exponential = %.4f, above the 1%% critical value %.4f", d, 1.63/math.Sqrt(n))
	}
}

func meanVar(x []float64) (float64, float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, ss / float64(len(x))
}

// ksExponential returns the Kolmogorov-Smirnov distance between the
// sample and an exponential distribution with rate lambda.
func ksExponential(x []float64, lambda float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, v := range s {
		cdf := 1 - math.Exp(-lambda*v)
		d = math.Max(d, math.Max(math.Abs(float64(i+1)/n-cdf), math.Abs(cdf-float64(i)/n)))
	}
	return d
}

func TestArrivalShapes(t *testing.T) {
	inf := math.Inf(1)
	t.Run("rate inf sends everything at 0", func(t *testing.T) {
		for i, a := range arrivals(100, inf, 1, newStream(1, "arrivals")) {
			if a != 0 {
				t.Fatalf("arrival %d = %v, want 0", i, a)
			}
		}
	})
	t.Run("burstiness inf is constant spacing", func(t *testing.T) {
		at := arrivals(10, 4, inf, newStream(1, "arrivals"))
		for i, a := range at {
			if want := time.Duration(i+1) * 250 * time.Millisecond; a != want {
				t.Errorf("arrival %d = %v, want %v", i, a, want)
			}
		}
	})
	t.Run("one request arrives at 1/rate", func(t *testing.T) {
		if at := arrivals(1, 0.5, 1, newStream(1, "arrivals")); at[0] != 2*time.Second {
			t.Errorf("arrival = %v, want 2s", at[0])
		}
	})
}

// TestGamma checks the Marsaglia-Tsang sampler's mean (k*theta) and
// variance (k*theta^2) for shapes below, at and above 1.
func TestGamma(t *testing.T) {
	for _, shape := range []float64{0.3, 1, 4.5} {
		s := newStream(7, "gamma")
		const n = 40000
		x := make([]float64, n)
		for i := range x {
			x[i] = s.gamma(shape, 2)
		}
		mean, variance := meanVar(x)
		wantMean, wantVar := shape*2, shape*4
		// sd of the sample mean is sqrt(var/n); allow 5 sd, and 5 % on the variance.
		if math.Abs(mean-wantMean) > 5*math.Sqrt(wantVar/n) {
			t.Errorf("shape %v: mean %v, want %v", shape, mean, wantMean)
		}
		if math.Abs(variance-wantVar)/wantVar > 0.08 {
			t.Errorf("shape %v: variance %v, want %v", shape, variance, wantVar)
		}
	}
}

func TestIntRangeUniform(t *testing.T) {
	s := newStream(3, "int")
	counts := make([]int, 5)
	for i := 0; i < 50000; i++ {
		v := s.intRange(10, 14)
		if v < 10 || v > 14 {
			t.Fatalf("intRange(10, 14) = %d", v)
		}
		counts[v-10]++
	}
	for i, c := range counts { // expected 10000 each, sd ~ 89
		if c < 9550 || c > 10450 {
			t.Errorf("value %d drawn %d times of 50000, want ~10000", i+10, c)
		}
	}
}
