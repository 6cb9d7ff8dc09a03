package vllmbench

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/perfgate/perfgate/gate/metrics"
)

// Metric ids of offline engine benchmarks (`vllm bench latency` and
// `vllm bench throughput` with --output-json). They measure the engine
// without HTTP, so they get their own ids rather than the serving ones.
const (
	OfflineLatencyDist     = "offline_latency_ms" // + ".mean", ".p50", ...
	OfflineRequestsPerS    = "offline_requests_per_s"
	OfflineTokensPerS      = "offline_tokens_per_s"
	OfflineOutputTokensPer = "offline_output_tokens_per_s"
	OfflineElapsedS        = "offline_elapsed_s"
	OfflineRequests        = "offline_requests"
	OfflineTokens          = "offline_tokens"
)

// offlinePercentiles are the percentiles `vllm bench latency` writes.
var offlinePercentiles = []float64{10, 25, 50, 75, 90, 99}

func init() {
	metrics.Register(metrics.Metric{ID: metrics.ID(OfflineLatencyDist, "mean"), Unit: "ms", Direction: metrics.LowerIsBetter,
		Description: "mean latency of one batch in `vllm bench latency` (avg_latency)"})
	for _, p := range offlinePercentiles {
		stat := metrics.PercentileStat(p)
		metrics.Register(metrics.Metric{ID: metrics.ID(OfflineLatencyDist, stat), Unit: "ms", Direction: metrics.LowerIsBetter,
			Description: stat + " of the batch latency in `vllm bench latency`"})
	}
	for _, m := range []metrics.Metric{
		{ID: OfflineRequestsPerS, Unit: "req/s", Direction: metrics.HigherIsBetter, Description: "requests per second of `vllm bench throughput`"},
		{ID: OfflineTokensPerS, Unit: "tok/s", Direction: metrics.HigherIsBetter, Description: "prompt plus output tokens per second of `vllm bench throughput`"},
		{ID: OfflineOutputTokensPer, Unit: "tok/s", Direction: metrics.HigherIsBetter, Description: "output tokens per second of `vllm bench throughput` (newer versions)"},
		{ID: OfflineElapsedS, Unit: "s", Direction: metrics.Informational, Description: "elapsed time of `vllm bench throughput`"},
		{ID: OfflineRequests, Unit: "count", Direction: metrics.Informational, Description: "requests of `vllm bench throughput`"},
		{ID: OfflineTokens, Unit: "count", Direction: metrics.Informational, Description: "total tokens of `vllm bench throughput`"},
	} {
		metrics.Register(m)
	}
}

// ParseOffline reads the --output-json file of `vllm bench latency`
// (avg_latency and percentiles in seconds, converted to ms) or `vllm bench
// throughput` (requests_per_second, tokens_per_second, elapsed_time). It
// returns the values under the offline_* metric ids and notes about keys
// it dropped. A file with none of the known keys is an error: a gate on an
// empty trial would pass by default.
func ParseOffline(name string, data []byte) (map[string]float64, []string, error) {
	obj, err := decodePython(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	b := &Bench{Name: name}
	p := parser{b: b, obj: obj}
	v := map[string]float64{}
	if x, ok := p.metric("avg_latency"); ok && finite(x*1000) {
		v[metrics.ID(OfflineLatencyDist, "mean")] = x * 1000
	}
	if pct, ok := obj["percentiles"].(map[string]any); ok {
		keys := make([]string, 0, len(pct))
		for k := range pct {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			pv, err := strconv.ParseFloat(k, 64)
			id := metrics.ID(OfflineLatencyDist, metrics.PercentileStat(pv))
			if _, known := metrics.Lookup(id); err != nil || !known {
				b.note("%s: percentile %q has no metric id; left out", name, k)
				continue
			}
			x, ok := number(pct[k])
			if !ok || !finite(x*1000) || x < 0 {
				b.note("%s: percentile %q is not a finite latency; left out", name, k)
				continue
			}
			v[id] = x * 1000
		}
	}
	for _, m := range []struct{ key, id string }{
		{"requests_per_second", OfflineRequestsPerS},
		{"tokens_per_second", OfflineTokensPerS},
		{"output_tokens_per_second", OfflineOutputTokensPer},
		{"elapsed_time", OfflineElapsedS},
		{"num_requests", OfflineRequests},
		{"total_num_tokens", OfflineTokens},
	} {
		if x, ok := p.metric(m.key); ok {
			v[m.id] = x
		}
	}
	if x, ok := p.metric("elapsed_time_ms"); ok {
		if _, has := v[OfflineElapsedS]; !has {
			v[OfflineElapsedS] = x / 1000
		}
	}
	if len(v) == 0 {
		return nil, b.Notes, fmt.Errorf("%s: no known key of `vllm bench latency` (avg_latency, percentiles) or `vllm bench throughput` (requests_per_second, tokens_per_second)", name)
	}
	return v, b.Notes, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
