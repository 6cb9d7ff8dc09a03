package workload

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
)

// stream is a deterministic random stream over PCG (math/rand/v2). Only
// PCG.Uint64 is used: PCG is a specified algorithm with stable output,
// whereas the derived helpers of rand.Rand (Float64, NormFloat64, IntN) are
// not promised to return the same values in every Go release. A workload
// must expand to byte-identical requests with any toolchain, so the
// derivations below are our own and pinned by the golden hash test.
type stream struct {
	pcg *rand.PCG
}

// newStream returns the stream named purpose for a workload seed. Distinct
// purposes ("lengths", "tokens", "arrivals", "warmup", ...) are independent
// PCG streams, so changing how one part is generated never shifts another.
func newStream(seed uint64, purpose string) *stream {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return &stream{pcg: rand.NewPCG(seed, h.Sum64())}
}

// float64 returns a uniform value in [0, 1) with 53 random bits.
func (s *stream) float64() float64 {
	return float64(s.pcg.Uint64()>>11) * (1.0 / (1 << 53))
}

// intRange returns a uniform integer in [lo, hi] (inclusive) with
// Lemire's multiply-shift method: one multiplication instead of a
// division per draw, and rejection of the few values that would favour
// some results.
func (s *stream) intRange(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	n := uint64(hi - lo + 1)
	h, l := bits.Mul64(s.pcg.Uint64(), n)
	if l < n {
		threshold := -n % n
		for l < threshold {
			h, l = bits.Mul64(s.pcg.Uint64(), n)
		}
	}
	return lo + int(h)
}

// normal returns a standard normal variate (Box-Muller, one value per pair
// of uniforms: simpler to pin than caching the second value).
func (s *stream) normal() float64 {
	u1 := 1 - s.float64() // (0, 1]: log is finite
	u2 := s.float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// gamma returns a gamma variate with the given shape and scale using
// Marsaglia and Tsang's method ("A simple method for generating gamma
// variables", 2000). Shapes below 1 use the boost gamma(a) =
// gamma(a+1) * U^(1/a).
func (s *stream) gamma(shape, scale float64) float64 {
	if shape < 1 {
		u := 1 - s.float64()
		return s.gamma(shape+1, scale) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := s.normal()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := s.float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v * scale
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * scale
		}
	}
}

// shuffle permutes n elements with Fisher-Yates.
func (s *stream) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, s.intRange(0, i))
	}
}
