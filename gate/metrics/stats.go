package metrics

import (
	"math"
	"sort"

	"github.com/montanaflynn/stats"
)

// Percentile returns the p-th percentile (0..100) of sorted values the way
// numpy.percentile does by default ("linear" method): the value at virtual
// rank p/100*(n-1), linearly interpolated between its neighbours. An empty
// slice gives 0, as in vLLM's summaries.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := p / 100 * float64(n-1)
	lo := int(math.Floor(rank))
	if lo >= n-1 {
		return sorted[n-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	return lerp(sorted[lo], sorted[lo+1], rank-float64(lo))
}

// lerp interpolates like numpy's _lerp, which computes from the upper end
// when t >= 0.5 so results are monotone and exact at t = 1.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// MeanOf is the arithmetic mean; empty gives 0, as in vLLM's summaries.
// montanaflynn/stats does the arithmetic (overflow-safe scaled sums).
func MeanOf(xs []float64) float64 {
	m, err := stats.Mean(xs)
	if err != nil {
		return 0
	}
	return m
}

// StdOf is the population standard deviation (numpy's default ddof=0);
// empty gives 0.
func StdOf(xs []float64) float64 {
	sd, err := stats.StandardDeviationPopulation(xs)
	if err != nil {
		return 0
	}
	return sd
}

// MedianOf is the median of xs as numpy.median computes it: the middle
// value, or the mean of the two middle values of an even count. Empty gives
// 0. xs is not modified. It is the one median of exact values in the
// module (the reference summary, the medians over trials that reports and
// verdicts show); only the streaming accumulator, which may hold a
// histogram instead of the values, computes its own.
func MedianOf(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Summarize computes every stat of Stats over xs (which it sorts in place).
// It is the reference for what a distribution's summary means; the
// streaming accumulator is tested against it.
func Summarize(xs []float64) map[Stat]float64 {
	sort.Float64s(xs)
	out := make(map[Stat]float64, len(Stats))
	for _, st := range Stats {
		out[st] = statOf(xs, st)
	}
	return out
}

func statOf(sorted []float64, st Stat) float64 {
	switch st {
	case Mean:
		return MeanOf(sorted)
	case Std:
		return StdOf(sorted)
	case Median:
		return MedianOf(sorted)
	case Min:
		if len(sorted) == 0 {
			return 0
		}
		return sorted[0]
	case Max:
		if len(sorted) == 0 {
			return 0
		}
		return sorted[len(sorted)-1]
	}
	p, _ := st.Percentile()
	return Percentile(sorted, p)
}
