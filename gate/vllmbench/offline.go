package vllmbench

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/gate/metrics"
)

// ParseOffline reads the --output-json file of `vllm bench latency`
// (avg_latency and percentiles in seconds, converted to ms) or `vllm bench
// throughput` (requests_per_second, tokens_per_second, elapsed_time). It
// returns the values under the offline_* metric ids (metrics.Offline) and notes about keys
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
		v[metrics.ID{Base: metrics.OfflineLatencyDist, Stat: metrics.Mean}.String()] = x * 1000
	}
	if pct, ok := obj["percentiles"].(map[string]any); ok {
		keys := slices.Sorted(maps.Keys(pct))
		for _, k := range keys {
			pv, err := strconv.ParseFloat(k, 64)
			id := metrics.ID{Base: metrics.OfflineLatencyDist, Stat: metrics.Pct(pv)}.String()
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
		{"requests_per_second", metrics.OfflineRequestsPerS},
		{"tokens_per_second", metrics.OfflineTokensPerS},
		{"output_tokens_per_second", metrics.OfflineOutputTokensPer},
		{"elapsed_time", metrics.OfflineElapsedS},
		{"num_requests", metrics.OfflineRequests},
		{"total_num_tokens", metrics.OfflineTokens},
	} {
		if x, ok := p.metric(m.key); ok {
			v[m.id] = x
		}
	}
	if x, ok := p.metric("elapsed_time_ms"); ok {
		if _, has := v[metrics.OfflineElapsedS]; !has {
			v[metrics.OfflineElapsedS] = x / 1000
		}
	}
	if len(v) == 0 {
		return nil, b.Notes, fmt.Errorf("%s: no known key of `vllm bench latency` (avg_latency, percentiles) or `vllm bench throughput` (requests_per_second, tokens_per_second)", name)
	}
	return v, b.Notes, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
