package verdict

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/gate/metrics"
)

// Substitution records a gated distribution statistic that neither arm of
// a workload cell carries and the statistic of the same distribution gated
// in its place. Files imported from `vllm bench serve` often carry only a
// subset of percentiles (say mean and p95): without a substitute the
// default p50/p99 gates would check nothing and an imported 25 % TTFT
// slowdown would pass.
type Substitution struct {
	// Missing is the gated statistic absent from both arms (ttft_ms.p99).
	Missing string `json:"missing"`
	// Metric is the statistic gated instead (ttft_ms.p95).
	Metric string `json:"metric"`
	// Tolerance is the substitute's tolerance (a fraction): the one
	// configured for Metric when there is one, else Missing's.
	Tolerance float64 `json:"tolerance"`
}

// centreFallbacks are the substitutes of the centre statistics, in order:
// p50 and median are the same statistic under two names; the mean is the
// other centre a file is sure to have.
var centreFallbacks = map[metrics.Stat][]metrics.Stat{
	metrics.Pct(50): {metrics.Median, metrics.Mean},
	metrics.Median:  {metrics.Pct(50), metrics.Mean},
	metrics.Mean:    {metrics.Median, metrics.Pct(50)},
}

// fallbacks lists, best first, the statistics of have (those both arms
// carry, of the missing statistic's distribution) that may stand in for
// the missing stat. A centre statistic falls back to the other centres; a
// tail percentile (p90 and above, metrics.TailFloor, which is also where
// DefaultTolerance switches to the tail tolerance) to the other tail
// percentiles below p100, nearest first where nearness is the ratio of the
// exceedance probabilities (for p99: p95 is 5x away, p99.9 and p90 10x),
// ties going to the higher percentile, which watches more of the tail.
// Nothing else (std, min, max, low percentiles) has a principled
// substitute.
func fallbacks(stat metrics.Stat, have map[metrics.Stat]bool) []metrics.Stat {
	if order, ok := centreFallbacks[stat]; ok {
		var out []metrics.Stat
		for _, s := range order {
			if have[s] {
				out = append(out, s)
			}
		}
		return out
	}
	target, ok := stat.Percentile()
	if !ok || target < metrics.TailFloor || target >= 100 {
		return nil
	}
	type cand struct {
		stat metrics.Stat
		q    float64
		dist float64
	}
	var cs []cand
	for s := range have {
		q, ok := s.Percentile()
		if !ok || q < metrics.TailFloor || q >= 100 || q == target {
			continue
		}
		cs = append(cs, cand{s, q, math.Abs(math.Log((100 - q) / (100 - target)))})
	}
	sort.Slice(cs, func(i, j int) bool {
		// Distances of exact ties (p90 and p99.9 around p99) differ in
		// the last bits of the logarithm; compare them rounded.
		di, dj := math.Round(cs[i].dist*1e9), math.Round(cs[j].dist*1e9)
		if di != dj {
			return di < dj
		}
		return cs[i].q > cs[j].q
	})
	out := make([]metrics.Stat, len(cs))
	for i, c := range cs {
		out[i] = c.stat
	}
	return out
}

// substitute returns the rules of one workload cell with a substitute
// gated for every gated distribution statistic that neither arm carries
// (base and cand hold the metric ids each arm's valid trials carry), and
// the substitutions made. Rules:
//
//   - only a statistic missing from both arms is substituted; one missing
//     from one arm is a data problem the cell reports (see buildCells);
//   - a substitute must be carried by both arms, and is never a statistic
//     already gated, nor one gated as a substitute before (missing
//     statistics are served in report order): no statistic is gated twice;
//   - explicit settings win: a substitute the workload's gate list turns
//     off (optOut) is skipped, and a tolerance configured for the
//     substitute is kept; otherwise it inherits the missing statistic's
//     tolerance (a p95 standing in for p99 gets p99's tail tolerance).
//
// rules is not modified.
func substitute(rules map[string]Rule, optOut, base, cand map[string]bool) (map[string]Rule, []Substitution) {
	out := make(map[string]Rule, len(rules))
	missing := map[string]bool{}
	for id, r := range rules {
		out[id] = r
		if r.Gated && !base[id] && !cand[id] {
			missing[id] = true
		}
	}
	var subs []Substitution
	for _, id := range orderedIDs(missing) {
		missed, ok := metrics.ParseID(id)
		if !ok {
			continue
		}
		have := map[metrics.Stat]bool{}
		for other := range base {
			if o, ok := metrics.ParseID(other); ok && o.Base == missed.Base && cand[other] {
				have[o.Stat] = true
			}
		}
		for _, s := range fallbacks(missed.Stat, have) {
			sid := metrics.ID{Base: missed.Base, Stat: s}.String()
			cur, ruled := out[sid]
			if optOut[sid] || (ruled && cur.Gated) {
				continue
			}
			tol := rules[id].Tolerance
			if ruled && cur.Tolerance > 0 {
				tol = cur.Tolerance
			}
			out[sid] = Rule{Metric: sid, Gated: true, Tolerance: tol}
			subs = append(subs, Substitution{Missing: id, Metric: sid, Tolerance: tol})
			break
		}
	}
	return out, subs
}
