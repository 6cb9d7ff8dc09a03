package metrics

import (
	"math"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every latency histogram, so histograms of
// different trials and runs merge: 1 us to 1 h, 3 significant digits.
const (
	HistLowestUS  = 1
	HistHighestUS = 3_600_000_000
	HistDigits    = 3
)

// NewHistogram returns an empty latency histogram (values in microseconds).
func NewHistogram() *hdr.Histogram { return hdr.New(HistLowestUS, HistHighestUS, HistDigits) }

// DefaultExactLimit is how many samples (weight included) one distribution
// keeps exactly per trial: 2M samples (e.g. 2,000 requests of 1,000
// tokens) are 8 MiB of float32, so a trial's memory is bounded whatever
// its size. Past it, percentiles come from the histogram (0.1 % relative
// error) and the trial carries a warning; mean, std, min and max stay exact.
const DefaultExactLimit = 2 << 20

// dist accumulates one latency distribution of one trial. Values are kept
// exactly (float32 milliseconds: 7 significant digits, far finer than any
// clock involved) so percentiles match numpy's definition, and also go to
// an HdrHistogram that is stored in the result and merges across trials.
type dist struct {
	vals    []float32
	weights []uint32 // nil while every weight is 1
	n       float64  // total weight
	mean    float64  // running weighted mean and M2 (West's algorithm),
	m2      float64  // exact enough for std when the values were dropped
	min     float64
	max     float64
	hist    *hdr.Histogram // nil: no histogram for this distribution
	limit   int
	dropped bool // values past limit were not kept
}

func newDist(withHist bool, limit int) *dist {
	d := &dist{limit: limit, min: math.Inf(1), max: math.Inf(-1)}
	if withHist {
		d.hist = NewHistogram()
	}
	return d
}

// add records value v (ms) w times.
func (d *dist) add(v float64, w int) {
	if w <= 0 {
		return
	}
	// A negative latency only comes from broken timestamps, which make the
	// trial invalid (see check); clamping keeps the file's values >= 0.
	v = math.Max(v, 0)
	fw := float64(w)
	d.n += fw
	delta := v - d.mean
	d.mean += delta * fw / d.n
	d.m2 += fw * delta * (v - d.mean)
	d.min = math.Min(d.min, v)
	d.max = math.Max(d.max, v)
	if d.hist != nil {
		_ = d.hist.RecordValues(toMicros(v), int64(w)) // clamped: cannot fail
	}
	if d.dropped || int(d.n) > d.limit {
		d.dropped = true
		d.vals, d.weights = nil, nil
		return
	}
	if w != 1 && d.weights == nil {
		d.weights = make([]uint32, len(d.vals), cap(d.vals))
		for i := range d.weights {
			d.weights[i] = 1
		}
	}
	d.vals = append(d.vals, float32(v))
	if d.weights != nil {
		d.weights = append(d.weights, uint32(w))
	}
}

// toMicros converts ms to whole microseconds inside the histogram's range.
func toMicros(ms float64) int64 {
	us := math.Round(ms * 1000)
	switch {
	case !(us >= 0): // negative or NaN
		return 0
	case us > HistHighestUS:
		return HistHighestUS
	}
	return int64(us)
}

// summary returns every stat of Stats and of extra (further percentiles).
// It sorts the kept values in place.
func (d *dist) summary(extra ...Stat) map[Stat]float64 {
	stats := Stats
	if len(extra) > 0 {
		stats = append(append([]Stat(nil), Stats...), extra...)
	}
	out := make(map[Stat]float64, len(stats))
	if d.n == 0 {
		for _, st := range stats {
			out[st] = 0
		}
		return out
	}
	var pct func(p float64) float64
	if d.dropped {
		pct = func(p float64) float64 { return float64(d.hist.ValueAtPercentile(p)) / 1000 }
	} else {
		d.sort()
		pct = d.percentile
	}
	for _, st := range stats {
		switch st {
		case Mean:
			out[st] = d.mean
		case Std:
			out[st] = math.Sqrt(math.Max(0, d.m2/d.n))
		case Min:
			out[st] = d.min
		case Max:
			out[st] = d.max
		case Median:
			out[st] = pct(50)
		default:
			p, _ := st.Percentile()
			out[st] = pct(p)
		}
	}
	if !d.dropped {
		// Recompute mean and std exactly from the kept values (two-pass),
		// as numpy does, rather than from the running moments.
		out[Mean], out[Std] = d.exactMoments()
		out[Min], out[Max] = float64(d.vals[0]), float64(d.vals[len(d.vals)-1])
	}
	return out
}

func (d *dist) weight(i int) float64 {
	if d.weights == nil {
		return 1
	}
	return float64(d.weights[i])
}

func (d *dist) exactMoments() (mean, std float64) {
	s := 0.0
	for i, v := range d.vals {
		s += float64(v) * d.weight(i)
	}
	mean = s / d.n
	ss := 0.0
	for i, v := range d.vals {
		x := float64(v) - mean
		ss += x * x * d.weight(i)
	}
	return mean, math.Sqrt(ss / d.n)
}

func (d *dist) sort() {
	if d.weights == nil {
		sort.Slice(d.vals, func(i, j int) bool { return d.vals[i] < d.vals[j] })
		return
	}
	sort.Sort(byValue{d.vals, d.weights})
}

type byValue struct {
	v []float32
	w []uint32
}

func (b byValue) Len() int           { return len(b.v) }
func (b byValue) Less(i, j int) bool { return b.v[i] < b.v[j] }
func (b byValue) Swap(i, j int) {
	b.v[i], b.v[j] = b.v[j], b.v[i]
	b.w[i], b.w[j] = b.w[j], b.w[i]
}

// percentile is numpy's linear percentile over the sorted values, each
// repeated by its weight (without materialising the repetition).
func (d *dist) percentile(p float64) float64 {
	rank := p / 100 * (d.n - 1)
	lo := math.Floor(rank)
	a := d.at(lo)
	if lo >= d.n-1 {
		return a
	}
	return lerp(a, d.at(lo+1), rank-lo)
}

// at returns the element at index k of the expanded sorted sequence.
func (d *dist) at(k float64) float64 {
	if d.weights == nil {
		return float64(d.vals[int(k)])
	}
	c := 0.0
	for i, w := range d.weights {
		c += float64(w)
		if k < c {
			return float64(d.vals[i])
		}
	}
	return float64(d.vals[len(d.vals)-1])
}
