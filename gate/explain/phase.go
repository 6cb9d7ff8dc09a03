package explain

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// trialPhases is one trial's typical request, in milliseconds: its life
// from the actual send split at the server's admission and at the first
// token. It is the median request's (E2EL p50 = queue + prefill + decode
// with decode = E2EL p50 - TTFT p50), not the mean's: the gate judges
// medians, and a few requests stalled by a busy host move a trial's mean
// far more than the change being explained.
type trialPhases struct {
	queue, prefill, decode, e2el float64
	perToken, tokens             float64
	clientQueue                  float64
}

// The per-trial values the split reads: per-request medians the load
// generator records in every trial, the output tokens per request, and
// the server queue, the mean of vllm:request_queue_time_seconds over the
// trial (gate/server/scrape; a histogram gives no median).
const (
	keyTTFT        = "ttft_ms.median"
	keyE2EL        = "e2el_ms.median"
	keyClientQueue = "client_queue_ms.median"
	keyOutTokens   = "total_output_tokens"
	keyCompleted   = "completed"
	keyServerQueue = "queue_time_s.server_mean"
)

// phasesOf splits each valid trial of r. withQueue uses the server's queue
// time (the caller sets it only when both arms recorded it, so both arms
// are split alike). A trial lacking a value is skipped; missing names the
// first value no trial had.
func phasesOf(r *result.Result, withQueue bool) (out []trialPhases, missing string) {
	for _, t := range r.ValidTrials() {
		v := t.Values
		ttft, ok1 := v[keyTTFT]
		e2el, ok2 := v[keyE2EL]
		out1, ok3 := v[keyOutTokens]
		done, ok4 := v[keyCompleted]
		switch {
		case !ok1:
			missing = keyTTFT
			continue
		case !ok2:
			missing = keyE2EL
			continue
		case !ok3 || !ok4 || done <= 0:
			missing = keyOutTokens
			continue
		}
		p := trialPhases{e2el: e2el, decode: e2el - ttft, prefill: ttft, clientQueue: v[keyClientQueue]}
		if withQueue {
			q := 1000 * t.Server[keyServerQueue]
			// The server's clock and the client's differ by the network
			// and the API server; never let the queue exceed TTFT.
			q = math.Min(q, ttft)
			p.queue, p.prefill = q, ttft-q
		}
		// Decode time over the tokens after the first: the token-weighted
		// time per output token (a request of one token has no decode).
		p.tokens = out1 / done
		if p.tokens > 1 {
			p.perToken = p.decode / (p.tokens - 1)
		}
		out = append(out, p)
	}
	return out, missing
}

// hasServerQueue reports whether every valid trial of r recorded the
// server's queue time.
func hasServerQueue(r *result.Result) bool {
	vt := r.ValidTrials()
	for _, t := range vt {
		if _, ok := t.Server[keyServerQueue]; !ok {
			return false
		}
	}
	return len(vt) > 0
}

// split computes the phase split of one workload, or an error saying what
// is missing.
func split(cell string, base, cand *result.Result, level float64) (verdict.PhaseSplit, error) {
	s := verdict.PhaseSplit{Workload: cell}
	if base == nil || cand == nil {
		return s, fmt.Errorf("%s: an arm has no result file; the split needs both arms' results", cell)
	}
	s.ServerQueue = hasServerQueue(base) && hasServerQueue(cand)
	bp, bmiss := phasesOf(base, s.ServerQueue)
	cp, cmiss := phasesOf(cand, s.ServerQueue)
	if len(bp) == 0 || len(cp) == 0 {
		miss := bmiss
		if miss == "" {
			miss = cmiss
		}
		return s, fmt.Errorf("%s: no valid trial with %s in both arms; the split needs the per-request medians a perfgate run records (capacity cells lack them)", cell, miss)
	}
	pick := func(ps []trialPhases, f func(trialPhases) float64) []float64 {
		out := make([]float64, len(ps))
		for i, p := range ps {
			out[i] = f(p)
		}
		return out
	}
	change := func(ph verdict.Phase, f func(trialPhases) float64) verdict.PhaseChange {
		c := welch(pick(bp, f), pick(cp, f), level)
		c.Phase = ph
		return c
	}
	s.E2EL = change("", func(p trialPhases) float64 { return p.e2el })
	s.Phases = []verdict.PhaseChange{
		change(verdict.PhaseQueue, func(p trialPhases) float64 { return p.queue }),
		change(verdict.PhasePrefill, func(p trialPhases) float64 { return p.prefill }),
		change(verdict.PhaseDecode, func(p trialPhases) float64 { return p.decode }),
	}
	s.PerToken = change("", func(p trialPhases) float64 { return p.perToken })
	s.Tokens = change("", func(p trialPhases) float64 { return p.tokens })
	s.ClientQueue = change("", func(p trialPhases) float64 { return p.clientQueue })
	if d := s.E2EL.Delta; d != 0 {
		s.E2EL.Share = 100
		for i := range s.Phases {
			s.Phases[i].Share = 100 * s.Phases[i].Delta / d
		}
	}
	s.Carrier = carrier(s)
	return s, nil
}

// carrier picks the phase that carries a workload's change: of the
// phases that got slower beyond their interval, the one that added the
// most time. It does not ask E2EL itself to have moved: the queue phase is
// the noisiest, and a decode slowdown that fails TPOT is still carried by
// decode when the queue's noise hides it in E2EL. A decode change whose
// time per token did not move while the tokens per request did is an
// output-length change. When no phase got slower (a tail or throughput
// regression), none carries it.
func carrier(s verdict.PhaseSplit) verdict.Phase {
	best, bestDelta := verdict.PhaseNone, 0.0
	for _, p := range s.Phases {
		if p.Moved && p.Delta > bestDelta {
			best, bestDelta = p.Phase, p.Delta
		}
	}
	if best == verdict.PhaseDecode && !s.PerToken.Moved && s.Tokens.Moved {
		return verdict.PhaseLength
	}
	return best
}

// welch compares the means of two samples: the candidate's minus the
// baseline's, with Welch's interval at level (unequal variances, the
// Welch-Satterthwaite degrees of freedom). With fewer than two values in
// an arm there is no interval: it is the point itself and NoInterval is
// set.
func welch(b, c []float64, level float64) verdict.PhaseChange {
	mb, vb := verdict.MeanVar(b)
	mc, vc := verdict.MeanVar(c)
	out := verdict.PhaseChange{Baseline: mb, Candidate: mc, Delta: mc - mb}
	if mb != 0 {
		out.Change = 100 * out.Delta / mb
	}
	out.DeltaLow, out.DeltaHigh = out.Delta, out.Delta
	if len(b) < 2 || len(c) < 2 {
		out.NoInterval = true
		return out
	}
	sb, sc := vb/float64(len(b)), vc/float64(len(c))
	se := math.Sqrt(sb + sc)
	if se > 0 {
		df := (sb + sc) * (sb + sc) / (sb*sb/float64(len(b)-1) + sc*sc/float64(len(c)-1))
		h := verdict.TQuantile(1-(1-level)/2, df) * se
		out.DeltaLow, out.DeltaHigh = out.Delta-h, out.Delta+h
	}
	out.Moved = out.DeltaLow > 0 || out.DeltaHigh < 0
	return out
}
