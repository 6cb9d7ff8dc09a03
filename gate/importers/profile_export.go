package importers

import (
	"fmt"
	"math"
	"strings"
)

// The tool names of ParseProfileExport's runs.
const (
	GenAIPerf = "genai-perf"
	AIPerf    = "aiperf"
)

// profileStats maps a profile export's statistic keys to perfgate's. The
// exports have no median: numpy's median is the 50th percentile, so p50
// gives both (as for vLLM's files).
var profileStats = map[string][]string{
	"avg": {"mean"}, "std": {"std"}, "min": {"min"}, "max": {"max"},
	"p1": {"p1"}, "p5": {"p5"}, "p10": {"p10"}, "p25": {"p25"}, "p50": {"p50", "median"},
	"p75": {"p75"}, "p90": {"p90"}, "p95": {"p95"}, "p99": {"p99"},
}

// profileDists maps the exports' per-request distributions onto
// perfgate's. inter_token_latency is (request latency - TTFT) / (output
// tokens - 1) per request in both tools: perfgate's TPOT.
// inter_chunk_latency (AIPerf) pools the gaps between chunks: perfgate's
// ITL.
var profileDists = []struct{ key, base string }{
	{"time_to_first_token", "ttft_ms"},
	{"inter_token_latency", "tpot_ms"},
	{"inter_chunk_latency", "itl_ms"},
	{"request_latency", "e2el_ms"},
}

// ParseProfileExportWithRaw is ParseProfileExport with the tool's
// per-request export, named rawName, when the caller found one beside the
// summary: GenAI-Perf's profile_export.json (perf_analyzer's format: its
// records are kept and give itl_ms, which the summary lacks) or AIPerf's
// profile_export.jsonl (its records are kept and fill any statistic the
// summary lacks).
func ParseProfileExportWithRaw(name string, data []byte, rawName string, raw []byte) ([]Run, error) {
	runs, err := parseProfileExport(name, data)
	if err != nil || raw == nil {
		return runs, err
	}
	if runs[0].Tool == AIPerf {
		recs, err := aiperfRecords(rawName, raw)
		if err != nil {
			return nil, err
		}
		runs[0].Requests = recs
		return runs, nil
	}
	if err := runs[0].withRawExport(rawName, raw); err != nil {
		return nil, err
	}
	return runs, nil
}

func parseProfileExport(name string, data []byte) ([]Run, error) {
	doc, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	if _, ok := doc["request_latency"]; !ok {
		if _, ok := doc["time_to_first_token"]; !ok {
			return nil, fmt.Errorf("%s: neither request_latency nor time_to_first_token: not a GenAI-Perf or AIPerf profile export", name)
		}
	}
	r := Run{Source: name, Tool: GenAIPerf, Values: map[string]float64{}}
	cfg := get(doc, "input_config")
	if _, ok := doc["aiperf_version"]; ok || get(cfg, "endpoint") != nil || get(cfg, "loadgen") != nil {
		r.Tool = AIPerf
	}
	for _, d := range profileDists {
		m := get(doc, d.key)
		if m == nil {
			r.Lacks = append(r.Lacks, d.base)
			continue
		}
		scale, err := toMillis(str(m, "unit"))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, d.key, err)
		}
		for key, stats := range profileStats {
			x, ok := num(m, key)
			for _, st := range stats {
				setIf(r.Values, d.base+"."+st, x*scale, ok)
			}
		}
	}
	avg := func(key string) (float64, bool) { return num(doc, key, "avg") }
	x, ok := avg("request_throughput")
	setIf(r.Values, "request_throughput", x, ok)
	x, ok = avg("output_token_throughput")
	setIf(r.Values, "output_throughput", x, ok)
	x, ok = avg("goodput")
	setIf(r.Values, "request_goodput", x, ok)
	if n, ok := avg("request_count"); ok && n >= 0 && n == math.Trunc(n) {
		r.Completed = int(n)
	} else {
		return nil, fmt.Errorf("%s: request_count.avg is not a whole count", name)
	}
	if n, ok := avg("error_request_count"); ok && n >= 0 && n == math.Trunc(n) {
		r.Failed = int(n)
	}
	if d, ok := avg("benchmark_duration"); ok && d > 0 {
		scale, err := toMillis(str(doc, "benchmark_duration", "unit"))
		if err != nil {
			return nil, fmt.Errorf("%s: benchmark_duration: %w", name, err)
		}
		r.DurationS = d * scale / 1000
	}
	isl, islOK := avg("input_sequence_length")
	osl, oslOK := avg("output_sequence_length")
	if islOK {
		r.Shape.MeanInputLen = int(math.Round(isl))
	}
	if oslOK {
		r.Shape.MeanOutputLen = int(math.Round(osl))
	}
	if t, ok := avg("total_isl"); ok {
		r.Values["total_input_tokens"] = t
	}
	if t, ok := avg("total_osl"); ok {
		r.Values["total_output_tokens"] = t
	}
	if rt, ok := r.Values["request_throughput"]; ok && islOK && oslOK {
		r.Values["total_token_throughput"] = rt * (isl + osl)
	}
	r.Lacks = append(r.Lacks, "itl_token_ms", "client_queue_ms", "e2el_from_intended_ms", "max_output_tokens_per_s")
	if r.Failed > 0 {
		r.Errors = map[string]int{r.Tool: r.Failed}
		if es := list(doc, "error_summary"); len(es) > 0 {
			r.ErrorSamples = map[string]string{r.Tool: clipText(firstString(str(es[0], "error_details", "message"), str(es[0], "error_details", "type")), 500)}
		}
	}
	r.profileShape(cfg)
	if r.Shape.NumPrompts == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: no request count in input_config (a run bounded by time): the cell can match no perfgate workload; set --request-count", name))
	}
	return []Run{r}, nil
}

// profileShape reads the load point from input_config.
func (r *Run) profileShape(cfg any) {
	r.Shape.RequestRate, r.Shape.Burstiness = math.Inf(1), 1
	pick := func(paths ...[]string) any {
		for _, p := range paths {
			if v := get(cfg, p...); v != nil {
				return v
			}
		}
		return nil
	}
	if n, ok := num(pick([]string{"loadgen", "concurrency"}, []string{"concurrency"})); ok && n > 0 && n == math.Trunc(n) {
		r.Shape.MaxConcurrency = int(n)
		r.Label = fmt.Sprintf("c%d", int(n))
	}
	if rate, ok := num(pick([]string{"loadgen", "request_rate"}, []string{"request_rate"})); ok && rate > 0 {
		r.Shape.RequestRate = rate
		r.Label = "rate" + strings.TrimSuffix(fmt.Sprintf("%g", rate), ".0")
		if strings.Contains(strings.ToLower(str(cfg, "loadgen", "request_rate_mode")), "constant") {
			r.Shape.Burstiness = math.Inf(1)
		}
	}
	if n, ok := num(pick([]string{"loadgen", "request_count"}, []string{"request_count"}, []string{"num_prompts"})); ok && n > 0 && n == math.Trunc(n) {
		r.Shape.NumPrompts = int(n)
	}
	r.Shape.EndpointType = firstString(str(cfg, "endpoint", "type"), str(cfg, "endpoint_type"))
	if models, ok := pick([]string{"endpoint", "model_names"}, []string{"model"}).([]any); ok && len(models) > 0 {
		r.Model, _ = models[0].(string)
	} else {
		r.Model = firstString(str(cfg, "model"))
	}
}

// toMillis is the factor from a profile export's time unit to ms.
func toMillis(unit string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "ms", "milliseconds":
		return 1, nil
	case "s", "sec", "seconds":
		return 1000, nil
	case "us", "µs", "microseconds":
		return 1e-3, nil
	case "ns", "nanoseconds":
		return 1e-6, nil
	}
	return 0, fmt.Errorf("time unit %q: want ms, s, us or ns", unit)
}
