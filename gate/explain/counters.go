package explain

import (
	"math"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// counter is one server figure the explanation compares: its key in
// result.Trial.Server (written by gate/server/scrape) and the canonical
// series it comes from, whose engine-specific name the engine profile
// knows.
type counter struct {
	key, series string
}

// counters are the /metrics figures that say why a serving engine got
// slower: preemptions and KV-cache pressure (memory), running and waiting
// requests (batch size and queueing), the prefix-cache hit rate (work
// skipped), the tokens the engine processed (work done) and per engine
// step (batch fill), the speculative-decoding acceptance rate, and the engine's
// own latencies, which tell server time from client or network time.
var counters = []counter{
	{"vllm:num_preemptions_total.delta", "vllm:num_preemptions_total"},
	{"kv_cache_usage_perc.mean", "vllm:kv_cache_usage_perc"},
	{"kv_cache_usage_perc.max", "vllm:kv_cache_usage_perc"},
	{"num_requests_running.mean", "vllm:num_requests_running"},
	{"num_requests_waiting.mean", "vllm:num_requests_waiting"},
	{"prefix_cache_hit_rate", "vllm:prefix_cache_hits_total"},
	{"vllm:prompt_tokens_total.delta", "vllm:prompt_tokens_total"},
	{"vllm:generation_tokens_total.delta", "vllm:generation_tokens_total"},
	{"iteration_tokens.server_mean", "vllm:iteration_tokens_total"},
	{"spec_decode_acceptance_rate", "vllm:spec_decode_num_accepted_tokens_total"},
	{"queue_time_s.server_mean", "vllm:request_queue_time_seconds"},
	{"ttft_s.server_mean", "vllm:time_to_first_token_seconds"},
	{"tpot_s.server_mean", "vllm:request_time_per_output_token_seconds"},
	{"itl_s.server_mean", "vllm:inter_token_latency_seconds"},
	{"prefill_time_s.server_mean", "vllm:request_prefill_time_seconds"},
	{"decode_time_s.server_mean", "vllm:request_decode_time_seconds"},
}

// gaugeSeries are the canonical gauges an engine without vLLM's counters
// reports a rate with (gate/server/scrape reads them under these names).
var gaugeSeries = map[string]string{
	"prefix_cache_hit_rate":       "cache_hit_rate",
	"spec_decode_acceptance_rate": "spec_accept_rate",
}

// minFlagTrials is the fewest valid trials per arm for a flag: with three
// each, non-overlapping ranges happen by chance 1 time in 10; below that
// the chance is too high for a flag to mean anything.
const minFlagTrials = 3

// counterDeltas compares the server figures of both arms. A figure
// recorded by neither arm is left out.
func counterDeltas(base, cand *result.Result) []verdict.CounterDelta {
	if base == nil || cand == nil {
		return nil
	}
	prof, err := engine.Get(engine.Name(cand.Server.Engine))
	if err != nil {
		prof = engine.Must(engine.VLLM)
	}
	var out []verdict.CounterDelta
	for _, c := range counters {
		bv, cv := serverValues(base, c.key), serverValues(cand, c.key)
		if len(bv) == 0 && len(cv) == 0 {
			continue
		}
		d := verdict.CounterDelta{Key: c.key}
		if name, ok := prof.Metric(c.series); ok {
			d.Series = name
		} else if gauge, ok := gaugeSeries[c.key]; ok {
			if name, ok := prof.Metric(gauge); ok {
				d.Series = name
			}
		}
		d.Baseline, d.BaseMin, d.BaseMax = medianRange(bv)
		d.Candidate, d.CandMin, d.CandMax = medianRange(cv)
		if len(bv) >= minFlagTrials && len(cv) >= minFlagTrials {
			d.FalseFlag = 2 / binomial(len(bv)+len(cv), len(bv))
			d.Flagged = d.CandMin > d.BaseMax || d.CandMax < d.BaseMin
		}
		out = append(out, d)
	}
	return out
}

// serverValues is a figure over r's valid trials that recorded it.
func serverValues(r *result.Result, key string) []float64 {
	var out []float64
	for _, t := range r.ValidTrials() {
		if v, ok := t.Server[key]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// medianRange is the median, minimum and maximum of x (zeros when empty).
func medianRange(x []float64) (med, lo, hi float64) {
	if len(x) == 0 {
		return 0, 0, 0
	}
	lo, hi = x[0], x[0]
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return metrics.MedianOf(x), lo, hi
}

// binomial is C(n, k) as a float (exact for the trial counts of a gate).
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
