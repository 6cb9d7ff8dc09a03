// Package scrape reads a server's Prometheus /metrics around each trial,
// so a regression can be explained with the server's own counters:
// preemptions, KV cache pressure, queueing, and server-side latencies next
// to the client's. It understands both the current vLLM metric names and
// the ones older vLLM versions exposed, and the other engines' names for
// the same quantities (SGLang's sglang:num_running_reqs is
// vllm:num_requests_running; see gate/engine), so the report's server
// context reads alike whatever the engine.
package scrape

import (
	"fmt"
	"io"
	"math"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/perfgate/perfgate/gate/engine"
)

// Snapshot is one scrape reduced to the series perfgate reads, keyed by
// canonical (current vLLM) names. Series with several label sets (several
// engines with data parallelism, several finish reasons) are combined:
// counters, histogram sums and counts and request gauges add up; the KV
// cache usage is the highest engine's.
type Snapshot struct {
	Counters   map[string]float64
	Gauges     map[string]float64
	Histograms map[string]Hist
}

// Hist is a histogram's running sum and count.
type Hist struct{ Sum, Count float64 }

// series maps a canonical name to the names vLLM versions used for it,
// newest first.
type series struct {
	canonical string
	names     []string
}

// Counters perfgate reads. Old vLLM (v0 engine) prefixed prefix-cache
// counters with gpu_.
var counterSeries = withAliases([]series{
	{"vllm:num_preemptions_total", []string{"vllm:num_preemptions_total", "vllm:num_preemptions"}},
	{"vllm:prompt_tokens_total", []string{"vllm:prompt_tokens_total", "vllm:prompt_tokens"}},
	{"vllm:generation_tokens_total", []string{"vllm:generation_tokens_total", "vllm:generation_tokens"}},
	{"vllm:prefix_cache_queries_total", []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"}},
	{"vllm:prefix_cache_hits_total", []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"}},
	{"vllm:request_success_total", []string{"vllm:request_success_total", "vllm:request_success"}},
	// Speculative decoding: drafted and accepted tokens, whose ratio is
	// the acceptance rate (a drop makes every decode step yield fewer
	// tokens).
	{"vllm:spec_decode_num_draft_tokens_total", []string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_draft_tokens"}},
	{"vllm:spec_decode_num_accepted_tokens_total", []string{"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens"}},
})

// Gauges sampled during a trial. KV cache usage was gpu_cache_usage_perc
// before the v1 engine; both are fractions (0..1) despite "perc".
var gaugeSeries = withAliases([]series{
	{"vllm:num_requests_running", []string{"vllm:num_requests_running"}},
	{"vllm:num_requests_waiting", []string{"vllm:num_requests_waiting"}},
	{"vllm:kv_cache_usage_perc", []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}},
	// Only other engines report a hit-rate gauge (vLLM has counters).
	{gaugeHitRate, nil},
	// Likewise the speculative-decoding acceptance rate (SGLang's is a
	// gauge averaged per logging interval).
	{gaugeSpecRate, nil},
})

// Histograms whose per-trial mean is recorded. The old
// time_per_output_token_seconds observed every gap between tokens, which is
// today's inter_token_latency_seconds.
var histSeries = withAliases([]series{
	{"vllm:time_to_first_token_seconds", []string{"vllm:time_to_first_token_seconds"}},
	{"vllm:inter_token_latency_seconds", []string{"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"}},
	{"vllm:request_time_per_output_token_seconds", []string{"vllm:request_time_per_output_token_seconds"}},
	{"vllm:e2e_request_latency_seconds", []string{"vllm:e2e_request_latency_seconds"}},
	{"vllm:request_queue_time_seconds", []string{"vllm:request_queue_time_seconds"}},
	{"vllm:request_prefill_time_seconds", []string{"vllm:request_prefill_time_seconds"}},
	{"vllm:request_decode_time_seconds", []string{"vllm:request_decode_time_seconds"}},
	// Tokens per engine step (a histogram despite its _total suffix):
	// its mean says how full the batches were.
	{"vllm:iteration_tokens_total", []string{"vllm:iteration_tokens_total"}},
})

// maxGauges are combined by maximum over label sets, not by sum.
var maxGauges = map[string]bool{"vllm:kv_cache_usage_perc": true}

// withAliases appends every engine profile's name for each canonical
// series (engine.MetricAliases) after vLLM's own, which win when a server
// exposes both.
func withAliases(list []series) []series {
	out := make([]series, len(list))
	for i, sr := range list {
		out[i] = series{sr.canonical, append(append([]string(nil), sr.names...), engine.MetricAliases(sr.canonical)...)}
	}
	return out
}

// gaugeHitRate is the canonical name of a prefix-cache hit rate an engine
// reports as a gauge (SGLang's sglang:cache_hit_rate), where vLLM has
// query and hit counters.
const gaugeHitRate = "cache_hit_rate"

// gaugeSpecRate is the canonical name of a speculative-decoding
// acceptance rate an engine reports as a gauge (SGLang's
// sglang:spec_accept_rate), where vLLM has drafted and accepted counters.
const gaugeSpecRate = "spec_accept_rate"

// Parse reads Prometheus text exposition (format 0.0.4) from r. Series
// perfgate does not know are ignored; a malformed exposition is an error
// naming the line.
func Parse(r io.Reader) (Snapshot, error) {
	// expfmt v0.73 refuses to parse with an unset validation scheme;
	// UTF-8 accepts every legacy name too (vLLM's contain ':').
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("/metrics: %w", err)
	}
	s := Snapshot{Counters: map[string]float64{}, Gauges: map[string]float64{}, Histograms: map[string]Hist{}}
	for _, sr := range counterSeries {
		if mf := find(families, sr.names); mf != nil {
			if v, ok := combine(mf, false); ok {
				s.Counters[sr.canonical] = v
			}
		}
	}
	for _, sr := range gaugeSeries {
		if mf := find(families, sr.names); mf != nil {
			if v, ok := combine(mf, maxGauges[sr.canonical]); ok {
				s.Gauges[sr.canonical] = v
			}
		}
	}
	for _, sr := range histSeries {
		if mf := find(families, sr.names); mf != nil && mf.GetType() == dto.MetricType_HISTOGRAM {
			var h Hist
			for _, m := range mf.GetMetric() {
				h.Sum += m.GetHistogram().GetSampleSum()
				h.Count += float64(m.GetHistogram().GetSampleCount())
			}
			if finite(h.Sum) && finite(h.Count) {
				s.Histograms[sr.canonical] = h
			}
		}
	}
	return s, nil
}

// find returns the first family present under one of names.
func find(families map[string]*dto.MetricFamily, names []string) *dto.MetricFamily {
	for _, n := range names {
		if mf, ok := families[n]; ok {
			return mf
		}
	}
	return nil
}

// combine adds (or takes the maximum of) a family's values over its label
// sets. Counters, gauges and untyped series (a TYPE line the parser could
// not tie to the sample name) are read alike. Non-finite values are
// skipped: a NaN gauge carries no information.
func combine(mf *dto.MetricFamily, useMax bool) (float64, bool) {
	var out float64
	found := false
	for _, m := range mf.GetMetric() {
		var v float64
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		default:
			continue
		}
		if !finite(v) {
			continue
		}
		switch {
		case !found:
			out = v
		case useMax:
			out = math.Max(out, v)
		default:
			out += v
		}
		found = true
	}
	return out, found
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
