package capacity

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/result"
)

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Wilson returns the 95 % Wilson score interval of a binomial share of
// good out of total. Unlike the normal approximation it stays inside
// [0, 1] and does not collapse to a point at 0 or 100 %, which is where
// probes far from the capacity land. With no requests it is [0, 1].
func Wilson(good, total int) (lo, hi float64) {
	if total <= 0 {
		return 0, 1
	}
	n := float64(total)
	p := float64(good) / n
	z2 := z95 * z95
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// finish sets the estimate, its interval and whether the search
// converged.
//
// The estimate of a rate search interpolates the goodput share linearly
// between the bracket's ends: with a 2 % bracket the interpolation moves
// it by at most that, but removes the bias of always reporting the lower
// end. A concurrency search reports the largest concurrency that passed,
// since a fractional concurrency cannot be run. Without a passing probe
// the capacity is 0: the SLO was not met at any load probed.
func (st *search) finish() {
	out := st.out
	whole := st.s.Over == result.OverConcurrency
	switch {
	case st.loP == nil && st.lo == 0:
		out.Capacity = 0
		if st.hiP != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the SLO was not met at any load probed (lowest %s %s: goodput share %.1f%%)",
				st.s.Over, formatLoad(st.lowestFailing()), 100*st.hiP.Share))
		}
	case st.hi == 0 || whole:
		out.Capacity = st.lo
	default:
		sl, sh := st.loP.Share, st.hiP.Share
		t := 0.5
		if sl > sh {
			t = (sl - st.s.GoodputShare) / (sl - sh)
		}
		out.Capacity = st.lo + math.Max(0, math.Min(1, t))*(st.hi-st.lo)
	}
	switch {
	case st.hi == 0:
		out.Converged = false
		if st.lo > 0 && !whole {
			out.Warnings = append(out.Warnings, fmt.Sprintf("every probe up to %s req/s met the SLO: the capacity is at least that", formatLoad(st.lo)))
		}
	case whole:
		out.Converged = st.hi-st.lo <= 1
	default:
		out.Converged = st.hi-st.lo <= st.s.Resolution*st.hi
	}
	if !out.Converged && st.hi > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the probe budget (%d) ran out with the capacity between %s and %s", st.s.MaxProbes, formatLoad(st.lo), formatLoad(st.hi)))
	}
	out.Low, out.High = interval(out.Probes, st.s.GoodputShare)
	out.Low = math.Min(out.Low, out.Capacity)
	if out.High > 0 {
		out.High = math.Max(out.High, out.Capacity)
	}
}

// lowestFailing is the smallest finite load probed.
func (st *search) lowestFailing() float64 {
	low := math.Inf(1)
	for _, p := range st.out.Probes {
		if !p.Unlimited && p.Load < low {
			low = p.Load
		}
	}
	return low
}

// interval bounds the capacity by the probes whose verdict is sure at
// 95 %: low is the largest load whose share's interval lies at or above
// the target, high the smallest whose interval lies below it (0: none).
// A probe whose interval straddles the target says nothing sure, so a
// short probe near the capacity widens the interval to its neighbours,
// which is how its binomial uncertainty enters.
func interval(probes []result.Probe, target float64) (low, high float64) {
	for _, p := range probes {
		if p.Unlimited || p.Total == 0 {
			continue
		}
		if p.ShareLow >= target && p.Load > low {
			low = p.Load
		}
		if p.ShareHigh < target && (high == 0 || p.Load < high) {
			high = p.Load
		}
	}
	return low, high
}
