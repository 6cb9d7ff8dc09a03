package metrics

import (
	"fmt"
	"math"
	"time"
)

// peakRate computes max_output_tokens_per_s exactly as `vllm bench serve`
// does (calculate_metrics in vllm/benchmarks/serve.py): every token message
// of a successful request is counted in the 1-second bucket
// int(arrival - min_start), where min_start is the earliest send time of
// any successful request, and the peak is the fullest bucket.
//
// The origin is only known once every request has finished (a request sent
// first may finish last), so the arrival times are kept, 4 bytes per token
// message, as microseconds after the trial's anchor. Past the exact-sample
// limit (or an arrival after 71 minutes, the range of a uint32 of
// microseconds) they are dropped and the peak falls back to buckets counted
// from the anchor, with a warning: memory stays bounded whatever the trial.
type peakRate struct {
	limit   int
	times   []uint32      // arrivals, us after the anchor
	dropped bool          // times were given up; use anchored
	origin  time.Duration // earliest Sent of a successful request
	seen    bool          // origin is set
	// anchored counts token messages per 1-second bucket from the anchor:
	// the fallback, and cheap enough to keep always.
	anchored []int
}

// add records the token messages of one successful request.
func (p *peakRate) add(r *Request) {
	if !p.seen || r.Sent < p.origin {
		p.origin, p.seen = r.Sent, true
	}
	// Arrival times follow vLLM's reconstruction: the first token's time
	// plus the chunk gaps, accumulated.
	t := ms(r.FirstToken)
	p.at(t)
	for _, g := range r.Gaps {
		t += float64(g)
		p.at(t)
	}
}

func (p *peakRate) at(tms float64) {
	if tms < 0 {
		return
	}
	if i := int(tms / 1000); i < 1<<24 { // 194 days: past that, not a trial
		for len(p.anchored) <= i {
			p.anchored = append(p.anchored, 0)
		}
		p.anchored[i]++
	}
	if p.dropped {
		return
	}
	us := math.Round(tms * 1000)
	if us > math.MaxUint32 || len(p.times) >= p.limit {
		p.dropped, p.times = true, nil
		return
	}
	p.times = append(p.times, uint32(us))
}

// peak returns the fullest bucket and, when the arrivals had to be
// dropped, a warning saying the buckets start at the anchor instead.
func (p *peakRate) peak() (float64, string) {
	if p.dropped {
		return float64(maxOf(p.anchored)), fmt.Sprintf("max_output_tokens_per_s: more than %d token messages (or a trial over 71 minutes); 1-second bins counted from the trial start instead of the first successful send", p.limit)
	}
	if !p.seen || len(p.times) == 0 {
		return 0, ""
	}
	origin := int64(math.Round(float64(p.origin) / float64(time.Microsecond)))
	var bins []int
	for _, us := range p.times {
		// Go's integer division truncates toward zero like Python's int():
		// an arrival a hair before the origin (rounding) lands in bucket 0.
		b := int((int64(us) - origin) / 1e6)
		if b < 0 {
			continue
		}
		for len(bins) <= b {
			bins = append(bins, 0)
		}
		bins[b]++
	}
	return float64(maxOf(bins)), ""
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
