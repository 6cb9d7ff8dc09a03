package metrics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestPeakFromFirstSuccessfulSend is issue 14's defect 14: vLLM bins token
// messages from the earliest send of a successful request, not from the
// trial start. The reference values come from vLLM's calculate_metrics
// (vllm/benchmarks/serve.py) run by hand on the same requests, in seconds:
// min_start = 0.4 (r1; the request sent at 0 failed), buckets
// int(t - 0.4) = [9, 2] -> 9. Binned from the trial start the same
// arrivals give [4, 7] -> 7, the old, wrong answer.
func TestPeakFromFirstSuccessfulSend(t *testing.T) {
	acc := NewAccumulator(SLO{}, 0)
	acc.Add(&Request{Sent: 0, ErrorType: "http_429"})
	acc.Add(req(400, 400, 100, []float32{200, 200, 200, 200}, 1, 5)) // 500, 700, 900, 1100, 1300
	acc.Add(req(600, 600, 50, []float32{600, 100, 40}, 1, 4))        // 650, 1250, 1350, 1390
	acc.Add(req(1000, 1000, 410, []float32{50}, 1, 2))               // 1410, 1460
	tr := acc.Finish(2*time.Second, 0, Limits{FailureShare: 0.5})
	checkScalar(t, tr.Values, "max_output_tokens_per_s", 9)
	for _, w := range tr.Warnings {
		if strings.Contains(w, "max_output_tokens_per_s") {
			t.Errorf("unexpected warning %q", w)
		}
	}
}

// TestPeakOriginIsEarliestSendNotFirstAdded: requests are added as they
// finish, so the one sent first may arrive last; the origin must still be
// its send time.
func TestPeakOriginIsEarliestSendNotFirstAdded(t *testing.T) {
	acc := NewAccumulator(SLO{}, 0)
	acc.Add(req(900, 900, 10, []float32{10, 10}, 1, 3)) // 910, 920, 930
	acc.Add(req(0, 0, 1500, nil, 1, 1))                 // sent at 0, answered at 1500
	// From origin 0: bucket 0 holds 910..930 (3), bucket 1 holds 1500 (1).
	// From origin 900 (the first added) all four would share bucket 0.
	tr := acc.Finish(2*time.Second, 0, Limits{})
	checkScalar(t, tr.Values, "max_output_tokens_per_s", 3)
}

// vllmPeak is vLLM's definition written out directly, in float seconds, as
// an independent check of the accumulator's bookkeeping.
func vllmPeak(reqs []*Request) float64 {
	minStart := math.Inf(1)
	for _, r := range reqs {
		minStart = math.Min(minStart, r.Sent.Seconds())
	}
	bins := map[int]int{}
	for _, r := range reqs {
		tok := r.Sent.Seconds() + r.TTFT()/1000
		times := []float64{tok}
		for _, g := range r.Gaps {
			tok += float64(g) / 1000
			times = append(times, tok)
		}
		for _, x := range times {
			if b := int(x - minStart); b >= 0 {
				bins[b]++
			}
		}
	}
	peak := 0
	for _, c := range bins {
		peak = max(peak, c)
	}
	return float64(peak)
}

// TestPeakMatchesVLLMDefinition compares seeded random trials, with the
// first sends late (as in a rate-limited workload, whose first arrival is
// one gamma delay after the start), against vllmPeak.
func TestPeakMatchesVLLMDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 16))
	for trial := 0; trial < 50; trial++ {
		acc := NewAccumulator(SLO{}, 0)
		var reqs []*Request
		start := 50 + rng.Float64()*700 // ms: the first send is late
		for i := 0; i < 40; i++ {
			sent := start + float64(i)*rng.Float64()*120
			gaps := make([]float32, rng.IntN(30))
			for j := range gaps {
				gaps[j] = float32(1 + rng.Float64()*60)
			}
			r := req(sent, sent, 5+rng.Float64()*300, gaps, 1, len(gaps)+1)
			reqs = append(reqs, r)
		}
		// Finish order differs from send order.
		rng.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
		for _, r := range reqs {
			acc.Add(r)
		}
		tr := acc.Finish(10*time.Second, 0, Limits{})
		if got, want := tr.Values["max_output_tokens_per_s"], vllmPeak(reqs); got != want {
			t.Fatalf("trial %d: max_output_tokens_per_s = %v, vLLM's definition gives %v", trial, got, want)
		}
	}
}

// TestPeakPastTheLimitFallsBackWithWarning: past the exact-sample limit the
// arrivals are dropped, the peak comes from buckets counted from the trial
// start, and the trial says so.
func TestPeakPastTheLimitFallsBackWithWarning(t *testing.T) {
	acc := NewAccumulator(SLO{}, 4)
	acc.Add(req(400, 400, 100, []float32{200, 200, 200, 200}, 1, 5))
	acc.Add(req(600, 600, 50, []float32{600, 100, 40}, 1, 4))
	tr := acc.Finish(2*time.Second, 0, Limits{})
	// From the trial start: [0, 1 s) holds 500, 650, 700, 900; [1 s, 2 s)
	// holds 1100, 1250, 1300, 1350, 1390.
	checkScalar(t, tr.Values, "max_output_tokens_per_s", 5)
	found := false
	for _, w := range tr.Warnings {
		found = found || strings.Contains(w, "max_output_tokens_per_s") && strings.Contains(w, "trial start")
	}
	if !found {
		t.Errorf("no fallback warning in %q", tr.Warnings)
	}
}
