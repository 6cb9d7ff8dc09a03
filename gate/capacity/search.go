// Package capacity finds the largest load at which a server still meets
// its SLO: the request rate (or concurrency) at which the share of
// requests that succeed and meet every SLO threshold (the goodput share)
// falls below a target such as 95 %.
//
// The search brackets the capacity and narrows the bracket by bisection.
// An unlimited-rate probe (vLLM's `--request-rate inf`) measures the
// saturation throughput, which is the first upper bracket of a rate
// search: a server cannot keep its SLO at a rate it cannot even serve, so
// the capacity is almost always below it. When a probe at saturation
// still passes (an SLO looser than the backlog a short probe builds) the
// bracket grows by doubling until a probe fails. Every probe is recorded
// with its goodput share and that share's binomial (Wilson) interval, from
// which the capacity gets an interval of its own.
//
// The package does no I/O: a probe is whatever the Prober does (in the
// CLI, one short measured trial of the load generator, warmups first).
package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/result"
)

// Defaults of a capacity workload's search settings (docs/workloads.md).
const (
	// DefaultShare is the goodput share the SLO must hold for: 95 % of
	// requests, the share the studies and vLLM's goodput examples use.
	DefaultShare = 0.95
	// DefaultMaxProbes bounds the probes of one search, the saturation
	// probe included.
	DefaultMaxProbes = 10
	// DefaultResolution stops the search once the bracket is within 2 %
	// of its upper end: finer than the run-to-run noise of a short probe.
	DefaultResolution = 0.02
)

// Measurement is what one probe measured.
type Measurement struct {
	// Good of Total requests succeeded and met every SLO threshold.
	Good, Total int
	// Throughput is completed requests per second.
	Throughput float64
	// Latency holds latency percentiles by metric id, in ms.
	Latency map[string]float64
	// Invalid is non-empty when the probe's trial was invalid (too many
	// failures, a saturated client); the probe still counts, since
	// failures at overload are the server's, and the reason is recorded.
	Invalid string
}

// Prober runs one probe: a short measured run at load, a rate in req/s or
// a concurrency, or an unlimited run (no rate limit, no concurrency cap)
// when load is +Inf.
type Prober interface {
	Probe(ctx context.Context, load float64) (Measurement, error)
}

// ProberFunc adapts a function to Prober.
type ProberFunc func(ctx context.Context, load float64) (Measurement, error)

// Probe calls f.
func (f ProberFunc) Probe(ctx context.Context, load float64) (Measurement, error) {
	return f(ctx, load)
}

// Spec are the settings of one search; see result.CapacitySpec. Zero
// fields take the defaults.
type Spec = result.CapacitySpec

// withDefaults fills zero fields and checks the rest.
func withDefaults(s Spec) (Spec, error) {
	if s.GoodputShare == 0 {
		s.GoodputShare = DefaultShare
	}
	if s.Over == "" {
		s.Over = result.OverRate
	}
	if s.MaxProbes == 0 {
		s.MaxProbes = DefaultMaxProbes
	}
	if s.Resolution == 0 {
		s.Resolution = DefaultResolution
	}
	switch {
	case !(s.GoodputShare > 0 && s.GoodputShare <= 1):
		return s, fmt.Errorf("goodput share %v must be in (0, 1]", s.GoodputShare)
	case s.Over != result.OverRate && s.Over != result.OverConcurrency:
		return s, fmt.Errorf("over must be %s or %s, got %q", result.OverRate, result.OverConcurrency, s.Over)
	case s.MaxProbes < 2:
		return s, fmt.Errorf("max probes %d: a search needs the saturation probe and at least one more", s.MaxProbes)
	case !(s.Resolution > 0 && s.Resolution < 1):
		return s, fmt.Errorf("resolution %v must be in (0, 1)", s.Resolution)
	case s.Over == result.OverConcurrency && s.MaxConcurrency < 1:
		return s, errors.New("a concurrency search needs max concurrency >= 1")
	}
	return s, nil
}

// search is the state of one search.
type search struct {
	ctx    context.Context
	p      Prober
	s      Spec
	out    *result.Capacity
	lo, hi float64 // lo passes (0: unprobed), hi fails (0: none yet)
	loP    *result.Probe
	hiP    *result.Probe
}

// Search runs one capacity search. Errors are the prober's (the tool or
// the server failed outright, the context ended); a server that never
// meets the SLO is a result, capacity 0 with a warning.
func Search(ctx context.Context, p Prober, spec Spec) (*result.Capacity, error) {
	s, err := withDefaults(spec)
	if err != nil {
		return nil, fmt.Errorf("capacity: %w", err)
	}
	st := &search{ctx: ctx, p: p, s: s, out: &result.Capacity{Over: s.Over, Target: s.GoodputShare}}
	sat, err := st.probe(math.Inf(1))
	if err != nil {
		return nil, err
	}
	st.out.Saturation = sat.Throughput
	if s.Over == result.OverConcurrency {
		err = st.concurrency()
	} else {
		err = st.rate(sat)
	}
	if err != nil {
		return nil, err
	}
	st.finish()
	return st.out, nil
}

// rate brackets a rate search: the saturation throughput is the first
// upper end, doubled while probes there still pass.
func (st *search) rate(sat *result.Probe) error {
	if !(sat.Throughput > 0) {
		st.out.Warnings = append(st.out.Warnings, "the saturation probe completed no request: nothing to search")
		return nil
	}
	x := sat.Throughput
	for len(st.out.Probes) < st.s.MaxProbes {
		pr, err := st.probe(x)
		if err != nil {
			return err
		}
		if !st.place(x, pr) {
			break
		}
		x *= 2
	}
	return st.bisect(false)
}

// concurrency brackets a concurrency search by [0, MaxConcurrency].
func (st *search) concurrency() error {
	top := float64(st.s.MaxConcurrency)
	pr, err := st.probe(top)
	if err != nil {
		return err
	}
	if st.place(top, pr) {
		st.out.Warnings = append(st.out.Warnings, fmt.Sprintf("the SLO holds at the largest concurrency searched (%d): the capacity is at least that", st.s.MaxConcurrency))
		return nil
	}
	return st.bisect(true)
}

// place records the probe at x as the new lower end (it passed) or upper
// end (it failed) of the bracket, and reports whether it passed.
func (st *search) place(x float64, pr *result.Probe) bool {
	if pr.Pass {
		st.lo, st.loP = x, pr
		return true
	}
	st.hi, st.hiP = x, pr
	return false
}

// bisect halves the bracket until it is narrower than the resolution or
// the probes run out. A concurrency search probes whole numbers and ends
// when the ends are adjacent. Bisection rather than a secant: a goodput
// curve is flat at 100 % up to the knee and falls beyond it, so the line
// through a passing probe (share 1) and a failing one crosses the target
// just above the passing end, and a secant would creep towards the knee
// in small steps where bisection halves the bracket every probe.
func (st *search) bisect(whole bool) error {
	for st.hi > 0 && len(st.out.Probes) < st.s.MaxProbes {
		if whole && st.hi-st.lo <= 1 || !whole && (st.hi-st.lo) <= st.s.Resolution*st.hi {
			break
		}
		x := (st.lo + st.hi) / 2
		if whole {
			x = math.Floor(x)
		}
		pr, err := st.probe(x)
		if err != nil {
			return err
		}
		st.place(x, pr)
	}
	return nil
}

// probe runs and records one probe.
func (st *search) probe(load float64) (*result.Probe, error) {
	if err := st.ctx.Err(); err != nil {
		return nil, fmt.Errorf("capacity search: %w", err)
	}
	m, err := st.p.Probe(st.ctx, load)
	if err != nil {
		what := fmt.Sprintf("%s %s", st.s.Over, formatLoad(load))
		return nil, fmt.Errorf("capacity probe at %s: %w", what, err)
	}
	pr := result.Probe{Load: load, Good: m.Good, Total: m.Total, Throughput: m.Throughput, Latency: m.Latency, Invalid: m.Invalid}
	if math.IsInf(load, 1) {
		pr.Load, pr.Unlimited = 0, true
	}
	if m.Total > 0 {
		pr.Share = float64(m.Good) / float64(m.Total)
	}
	pr.ShareLow, pr.ShareHigh = Wilson(m.Good, m.Total)
	pr.Pass = m.Total > 0 && pr.Share >= st.s.GoodputShare
	st.out.Probes = append(st.out.Probes, pr)
	return &st.out.Probes[len(st.out.Probes)-1], nil
}

// formatLoad writes a load for messages.
func formatLoad(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.4g", x)
}
