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
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

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
	// MaxTimeFactor bounds a rate search's time: its probes together
	// take at most this many times the saturation probe's. A probe of n
	// requests at rate x lasts at least n/x, so every halving of the
	// rate doubles a probe's time; against a server that never meets
	// the SLO the bisection would halve towards 0, each probe twice as
	// long as the last (110-120 s a search, issue 20 item 5). With 32
	// the search gets down to 1/16 of the saturation throughput and
	// stops there; a healthy search needs 10-20 times.
	MaxTimeFactor = 32
)

// ErrNothingServed says the saturation probe completed no request: the
// server is down or fails every request (HTTP 500s), so there is no
// capacity to search for, and a result claiming one would be a fake
// measurement.
var ErrNothingServed = errors.New("the saturation probe completed no request")

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
	// DurationS is how long the probe took, in seconds; 0 when the
	// Prober does not say (its time is then estimated from its request
	// count and rate, for the search's time bound).
	DurationS float64
	// Errors counts the failed requests by kind, for the message of a
	// search that could not start (ErrNothingServed).
	Errors map[string]int
}

// Prober runs one probe: a short measured run at load, a rate in req/s or
// a concurrency, or an unlimited run (no rate limit, no concurrency cap)
// when load is +Inf.
type Prober interface {
	Probe(ctx context.Context, load float64) (Measurement, error)
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
	// satS is the saturation probe's time and spentS the time of every
	// probe so far, in seconds, for the time bound (MaxTimeFactor).
	satS, spentS float64
	satTotal     int
	// errorsSeen are the saturation probe's failed requests by kind, for
	// ErrNothingServed's message ("; errors: ...").
	errorsSeen string
}

// Search runs one capacity search. Errors are the prober's (the tool or
// the server failed outright, the context ended) and ErrNothingServed (a
// server that is down or fails every request); with an error Search
// still returns the search so far, every probe it ran kept, for a result
// that shows what was measured and is marked incomplete. A server that
// serves but never meets the SLO is a result: capacity 0 with a warning,
// the search bounded by MaxProbes and, over rate, MaxTimeFactor.
func Search(ctx context.Context, p Prober, spec Spec) (*result.Capacity, error) {
	s, err := withDefaults(spec)
	if err != nil {
		return nil, fmt.Errorf("capacity: %w", err)
	}
	st := &search{ctx: ctx, p: p, s: s, out: &result.Capacity{Over: s.Over, Target: s.GoodputShare}}
	if err := st.run(); err != nil {
		st.finish()
		st.out.Converged = false
		st.out.Warnings = append(st.out.Warnings, fmt.Sprintf("the search stopped after %d probe(s): %v", len(st.out.Probes), err))
		return st.out, err
	}
	st.finish()
	return st.out, nil
}

// run is the search: the saturation probe, then the bracket.
func (st *search) run() error {
	sat, err := st.probe(math.Inf(1))
	if err != nil {
		return err
	}
	st.out.Saturation = sat.Throughput
	if !(sat.Throughput > 0) {
		return fmt.Errorf("%w (%d sent%s): the server is down or failed every request; check that it answers the workload's requests", ErrNothingServed, sat.Total, st.errorsSeen)
	}
	st.satTotal, st.satS = sat.Total, st.spentS
	if st.s.Over == result.OverConcurrency {
		return st.concurrency()
	}
	return st.rate(sat)
}

// rate brackets a rate search: the saturation throughput is the first
// upper end, doubled while probes there still pass.
func (st *search) rate(sat *result.Probe) error {
	x := sat.Throughput
	for len(st.out.Probes) < st.s.MaxProbes {
		if st.outOfTime(x) {
			return nil
		}
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
		} else if st.outOfTime(x) {
			return nil
		}
		pr, err := st.probe(x)
		if err != nil {
			return err
		}
		st.place(x, pr)
	}
	return nil
}

// probeTime is how long a rate probe at x takes: its measured time, or at
// least its requests at that rate (the saturation probe's count: every
// probe of a search sends the workload's requests).
func (st *search) probeTime(x float64, m Measurement) float64 {
	if m.DurationS > 0 {
		return m.DurationS
	}
	if math.IsInf(x, 1) {
		if m.Throughput > 0 {
			return float64(m.Total) / m.Throughput
		}
		return 0
	}
	return float64(m.Total) / x
}

// outOfTime reports whether a rate probe at x would take the search past
// MaxTimeFactor times the saturation probe's time, and if so says so in
// a warning. The probe's time is estimated as the saturation probe's
// requests at rate x, a lower bound.
func (st *search) outOfTime(x float64) bool {
	if !(st.satS > 0) || !(x > 0) {
		return false
	}
	next := float64(st.satTotal) / x
	budget := MaxTimeFactor * st.satS
	if st.spentS+next <= budget {
		return false
	}
	st.out.Warnings = append(st.out.Warnings, fmt.Sprintf(
		"the search stopped before a probe at %s req/s: its %d requests would take about %.3gs, past the search's time bound "+
			"(%d times the saturation probe's %.3gs, %.3gs in all; %.3gs spent): a capacity this far below the saturation throughput is not searched",
		formatLoad(x), st.satTotal, next, MaxTimeFactor, st.satS, budget, st.spentS))
	return true
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
	if st.s.Over == result.OverRate || math.IsInf(load, 1) {
		st.spentS += st.probeTime(load, m)
	}
	if math.IsInf(load, 1) && len(m.Errors) > 0 {
		st.errorsSeen = formatErrors(m.Errors)
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

// formatErrors writes failed requests by kind, most frequent first, at
// most three kinds: "; errors: 40 x http 500, 2 x timeout".
func formatErrors(errs map[string]int) string {
	kinds := slices.SortedFunc(maps.Keys(errs), func(a, b string) int {
		return cmp.Or(cmp.Compare(errs[b], errs[a]), strings.Compare(a, b)) // most first
	})
	if len(kinds) > 3 {
		kinds = kinds[:3]
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d x %s", errs[k], k)
	}
	return "; errors: " + strings.Join(parts, ", ")
}
