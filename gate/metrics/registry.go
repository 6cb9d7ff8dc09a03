// Package metrics defines perfgate's metric catalogue: every metric id a
// result file may carry, its unit, and which direction is better. Verdicts,
// reports and importers look metrics up here, so a direction is declared
// exactly once (a latency declared higher-is-better would turn the gate into
// a no-op; see docs/statistics.md).
//
// Metric ids are flat strings:
//
//   - "<distribution>.<stat>" for per-request distributions, e.g. "ttft_ms.p99",
//     "tpot_ms.median", "itl_ms.p99.9". Stats are mean, median, std, min, max and
//     percentiles written "p" + the number as vLLM writes it (p50, p99, p99.9);
//     ParseID and ParseStat are the one reader of that spelling.
//   - a plain name for per-trial scalars, e.g. "output_throughput", "qpm".
//   - the offline_* ids of `vllm bench latency` and `vllm bench throughput`
//     (see Offline).
//
// The catalogue is fixed at compile time: no other package registers ids.
package metrics

import "fmt"

// Direction says which way a metric gets better.
type Direction int

const (
	// Informational metrics are reported but never gated (counts, peaks).
	Informational Direction = iota
	// LowerIsBetter: latencies, failures.
	LowerIsBetter
	// HigherIsBetter: throughputs, success rate, goodput.
	HigherIsBetter
)

func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower-is-better"
	case HigherIsBetter:
		return "higher-is-better"
	}
	return "informational"
}

// Metric describes one metric id.
type Metric struct {
	ID          string
	Unit        string // "ms", "req/s", "tok/s", "req/min", "tok/min", "ratio", "count"
	Direction   Direction
	Description string
}

// Distribution is a per-request latency distribution summarised per trial.
type Distribution struct {
	Name        string // e.g. "ttft_ms"
	Label       string // short human label, e.g. "TTFT"
	Description string
}

// Distributions lists the per-request distributions, in report order.
var Distributions = []Distribution{
	{"ttft_ms", "TTFT", "time to first token: from the request's actual send to the first token message"},
	{"tpot_ms", "TPOT", "time per output token after the first: (e2el - ttft) / (output_tokens - 1), per request with more than one output token"},
	{"itl_ms", "ITL", "inter-token latency as vLLM reports it: gaps between token messages (chunks), pooled over requests"},
	{"itl_token_ms", "ITL/token", "inter-token latency per token: each chunk gap divided by the tokens the chunk carried"},
	{"e2el_ms", "E2EL", "end-to-end latency: from the actual send to the last token message"},
	{"client_queue_ms", "client queue", "time a request waited for a concurrency slot between its intended and actual send"},
	{"e2el_from_intended_ms", "E2EL (intended)", "end-to-end latency from the intended send time (free of coordinated omission)"},
}

// Stats are the statistics recorded for every distribution, in report
// order. A percentile outside this list is a valid id (imported vLLM files
// may carry p25 or p99.99); a perfgate run records it only when the
// workload's metric_percentiles asks for it (Accumulator.Percentiles).
var Stats = []Stat{Mean, Median, Std, Pct(50), Pct(90), Pct(95), Pct(99), Pct(99.9), Min, Max}

// Scalars lists the per-trial scalar metrics, in report order.
var Scalars = []Metric{
	{"request_throughput", "req/s", HigherIsBetter, "completed requests per second of benchmark duration"},
	{"output_throughput", "tok/s", HigherIsBetter, "output tokens of successful requests per second"},
	{"total_token_throughput", "tok/s", HigherIsBetter, "input plus output tokens of successful requests per second"},
	{"qpm", "req/min", HigherIsBetter, "60 x request_throughput"},
	{"tpm", "tok/min", HigherIsBetter, "60 x total_token_throughput"},
	{"request_goodput", "req/s", HigherIsBetter, "successful requests meeting every SLO of the workload, per second"},
	{"goodput_ratio", "ratio", HigherIsBetter, "share of all requests that succeeded and met every SLO"},
	{"success_rate", "ratio", HigherIsBetter, "completed / (completed + failed)"},
	{"output_throughput_per_gpu", "tok/s", HigherIsBetter, "output_throughput divided by the GPUs the server uses"},
	{"total_token_throughput_per_gpu", "tok/s", HigherIsBetter, "total_token_throughput divided by the GPUs the server uses"},
	{"max_output_tokens_per_s", "tok/s", Informational, "peak token messages in any 1-second bin (vLLM's definition; counts chunks)"},
	{"max_concurrent_requests", "count", Informational, "peak number of requests in flight"},
	{"completed", "count", Informational, "successful requests"},
	{"failed", "count", LowerIsBetter, "failed requests"},
	{"total_input_tokens", "count", Informational, "prompt tokens of successful requests"},
	{"total_output_tokens", "count", Informational, "output tokens of successful requests"},
	{"duration_s", "s", Informational, "benchmark duration: first dispatch to last completion"},
	{"dispatch_lag_ms.p99", "ms", Informational, "p99 of the client's lateness in dispatching requests (client health, not server speed)"},
	// A kind: capacity trial (one search, package gate/capacity) carries
	// these instead of the serving metrics.
	{"capacity_rps", "req/s", HigherIsBetter, "largest request rate at which the goodput share stays at the workload's target (kind: capacity)"},
	{"capacity_concurrency", "count", HigherIsBetter, "largest concurrency at which the goodput share stays at the workload's target (kind: capacity, over: concurrency)"},
	{"saturation_throughput", "req/s", HigherIsBetter, "request throughput of the unlimited-rate probe, vLLM's --request-rate inf (kind: capacity)"},
	{"capacity_probes", "count", Informational, "probes one capacity search ran, the saturation probe included"},
}

var scalarByID = func() map[string]Metric {
	m := make(map[string]Metric, len(Scalars))
	for _, s := range Scalars {
		m[s.ID] = s
	}
	return m
}()

var distByName = func() map[string]Distribution {
	m := make(map[string]Distribution, len(Distributions))
	for _, d := range Distributions {
		m[d.Name] = d
	}
	return m
}()

// Lookup returns the metric for id. Any percentile of a known distribution
// is a valid id (imported vLLM files may carry p25 or p99.99).
func Lookup(id string) (Metric, bool) {
	if m, ok := scalarByID[id]; ok {
		return m, true
	}
	if m, ok := offlineByID[id]; ok {
		return m, true
	}
	pid, ok := ParseID(id)
	if !ok {
		return Metric{}, false
	}
	d := distByName[pid.Base]
	return Metric{
		ID:          id,
		Unit:        "ms",
		Direction:   LowerIsBetter,
		Description: fmt.Sprintf("%s of %s", pid.Stat, d.Description),
	}, true
}

// MustLookup is Lookup for ids known at compile time.
func MustLookup(id string) Metric {
	m, ok := Lookup(id)
	if !ok {
		panic("metrics: unknown metric id " + id)
	}
	return m
}

// Recorded reports whether a result that perfgate measured or ran can
// carry metric id: every scalar and offline id, and of the distributions
// only the statistics of Stats. A gate rule on any other id (tpot_ms.p75)
// would never find its metric, so workload files refuse it unless their
// metric_percentiles record it (RecordedWith).
func Recorded(id string) bool {
	pid, ok := ParseID(id)
	if !ok {
		_, known := Lookup(id)
		return known
	}
	for _, s := range Stats {
		if s == pid.Stat {
			return true
		}
	}
	return false
}

// RecordedWith is Recorded for a workload that also records the
// percentiles extra (its metric_percentiles, vLLM's --metric-percentiles):
// tpot_ms.p75 is recorded when extra holds 75, and refused otherwise.
func RecordedWith(id string, extra []float64) bool {
	if Recorded(id) {
		return true
	}
	pid, ok := ParseID(id)
	if !ok {
		return false
	}
	for _, p := range extra {
		if Pct(p) == pid.Stat {
			return true
		}
	}
	return false
}

// Label is a short human name for id: "TTFT p99", "output_throughput".
func Label(id string) string {
	if pid, ok := ParseID(id); ok {
		return distByName[pid.Base].Label + " " + pid.Stat.String()
	}
	return id
}

// All returns every id of the fixed catalogue (distributions x Stats, then
// scalars, then the offline benchmark ids), in report order.
func All() []string {
	var ids []string
	for _, d := range Distributions {
		for _, s := range Stats {
			ids = append(ids, ID{d.Name, s}.String())
		}
	}
	for _, s := range Scalars {
		ids = append(ids, s.ID)
	}
	for _, m := range Offline {
		ids = append(ids, m.ID)
	}
	return ids
}
