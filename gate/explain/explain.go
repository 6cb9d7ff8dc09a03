// Package explain says why a comparison regressed. For each regressed
// workload it splits the change of its median request's end-to-end latency into the
// server's queue, prefill (TTFT minus that queue) and decode (E2EL minus
// TTFT, further the time per output token times the tokens), each with a
// confidence interval, names the phase that carries the change, and puts
// the server's own /metrics figures of both arms beside it, flagged when
// they moved beyond their trial spread. Workloads carried by the same
// phase become one finding, so a decode slowdown that fails TPOT, ITL,
// E2EL and throughput in four workloads reads as one cause, not twenty
// rows.
//
// It reads only what both arms' result files already keep (per-trial
// per-request medians and the /metrics summaries of gate/server/scrape) and
// is pure: no I/O. The verdict never depends on it; docs/report.md says
// how to read its findings.
package explain

import (
	"math"
	"sort"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Explain computes the explanation of c's regressed workloads from the
// result files of both arms, keyed by workload cell. It returns nil when
// no gated cell regressed. A workload that cannot be split (no result
// file, no per-request medians) is named in the explanation's warnings.
func Explain(c *verdict.Comparison, baselines, candidates map[string]*result.Result) *verdict.Explanation {
	if c == nil {
		return nil
	}
	regressed := map[string][]string{}
	var order []string
	for _, cell := range c.Cells {
		if !cell.Gated || cell.Outcome != verdict.Regression {
			continue
		}
		if _, ok := regressed[cell.Workload]; !ok {
			order = append(order, cell.Workload)
		}
		regressed[cell.Workload] = append(regressed[cell.Workload], cell.Workload+"/"+cell.Metric)
	}
	if len(order) == 0 {
		return nil
	}
	level := 1 - 2*c.Policy.PassAlpha
	if !(level > 0 && level < 1) {
		level = 0.8
	}
	e := &verdict.Explanation{Schema: verdict.ExplanationSchema, CILevel: level}
	for _, w := range order {
		s, err := split(w, baselines[w], candidates[w], level)
		if err != nil {
			e.Warnings = append(e.Warnings, err.Error())
			continue
		}
		s.Cells = regressed[w]
		s.Counters = counterDeltas(baselines[w], candidates[w])
		e.Workloads = append(e.Workloads, s)
	}
	e.Findings = group(e.Workloads)
	return e
}

// Attach sets c.Explanation from the result files of both arms (see
// Explain) and puts a profile's kernel diff into it (nil: no profile ran).
// It is the one call the commands make before rendering.
func Attach(c *verdict.Comparison, baselines, candidates map[string]*result.Result, kernels *verdict.KernelDiff) {
	if c == nil {
		return
	}
	c.Explanation = Explain(c, baselines, candidates)
	if kernels == nil {
		return
	}
	if c.Explanation == nil {
		c.Explanation = &verdict.Explanation{Schema: verdict.ExplanationSchema}
	}
	c.Explanation.Kernels = kernels
}

// group makes one finding per carrying phase, over the workloads it
// carries, the largest group first (ties: the phase order queue, prefill,
// decode, output length, none).
func group(splits []verdict.PhaseSplit) []verdict.Finding {
	byPhase := map[verdict.Phase]*verdict.Finding{}
	var order []verdict.Phase
	unchangedIn := map[verdict.Phase]map[verdict.Phase]int{}
	for _, s := range splits {
		f, ok := byPhase[s.Carrier]
		if !ok {
			f = &verdict.Finding{Phase: s.Carrier, Measure: measure(s.Carrier),
				ChangeLow: math.Inf(1), ChangeHigh: math.Inf(-1), ShareLow: math.Inf(1), ShareHigh: math.Inf(-1)}
			byPhase[s.Carrier] = f
			order = append(order, s.Carrier)
			unchangedIn[s.Carrier] = map[verdict.Phase]int{}
		}
		f.Workloads = append(f.Workloads, s.Workload)
		f.Cells = append(f.Cells, s.Cells...)
		if ch, share, ok := carried(s); ok {
			f.ChangeLow, f.ChangeHigh = math.Min(f.ChangeLow, ch), math.Max(f.ChangeHigh, ch)
			if s.E2EL.Moved {
				f.ShareLow, f.ShareHigh = math.Min(f.ShareLow, share), math.Max(f.ShareHigh, share)
				f.Shared++
			}
		}
		for _, p := range s.Phases {
			if !p.Moved && !p.NoInterval {
				unchangedIn[s.Carrier][p.Phase]++
			}
		}
		f.Counters = mergeFlagged(f.Counters, s.Counters)
	}
	out := make([]verdict.Finding, 0, len(order))
	for _, ph := range order {
		f := byPhase[ph]
		if math.IsInf(f.ChangeLow, 0) {
			f.ChangeLow, f.ChangeHigh = 0, 0
		}
		if f.Shared == 0 {
			f.ShareLow, f.ShareHigh = 0, 0
		}
		for _, p := range []verdict.Phase{verdict.PhaseQueue, verdict.PhasePrefill, verdict.PhaseDecode} {
			if p != ph && unchangedIn[ph][p] == len(f.Workloads) {
				f.Unchanged = append(f.Unchanged, p)
			}
		}
		out = append(out, *f)
	}
	rank := map[verdict.Phase]int{verdict.PhaseQueue: 0, verdict.PhasePrefill: 1, verdict.PhaseDecode: 2, verdict.PhaseLength: 3, verdict.PhaseNone: 4}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].Workloads) != len(out[j].Workloads) {
			return len(out[i].Workloads) > len(out[j].Workloads)
		}
		return rank[out[i].Phase] < rank[out[j].Phase]
	})
	return out
}

// measure names what a finding's change range is the change of.
func measure(p verdict.Phase) string {
	switch p {
	case verdict.PhaseQueue:
		return "server queue time"
	case verdict.PhasePrefill:
		return "prefill time"
	case verdict.PhaseDecode:
		return "per-token decode time"
	case verdict.PhaseLength:
		return "output tokens per request"
	}
	return ""
}

// carried is the carrier's own relative change in s and the share of the
// E2EL change it explains; ok is false for PhaseNone.
func carried(s verdict.PhaseSplit) (change, share float64, ok bool) {
	phase := func(p verdict.Phase) verdict.PhaseChange {
		for _, c := range s.Phases {
			if c.Phase == p {
				return c
			}
		}
		return verdict.PhaseChange{}
	}
	switch s.Carrier {
	case verdict.PhaseQueue, verdict.PhasePrefill:
		p := phase(s.Carrier)
		return p.Change, p.Share, true
	case verdict.PhaseDecode:
		return s.PerToken.Change, phase(verdict.PhaseDecode).Share, true
	case verdict.PhaseLength:
		return s.Tokens.Change, phase(verdict.PhaseDecode).Share, true
	}
	return 0, 0, false
}

// mergeFlagged adds the flagged figures of more to have, one entry per
// key: the first workload's numbers stand for the finding, and the
// finding's workloads' own are in their splits.
func mergeFlagged(have, more []verdict.CounterDelta) []verdict.CounterDelta {
	for _, d := range more {
		if !d.Flagged {
			continue
		}
		dup := false
		for _, h := range have {
			dup = dup || h.Key == d.Key
		}
		if !dup {
			have = append(have, d)
		}
	}
	return have
}
