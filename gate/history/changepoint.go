package history

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Detector finds step changes in a series of session levels by binary
// segmentation with a two-sample t statistic whose significance is judged
// by a permutation test:
//
//  1. In a segment, every split leaving at least MinSize points on either
//     side is scored by the pooled two-sample t statistic of the points
//     before it against those after it; the best split has the largest |t|.
//  2. The maximum |t| over all splits is not t-distributed (it is the
//     largest of n-1 correlated statistics), so its p-value comes from
//     permutations: the segment's points are shuffled Permutations times
//     and the maximum recomputed each time. Under "no change" the sessions
//     are exchangeable and the test's false-alarm rate is exactly Alpha,
//     whatever the noise's distribution.
//  3. A significant split is kept and both halves are searched again.
//
// Why not E-divisive means (Matteson & James 2014, as Apache Otava and
// MongoDB use)? It tests for any change of distribution with an energy
// statistic, so a night with one wild session or a change of spread alone
// is a "change point"; the gate cares about steps of the level, which the
// t statistic targets, with more power per session for the same
// permutation-exact false-alarm control. docs/baselines.md has the
// measured rates.
type Detector struct {
	// Alpha is the permutation test's level for each split.
	Alpha float64
	// Permutations is the number of shuffles per test (999: p-values in
	// steps of 0.001).
	Permutations int
	// MinSize is the fewest sessions on either side of a step; a step in
	// the last MinSize-1 sessions is not yet visible.
	MinSize int
	// Seed seeds the shuffles, so the same series gives the same steps.
	Seed uint64
}

// DefaultDetector is the documented detector: alpha 0.01, 999
// permutations, at least 3 sessions on either side.
func DefaultDetector() Detector {
	return Detector{Alpha: 0.01, Permutations: 999, MinSize: 3, Seed: 1}
}

// Split is a detected change point: At is the index (into the series) of
// the first point after the step; P the permutation p-value that kept it.
type Split struct {
	At int
	P  float64
}

// Detect returns the change points of x, sorted by position.
func (d Detector) Detect(x []float64) []Split {
	if d.MinSize < 1 {
		d.MinSize = 1
	}
	if d.Permutations < 1 {
		d.Permutations = 1
	}
	rng := rand.New(rand.NewPCG(d.Seed, uint64(len(x))))
	var out []Split
	d.segment(x, 0, len(x), rng, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

func (d Detector) segment(x []float64, lo, hi int, rng *rand.Rand, out *[]Split) {
	if hi-lo < 2*d.MinSize {
		return
	}
	seg := x[lo:hi]
	k, t := maxT(seg, d.MinSize)
	if k < 0 || t == 0 {
		return
	}
	// Early stop: once more shuffles reach t than a significant result
	// allows, the rest cannot make it significant. A/A segments stop
	// after a few dozen shuffles, which keeps long histories cheap.
	limit := int(math.Ceil(d.Alpha*float64(d.Permutations+1))) - 1
	perm := append([]float64(nil), seg...)
	count := 0
	for r := 0; r < d.Permutations; r++ {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, tp := maxT(perm, d.MinSize); tp >= t {
			count++
			if count > limit {
				return
			}
		}
	}
	p := float64(1+count) / float64(d.Permutations+1)
	if p > d.Alpha {
		return
	}
	*out = append(*out, Split{At: lo + k, P: p})
	d.segment(x, lo, lo+k, rng, out)
	d.segment(x, lo+k, hi, rng, out)
}

// maxT returns the split k (points [0,k) against [k,n)) with the largest
// pooled two-sample |t|, among splits leaving at least m points on either
// side, and that |t|; k is -1 when there is no such split. Values are
// centred first, so prefix sums of squares lose no precision on log
// values near each other.
func maxT(x []float64, m int) (int, float64) {
	n := len(x)
	if n < 2*m || n < 3 {
		return -1, 0
	}
	var mu float64
	for _, v := range x {
		mu += v
	}
	mu /= float64(n)
	s := make([]float64, n+1)
	q := make([]float64, n+1)
	for i, v := range x {
		c := v - mu
		s[i+1] = s[i] + c
		q[i+1] = q[i] + c*c
	}
	best, bestT := -1, 0.0
	for k := m; k <= n-m; k++ {
		nl, nr := float64(k), float64(n-k)
		ml, mr := s[k]/nl, (s[n]-s[k])/nr
		ss := (q[k] - nl*ml*ml) + (q[n] - q[k] - nr*mr*mr)
		var t float64
		diff := math.Abs(ml - mr)
		if ss <= 1e-300 {
			if diff > 1e-15 {
				t = math.Inf(1)
			}
		} else {
			t = diff / math.Sqrt(ss/float64(n-2)*(1/nl+1/nr))
		}
		if t > bestT {
			best, bestT = k, t
		}
	}
	return best, bestT
}
