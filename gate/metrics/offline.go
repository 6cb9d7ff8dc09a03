package metrics

// Metric ids of offline engine benchmarks (`vllm bench latency` and `vllm
// bench throughput` with --output-json, run by command workloads). They
// measure the engine without HTTP, so they get their own ids rather than
// the serving ones. They are part of the catalogue, not registered by the
// package that parses the files, so a workload gating one is valid
// wherever it is parsed.
const (
	OfflineLatencyDist     = "offline_latency_ms" // + ".mean", ".p50", ...
	OfflineRequestsPerS    = "offline_requests_per_s"
	OfflineTokensPerS      = "offline_tokens_per_s"
	OfflineOutputTokensPer = "offline_output_tokens_per_s"
	OfflineElapsedS        = "offline_elapsed_s"
	OfflineRequests        = "offline_requests"
	OfflineTokens          = "offline_tokens"
)

// OfflinePercentiles are the percentiles `vllm bench latency` writes.
var OfflinePercentiles = []float64{10, 25, 50, 75, 90, 99}

// Offline lists the offline benchmark metrics, in report order.
var Offline = func() []Metric {
	lat := ID{OfflineLatencyDist, Mean}.String()
	out := []Metric{{lat, "ms", LowerIsBetter, "mean latency of one batch in `vllm bench latency` (avg_latency)"}}
	for _, p := range OfflinePercentiles {
		id := ID{OfflineLatencyDist, Pct(p)}
		out = append(out, Metric{id.String(), "ms", LowerIsBetter, id.Stat.String() + " of the batch latency in `vllm bench latency`"})
	}
	return append(out,
		Metric{OfflineRequestsPerS, "req/s", HigherIsBetter, "requests per second of `vllm bench throughput`"},
		Metric{OfflineTokensPerS, "tok/s", HigherIsBetter, "prompt plus output tokens per second of `vllm bench throughput`"},
		Metric{OfflineOutputTokensPer, "tok/s", HigherIsBetter, "output tokens per second of `vllm bench throughput` (newer versions)"},
		Metric{OfflineElapsedS, "s", Informational, "elapsed time of `vllm bench throughput`"},
		Metric{OfflineRequests, "count", Informational, "requests of `vllm bench throughput`"},
		Metric{OfflineTokens, "count", Informational, "total tokens of `vllm bench throughput`"},
	)
}()

var offlineByID = func() map[string]Metric {
	m := make(map[string]Metric, len(Offline))
	for _, o := range Offline {
		m[o.ID] = o
	}
	return m
}()
