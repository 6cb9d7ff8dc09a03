package metrics

import (
	"strconv"
	"strings"
)

// Stat is a summary statistic of a distribution: mean, median, std, min,
// max or a percentile. Metric ids spell it as vLLM's JSON keys do ("p99",
// "p99.9"); ParseStat is the one place that reads the spelling, so every
// reader agrees on which strings are statistics.
type Stat struct {
	name string  // "mean", "median", "std", "min", "max"; "" for a percentile
	p    float64 // the percentile, 0..100, when name is ""
}

// The named statistics.
var (
	Mean   = Stat{name: "mean"}
	Median = Stat{name: "median"}
	Std    = Stat{name: "std"}
	Min    = Stat{name: "min"}
	Max    = Stat{name: "max"}
)

// Pct is the p-th percentile (0..100).
func Pct(p float64) Stat { return Stat{p: p} }

// ParseStat reads a statistic name: mean, median, std, min, max, or "p"
// and a percentile in 0..100 in its shortest decimal form (p50, p99.9;
// not p99.90 or p050, which would give one statistic two ids).
func ParseStat(s string) (Stat, bool) {
	switch s {
	case "mean", "median", "std", "min", "max":
		return Stat{name: s}, true
	}
	num, ok := strings.CutPrefix(s, "p")
	if !ok {
		return Stat{}, false
	}
	p, err := strconv.ParseFloat(num, 64)
	if err != nil || !(p >= 0 && p <= 100) {
		return Stat{}, false
	}
	st := Pct(p)
	return st, st.String() == s
}

// String writes the statistic as metric ids spell it: "mean", "p99.9".
func (s Stat) String() string {
	if s.name != "" {
		return s.name
	}
	return "p" + strconv.FormatFloat(s.p, 'f', -1, 64)
}

// Percentile returns p for a percentile statistic; ok is false for the
// named ones (median included: p50 and median are two ids of one value,
// kept apart because files carry either).
func (s Stat) Percentile() (p float64, ok bool) { return s.p, s.name == "" }

// Tail reports whether the statistic watches the tail of the distribution:
// p90 and above, or the maximum. Tails are noisier, so they get a wider
// default tolerance, and only a tail statistic stands in for another.
func (s Stat) Tail() bool {
	p, ok := s.Percentile()
	return s == Max || ok && p >= TailFloor
}

// TailFloor is the lowest percentile that counts as a tail statistic.
const TailFloor = 90

// ID is a parsed distribution metric id: the distribution (Base, e.g.
// "ttft_ms") and the statistic ("p99"). Scalar ids ("output_throughput")
// have no ID form.
type ID struct {
	Base string
	Stat Stat
}

// String writes the id: "ttft_ms.p99".
func (id ID) String() string { return id.Base + "." + id.Stat.String() }

// ParseID reads "<distribution>.<stat>" for a distribution of
// Distributions; ok is false for scalar ids, offline benchmark ids and
// anything else.
func ParseID(s string) (ID, bool) {
	base, stat, found := strings.Cut(s, ".")
	if !found {
		return ID{}, false
	}
	if _, known := distByName[base]; !known {
		return ID{}, false
	}
	st, ok := ParseStat(stat)
	if !ok {
		return ID{}, false
	}
	return ID{Base: base, Stat: st}, true
}
