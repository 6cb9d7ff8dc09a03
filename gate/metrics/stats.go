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

// Mean is the arithmetic mean; empty gives 0, as in vLLM's summaries.
// montanaflynn/stats does the arithmetic (overflow-safe scaled sums).
func Mean(xs []float64) float64 {
	m, err := stats.Mean(xs)
	if err != nil {
		return 0
	}
	return m
}

// Std is the population standard deviation (numpy's default ddof=0);
// empty gives 0.
func Std(xs []float64) float64 {
	sd, err := stats.StandardDeviationPopulation(xs)
	if err != nil {
		return 0
	}
	return sd
}

// Summarize computes every stat of Stats over xs (which it sorts in place),
// keyed by stat name. It is the reference for what a distribution's summary
// means; the streaming accumulator is tested against it.
func Summarize(xs []float64) map[string]float64 {
	sort.Float64s(xs)
	out := make(map[string]float64, len(Stats))
	for _, st := range Stats {
		out[st] = statOf(xs, st)
	}
	return out
}

func statOf(sorted []float64, stat string) float64 {
	switch stat {
	case "mean":
		return Mean(sorted)
	case "std":
		return Std(sorted)
	case "median":
		return Percentile(sorted, 50)
	case "min":
		if len(sorted) == 0 {
			return 0
		}
		return sorted[0]
	case "max":
		if len(sorted) == 0 {
			return 0
		}
		return sorted[len(sorted)-1]
	}
	return Percentile(sorted, percentOf(stat))
}

// percentOf parses "p99.9" into 99.9. Stats are fixed at compile time, so
// a malformed one is a programming error.
func percentOf(stat string) float64 {
	for _, p := range statPercents {
		if PercentileStat(p) == stat {
			return p
		}
	}
	panic("metrics: not a percentile stat: " + stat)
}

var statPercents = []float64{50, 90, 95, 99, 99.9}
