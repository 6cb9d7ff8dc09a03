package importers

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// GuideLLM is the tool name of ParseGuideLLM's runs.
const GuideLLM = "guidellm"

// guidellmPercentiles maps GuideLLM's percentile keys to perfgate's stats.
var guidellmPercentiles = map[string]string{
	"p001": "p0.1", "p01": "p1", "p05": "p5", "p10": "p10", "p25": "p25", "p50": "p50",
	"p75": "p75", "p90": "p90", "p95": "p95", "p99": "p99", "p999": "p99.9",
}

// guidellmDists maps GuideLLM's per-request distributions (their
// "successful" part) to perfgate's, with the factor to milliseconds.
// GuideLLM's inter_token_latency_ms is (last token - first token) /
// (output tokens - 1) per request: vLLM's and perfgate's TPOT. Its
// time_per_output_token_ms counts the first token in and has no perfgate
// counterpart; its request_latency is in seconds.
var guidellmDists = []struct {
	key, base string
	scale     float64
}{
	{"time_to_first_token_ms", "ttft_ms", 1},
	{"inter_token_latency_ms", "tpot_ms", 1},
	{"request_latency", "e2el_ms", 1000},
}

// guidellmLacks are the perfgate ids a GuideLLM report has no value for.
var guidellmLacks = []string{"itl_ms", "itl_token_ms", "client_queue_ms", "e2el_from_intended_ms", "max_output_tokens_per_s", "request_goodput"}

// ParseGuideLLM reads a GuideLLM report (benchmarks.json, written by
// `guidellm benchmark --output-path`): one Run per benchmark, each one
// load point of the report's profile. Both the current layout (config.
// strategy, metrics.request_totals, scheduler_metrics) and the earlier
// one (args.strategy, request_totals, run_stats) are read.
func ParseGuideLLM(name string, data []byte) ([]Run, error) {
	doc, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	benches := list(doc, "benchmarks")
	if benches == nil {
		return nil, fmt.Errorf("%s: no \"benchmarks\" list: not a GuideLLM report", name)
	}
	if len(benches) == 0 {
		return nil, fmt.Errorf("%s: the report holds no benchmarks", name)
	}
	var runs []Run
	for i, b := range benches {
		r, err := guidellmRun(fmt.Sprintf("%s benchmarks[%d]", name, i), doc, b)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func guidellmRun(src string, doc map[string]any, b any) (Run, error) {
	if _, ok := b.(map[string]any); !ok {
		return Run{}, fmt.Errorf("%s: not an object", src)
	}
	r := Run{Source: src, Tool: GuideLLM, Values: map[string]float64{}, Lacks: append([]string(nil), guidellmLacks...)}
	r.Model = firstString(str(doc, "args", "model"), str(b, "config", "backend", "model"), str(b, "worker", "backend_model"))
	strategy := get(b, "config", "strategy")
	if strategy == nil {
		strategy = get(b, "args", "strategy")
	}
	if err := r.guidellmShape(strategy); err != nil {
		return Run{}, fmt.Errorf("%s: %w", src, err)
	}
	totals := get(b, "metrics", "request_totals")
	if totals == nil {
		totals = get(b, "request_totals")
	}
	ok1, ok2 := false, false
	r.Completed, ok1 = count(totals, "successful")
	r.Failed, ok2 = count(totals, "errored")
	if !ok1 || !ok2 {
		return Run{}, fmt.Errorf("%s: request_totals has no whole successful and errored counts", src)
	}
	if inc, _ := count(totals, "incomplete"); inc > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %d requests were still running when the benchmark ended (GuideLLM's incomplete): not counted, as perfgate does not count requests cut off at the end", src, inc))
	}
	if d, ok := num(b, "duration"); ok && d > 0 {
		r.DurationS = d
	} else if s, ok := num(b, "start_time"); ok {
		if e, ok := num(b, "end_time"); ok && e > s {
			r.DurationS = e - s
		}
	}
	if limit := guidellmMaxRequests(doc, b); limit > 0 {
		r.Shape.NumPrompts = limit
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: no request limit recorded (a run bounded by time): the cell's request count is unknown and it can match no perfgate workload; run guidellm with --max-requests", src))
	}
	m := get(b, "metrics")
	for _, d := range guidellmDists {
		guidellmDist(r.Values, d.base, get(m, d.key, "successful"), d.scale)
	}
	in, inOK := num(m, "prompt_token_count", "successful", "total_sum")
	out, outOK := num(m, "output_token_count", "successful", "total_sum")
	setIf(r.Values, "total_input_tokens", in, inOK)
	setIf(r.Values, "total_output_tokens", out, outOK)
	if r.Completed > 0 {
		if x, ok := num(m, "prompt_token_count", "successful", "mean"); ok {
			r.Shape.MeanInputLen = int(math.Round(x))
		}
		if x, ok := num(m, "output_token_count", "successful", "mean"); ok {
			r.Shape.MeanOutputLen = int(math.Round(x))
		}
	}
	if r.DurationS > 0 {
		r.Values["request_throughput"] = float64(r.Completed) / r.DurationS
		if outOK {
			r.Values["output_throughput"] = out / r.DurationS
		}
		if inOK && outOK {
			r.Values["total_token_throughput"] = (in + out) / r.DurationS
		}
	}
	if c, ok := num(m, "request_concurrency", "successful", "max"); ok {
		r.Values["max_concurrent_requests"] = math.Round(c)
	}
	r.Shape.EndpointType = guidellmEndpoint(doc, b)
	r.guidellmRequests(get(b, "requests"))
	return r, nil
}

// guidellmShape reads the scheduling strategy: the load point.
func (r *Run) guidellmShape(s any) error {
	typ := str(s, "type_")
	r.Shape.RequestRate, r.Shape.Burstiness = math.Inf(1), 1
	switch typ {
	case "synchronous":
		r.Shape.MaxConcurrency, r.Label = 1, "sync"
	case "concurrent":
		n, ok := count(s, "streams")
		if !ok || n == 0 {
			return errors.New("concurrent strategy without a stream count")
		}
		r.Shape.MaxConcurrency, r.Label = n, fmt.Sprintf("c%d", n)
	case "throughput":
		if n, ok := count(s, "max_concurrency"); ok {
			r.Shape.MaxConcurrency = n
		}
		r.Label = "max"
	case "constant", "poisson":
		rate, ok := num(s, "rate")
		if !ok || !(rate > 0) {
			return fmt.Errorf("%s strategy without a positive rate", typ)
		}
		r.Shape.RequestRate = rate
		if typ == "constant" {
			r.Shape.Burstiness = math.Inf(1) // evenly spaced
		}
		r.Label = "rate" + result.FormatRate(rate)
	case "":
		return errors.New("no scheduling strategy (config.strategy.type_)")
	default:
		return fmt.Errorf("scheduling strategy %q: this perfgate reads synchronous, concurrent, throughput, constant and poisson", typ)
	}
	return nil
}

// guidellmDist maps one DistributionSummary onto base.<stat>.
func guidellmDist(v map[string]float64, base string, d any, scale float64) {
	if d == nil {
		return
	}
	if n, _ := num(d, "count"); n == 0 {
		return
	}
	for key, stat := range map[string]string{"mean": "mean", "median": "median", "std_dev": "std", "min": "min", "max": "max"} {
		x, ok := num(d, key)
		setIf(v, base+"."+stat, x*scale, ok)
	}
	for key, stat := range guidellmPercentiles {
		x, ok := num(d, "percentiles", key)
		setIf(v, base+"."+stat, x*scale, ok)
	}
}

// guidellmEndpoint finds the request type ("text_completions",
// "chat_completions") wherever the report's version put it.
func guidellmEndpoint(doc map[string]any, b any) string {
	return firstString(str(doc, "args", "request_type"), str(doc, "args", "request_format"),
		str(b, "config", "backend", "request_type"), str(b, "config", "requests", "request_type"),
		str(b, "request_loader", "request_type"))
}

// guidellmRequests keeps the per-request records (GuideLLM keeps a sample
// of each status) and counts errored requests by their error.
func (r *Run) guidellmRequests(reqs any) {
	for _, q := range list(reqs, "successful") {
		rec := Request{Success: true}
		rec.TTFTms, _ = num(q, "time_to_first_token_ms")
		if l, ok := num(q, "request_latency"); ok {
			rec.E2ELms = 1000 * l
		}
		rec.TPOTms, _ = num(q, "inter_token_latency_ms")
		rec.InputTokens, _ = count(q, "prompt_tokens")
		rec.OutputTokens, _ = count(q, "output_tokens")
		r.Requests = append(r.Requests, rec)
	}
	for _, q := range list(reqs, "errored") {
		r.Requests = append(r.Requests, Request{})
		msg := firstString(str(q, "info", "error"), str(q, "error"))
		if r.Errors == nil {
			r.Errors, r.ErrorSamples = map[string]int{}, map[string]string{}
		}
		r.Errors["guidellm"]++
		if _, ok := r.ErrorSamples["guidellm"]; !ok && msg != "" {
			r.ErrorSamples["guidellm"] = clipText(msg, 500)
		}
	}
	if r.Failed > 0 {
		// The file keeps a sample of errored requests, if any; the count
		// is request_totals'.
		if r.Errors == nil {
			r.Errors = map[string]int{}
		}
		r.Errors["guidellm"] = r.Failed
	}
}

// guidellmMaxRequests is the run's request limit: a max_number constraint
// of the benchmark's config (keyed as the user wrote it: max_number,
// max_requests, ...), else the report's --max-requests, else the earlier
// layout's args.max_number; 0 when the run was bounded by time only.
func guidellmMaxRequests(doc map[string]any, b any) int {
	if cs, ok := get(b, "config", "constraints").(map[string]any); ok {
		for _, c := range cs {
			if str(c, "type_") == "max_number" {
				if n, ok := count(c, "max_num"); ok {
					return n
				}
			}
		}
	}
	for _, path := range [][]string{{"args", "max_requests"}, {"args", "max_number"}} {
		src := any(doc)
		if path[1] == "max_number" {
			src = b
		}
		if n, ok := count(src, path...); ok {
			return n
		}
	}
	return 0
}

func firstString(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
