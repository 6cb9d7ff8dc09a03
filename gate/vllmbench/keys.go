// Package vllmbench converts between `vllm bench serve --save-result` JSON
// files and perfgate result files, so teams can gate the benchmark files
// they already have and keep dashboards that read vLLM's format.
//
// Each vLLM file is one trial. Latency keys map to metric ids as
// mean_ttft_ms -> "ttft_ms.mean", median_tpot_ms -> "tpot_ms.median",
// p99.9_itl_ms -> "itl_ms.p99.9", std_e2el_ms -> "e2el_ms.std".
package vllmbench

import "regexp"

// distributions maps vLLM's metric names (the middle of "mean_<m>_ms") to
// perfgate distribution names.
var distributions = []struct{ vllm, dist string }{
	{"ttft", "ttft_ms"},
	{"tpot", "tpot_ms"},
	{"itl", "itl_ms"},
	{"e2el", "e2el_ms"},
}

// latencyKey matches a per-distribution statistic key: mean_ttft_ms,
// median_itl_ms, std_tpot_ms, p99_e2el_ms, p99.9_ttft_ms.
var latencyKey = regexp.MustCompile(`^(mean|median|std|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el)_ms$`)

// scalarKeys maps top-level vLLM keys holding per-trial scalars to metric
// ids. "request_goodput:" is the key (with its stray colon) that vLLM's
// benchmark_serving.py wrote before the key was fixed.
var scalarKeys = []struct{ key, id string }{
	{"duration", "duration_s"},
	{"completed", "completed"},
	{"failed", "failed"},
	{"total_input_tokens", "total_input_tokens"},
	{"total_output_tokens", "total_output_tokens"},
	{"request_throughput", "request_throughput"},
	{"request_goodput", "request_goodput"},
	{"request_goodput:", "request_goodput"},
	{"output_throughput", "output_throughput"},
	{"total_token_throughput", "total_token_throughput"},
	{"max_output_tokens_per_s", "max_output_tokens_per_s"},
	{"max_concurrent_requests", "max_concurrent_requests"},
}

// knownKeys are the top-level keys vLLM writes that are neither metrics nor
// --metadata, and the keys of scalarKeys. Any other key with a string
// value is treated as metadata (`--metadata k=v` adds string values at the
// top level).
var knownKeys = func() map[string]bool {
	m := map[string]bool{
		"date": true, "backend": true, "endpoint_type": true, "label": true,
		"model_id": true, "tokenizer_id": true, "num_prompts": true,
		"request_rate": true, "burstiness": true, "max_concurrency": true,
		"ramp_up_strategy": true, "ramp_up_start_rps": true, "ramp_up_end_rps": true,
		"best_of": true, "use_beam_search": true,
		"input_lens": true, "output_lens": true, "ttfts": true, "itls": true,
		"start_times": true, "generated_texts": true, "errors": true,
	}
	for _, s := range scalarKeys {
		m[s.key] = true
	}
	return m
}()
