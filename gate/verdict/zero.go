package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// This file holds the rules for zeros, which the log-scale test cannot
// take: a relative metric is compared by the ratio of the arms' geometric
// means, and a zero makes that ratio 0 or infinite. A zero is data, and it
// must never leave a gated cell untested and the gate passing:
//
//   - A higher-is-better metric (a throughput, request_goodput) that falls
//     to zero (in some candidate trial while in no baseline trial, or in
//     every candidate trial while not in every baseline trial) fell in its
//     worse direction as far as it can: a regression, certain (p = 0),
//     counted in the Holm family like any gated cell. request_goodput is 0
//     when every request of a trial misses the workload's SLO.
//   - The mirror image, rising from zero, is an improvement.
//   - A latency that cannot be zero (TTFT and E2EL are measured from the
//     request's send to a token that arrived after it) is broken data in
//     its better direction: the trial carrying it is invalid with that
//     reason (see dropImpossible), so an arm made of such trials is not
//     compared and the gate cannot pass.
//
// Other mixes of zeros in both arms, and zeros of lower-is-better metrics that can be
// zero (failed counts, client queueing, a TPOT of single-token outputs),
// leave the cell inconclusive with a warning, as before.

// impossibleZero reports whether metric id can never be zero in a sound
// trial: every statistic but the spread of the latencies measured from a
// request's send to a token after it.
func impossibleZero(id string) bool {
	pid, ok := metrics.ParseID(id)
	if !ok || pid.Stat == metrics.Std {
		return false
	}
	switch pid.Base {
	case "ttft_ms", "e2el_ms", "e2el_from_intended_ms":
		return true
	}
	return false
}

// dropImpossible returns rs with every valid trial that carries an
// impossible zero marked invalid, with the metrics named in its reason. The
// results given are not modified: a result that needs a change is copied
// with its own trial slice.
func dropImpossible(rs []*result.Result) []*result.Result {
	out, copied := rs, false
	for i, r := range rs {
		if r == nil {
			continue
		}
		var trials []result.Trial
		for k, t := range r.Trials {
			if !t.Valid {
				continue
			}
			var zero []string
			for id, v := range t.Values {
				if v == 0 && impossibleZero(id) {
					zero = append(zero, id)
				}
			}
			if len(zero) == 0 {
				continue
			}
			if trials == nil {
				trials = append([]result.Trial(nil), r.Trials...)
			}
			sort.Strings(zero)
			trials[k].Valid = false
			trials[k].InvalidReason = fmt.Sprintf("%s is 0 ms, impossible for a latency measured from the request's send: the data is broken", strings.Join(zero, ", "))
		}
		if trials == nil {
			continue
		}
		if !copied {
			out, copied = append([]*result.Result(nil), rs...), true
		}
		marked := *r
		marked.Trials = trials
		out[i] = &marked
	}
	return out
}

// testZero decides a relative cell with a zero value in some trial (see the
// rules above). It fills the cell and returns the one-sided p-values and
// whether the cell joins the Holm family, as test does.
func (pc *pendingCell) testZero(p *Policy) (pWorse, pBetter float64, ok bool) {
	c := &pc.cell
	c.CILevel = 1 - 2*p.PassAlpha
	bv, cv := c.Baseline.Values, c.Candidate.Values
	zb, zc := countZeros(bv), countZeros(cv)
	higher := pc.sign < 0
	// fell: zero in some candidate trial and in no baseline trial, or in
	// every candidate trial and not in every baseline trial.
	fell := (zc > 0 && zb == 0) || (zc == len(cv) && zb < len(bv))
	rose := (zb > 0 && zc == 0) || (zb == len(bv) && zc < len(cv))
	switch {
	case higher && fell:
		// Change is on the natural scale of the arithmetic means: -100 %
		// when every candidate trial is zero. Worse is, as for every
		// higher-is-better cell, baseline over candidate minus one, which
		// is infinite at zero and capped so the JSON stays finite.
		c.Change = 100 * (mean(cv)/mean(bv) - 1)
		c.Worse = zeroWorse
		if m := mean(cv); m > 0 {
			c.Worse = math.Min(zeroWorse, 100*(mean(bv)/m-1))
		}
		c.CILow, c.CIHigh = c.Worse, c.Worse
		c.PValue, c.PAdjusted = 0, 0
		c.Outcome = Regression
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s is 0 in %d of %d candidate trials (baseline %s, 0 in %d of %d): a fall to zero is the largest possible regression", c.Metric, zc, len(cv), formatCentre(mean(bv), c.Unit), zb, len(bv)))
		return 0, 1, true
	case higher && rose:
		// From zero a ratio is infinite; the arithmetic means give a
		// finite change when only some baseline trials were zero.
		if m := mean(bv); m > 0 {
			c.Change = 100 * (mean(cv)/m - 1)
			c.Worse = 100 * (m/mean(cv) - 1)
			c.CILow, c.CIHigh = c.Worse, c.Worse
		}
		c.PValue, c.PAdjusted = 0, 0
		c.Outcome = Improvement
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s was 0 in %d of %d baseline trials and is 0 in %d of %d candidate trials: an improvement from zero", c.Metric, zb, len(bv), zc, len(cv)))
		return 1, 0, true
	}
	c.Outcome = Inconclusive
	c.Warnings = append(c.Warnings, "some trial has a zero value; a relative change cannot be computed")
	return 1, 1, false
}

// zeroWorse is the Worse (percent) of a fall to zero in every candidate
// trial: "a million percent worse", which reports render as -100 %.
const zeroWorse = 1e6

func countZeros(v []float64) int {
	n := 0
	for _, x := range v {
		if x <= 0 {
			n++
		}
	}
	return n
}

func formatCentre(v float64, unit string) string {
	return fmt.Sprintf("%.4g %s", v, unit)
}
