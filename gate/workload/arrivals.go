package workload

import (
	"math"
	"time"
)

// arrivals returns the intended send offsets of n requests exactly as
// `vllm bench serve` computes them: rate +Inf sends everything at 0;
// otherwise each request's delay is a gamma variate with shape burstiness
// and mean 1/rate (constant 1/rate when burstiness is +Inf), the delays are
// accumulated, and the cumulative offsets are rescaled so the last arrival
// lands exactly at n/rate. The rescaling removes the 1-2 % spread a plain
// sum has between seeds, which would otherwise show up as throughput noise.
func arrivals(n int, rate, burstiness float64, s *stream) []time.Duration {
	out := make([]time.Duration, n)
	if n == 0 || math.IsInf(rate, 1) {
		return out
	}
	cum := make([]float64, n)
	total := 0.0
	for i := range cum {
		var d float64
		if math.IsInf(burstiness, 1) {
			d = 1 / rate
		} else {
			d = s.gamma(burstiness, 1/(rate*burstiness))
		}
		total += d
		cum[i] = total
	}
	target := float64(n) / rate
	factor := 0.0
	if total > 0 {
		factor = target / total
	}
	for i, c := range cum {
		out[i] = seconds(c * factor)
	}
	// Pin the last arrival to the target itself: c*factor may differ from
	// it in the last bit.
	out[n-1] = seconds(target)
	for i := 1; i < n; i++ { // rounding must never reorder arrivals
		if out[i] < out[i-1] {
			out[i] = out[i-1]
		}
	}
	return out
}

// seconds converts s seconds to a Duration rounded to the nanosecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * 1e9))
}

// Ramp-up strategies (vllm bench serve --ramp-up-strategy).
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// rampRate is the rate of request i of n on ramp r, as vLLM computes it:
// progress i/max(n-1, 1) moves the rate from StartRPS to EndRPS, linearly
// or geometrically (start * (end/start)^progress).
func rampRate(r RampUp, i, n int) float64 {
	progress := float64(i) / float64(max(n-1, 1))
	if r.Strategy == RampExponential {
		return r.StartRPS * math.Pow(r.EndRPS/r.StartRPS, progress)
	}
	return r.StartRPS + (r.EndRPS-r.StartRPS)*progress
}

// rampArrivals returns the send offsets of n requests on ramp r exactly as
// `vllm bench serve --ramp-up-strategy` computes them: request i's delay is
// a gamma variate with shape burstiness and mean 1/rampRate(i) (constant
// when burstiness is +Inf), and the delays are accumulated. Unlike the
// fixed-rate schedule the sum is not rescaled (vLLM rescales only without
// a ramp), so the schedule's length varies a little between seeds.
func rampArrivals(n int, r RampUp, burstiness float64, s *stream) []time.Duration {
	out := make([]time.Duration, n)
	total := 0.0
	for i := range out {
		rate := rampRate(r, i, n)
		if math.IsInf(burstiness, 1) {
			total += 1 / rate
		} else {
			total += s.gamma(burstiness, 1/(rate*burstiness))
		}
		out[i] = seconds(total)
		if i > 0 && out[i] < out[i-1] { // rounding must never reorder arrivals
			out[i] = out[i-1]
		}
	}
	return out
}
