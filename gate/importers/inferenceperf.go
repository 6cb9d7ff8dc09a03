package importers

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// InferencePerf is the tool name of ParseInferencePerf's runs.
const InferencePerf = "inference-perf"

// inferencePerfDists maps inference-perf's latency summaries (seconds) onto
// perfgate's distributions. time_per_output_token is (last token - first
// token) / (output tokens - 1) per request: perfgate's TPOT.
// inter_token_latency pools the gaps between output tokens; with one token
// per chunk (vLLM's default stream) those are perfgate's ITL.
var inferencePerfDists = []struct{ key, base string }{
	{"time_to_first_token", "ttft_ms"},
	{"time_per_output_token", "tpot_ms"},
	{"inter_token_latency", "itl_ms"},
	{"request_latency", "e2el_ms"},
}

// inferencePerfConfig is what the run's config.yaml (written next to the
// reports) says about the load point's endpoint, arrival process and model.
type inferencePerfConfig struct {
	API struct {
		Type string `yaml:"type"`
	} `yaml:"api"`
	Load struct {
		Type string `yaml:"type"`
	} `yaml:"load"`
	Server struct {
		ModelName string `yaml:"model_name"`
	} `yaml:"server"`
}

// ParseInferencePerf reads an inference-perf lifecycle report: a
// stage_N_lifecycle_metrics.json (one load stage, one run) or
// summary_lifecycle_metrics.json (every stage together; its load point is
// not one rate, so it matches no native workload). config is the run's
// config.yaml when the caller found one (nil otherwise): it names the API
// (completion or chat), the arrival process (constant or poisson) and the
// model, none of which the report itself records.
func ParseInferencePerf(name string, data, config []byte) ([]Run, error) {
	doc, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	succ, load := get(doc, "successes"), get(doc, "load_summary")
	if succ == nil || load == nil {
		return nil, fmt.Errorf("%s: no successes or load_summary: not an inference-perf lifecycle report", name)
	}
	r := Run{Source: name, Tool: InferencePerf, Values: map[string]float64{}}
	var ok bool
	if r.Completed, ok = count(succ, "count"); !ok {
		return nil, fmt.Errorf("%s: successes.count is not a whole count", name)
	}
	r.Failed, _ = count(doc, "failures", "count")
	if d, ok := num(doc, "benchmark_time_seconds"); ok && d > 0 {
		r.DurationS = d
	}
	for _, d := range inferencePerfDists {
		s := get(succ, "latency", d.key)
		if s == nil {
			r.Lacks = append(r.Lacks, d.base)
			continue
		}
		m, _ := s.(map[string]any)
		for key := range m {
			stat := key
			switch {
			case key == "mean" || key == "min" || key == "max" || key == "median":
			case strings.HasPrefix(key, "p"):
			default:
				continue
			}
			x, ok := num(m, key)
			setIf(r.Values, d.base+"."+stat, 1000*x, ok)
		}
		if x, ok := num(m, "median"); ok {
			setIf(r.Values, d.base+".p50", 1000*x, true)
		}
	}
	tp := get(succ, "throughput")
	for key, id := range map[string]string{"requests_per_sec": "request_throughput", "output_tokens_per_sec": "output_throughput", "total_tokens_per_sec": "total_token_throughput"} {
		x, ok := num(tp, key)
		setIf(r.Values, id, x, ok)
	}
	if x, ok := num(succ, "prompt_tokens", "total"); ok {
		setIf(r.Values, "total_input_tokens", x, true)
	}
	if x, ok := num(succ, "output_tokens", "total"); ok {
		setIf(r.Values, "total_output_tokens", x, true)
	}
	if x, ok := num(succ, "prompt_tokens", "mean"); ok {
		r.Shape.MeanInputLen = int(math.Round(x))
	}
	if x, ok := num(succ, "output_tokens", "mean"); ok {
		r.Shape.MeanOutputLen = int(math.Round(x))
	} else if x, ok := num(succ, "output_len", "mean"); ok {
		r.Shape.MeanOutputLen = int(math.Round(x))
	}
	if g, ok := num(succ, "goodput_metrics", "request_goodput"); ok {
		setIf(r.Values, "request_goodput", g, true)
	}
	r.Lacks = append(r.Lacks, "itl_token_ms", "client_queue_ms", "e2el_from_intended_ms", "max_output_tokens_per_s")
	r.inferencePerfErrors(get(doc, "failures", "by_label"))
	r.Shape.NumPrompts, _ = count(load, "count")
	r.Shape.RequestRate, r.Shape.Burstiness = math.Inf(1), 0
	if rate, ok := num(load, "requested_rate"); ok && rate > 0 {
		r.Shape.RequestRate = rate
		r.Label = "rate" + strings.TrimSuffix(fmt.Sprintf("%g", rate), ".0")
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: no requested_rate: a summary over every stage has no one load point and matches no perfgate workload; import the stage_N_lifecycle_metrics.json files", name))
		r.Shape.RequestRate = 0
	}
	if c, ok := count(load, "concurrency"); ok && c > 0 {
		r.Shape.MaxConcurrency = c
		r.Label = fmt.Sprintf("c%d", c)
	}
	if config != nil {
		var cfg inferencePerfConfig
		if err := yaml.Unmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("%s: its config.yaml: %w", name, err)
		}
		switch strings.ToLower(cfg.API.Type) {
		case "completion", "completions":
			r.Shape.EndpointType = "completions"
		case "chat":
			r.Shape.EndpointType = "chat"
		}
		switch strings.ToLower(cfg.Load.Type) {
		case "poisson":
			r.Shape.Burstiness = 1
		case "constant":
			r.Shape.Burstiness = math.Inf(1)
		}
		r.Model = cfg.Server.ModelName
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: no config.yaml beside it: the endpoint, arrival process and model are unknown, so the cell matches only other inference-perf imports", name))
	}
	if r.Shape.RequestRate == 0 {
		r.Shape.RequestRate = math.Inf(1)
	}
	if r.Shape.Burstiness == 0 {
		r.Shape.Burstiness = 1
	}
	return []Run{r}, nil
}

// inferencePerfErrors counts failures by inference-perf's labels ("503 -
// Service Unavailable"), keeping each label's first message.
func (r *Run) inferencePerfErrors(byLabel any) {
	m, _ := byLabel.(map[string]any)
	labels := slices.Sorted(maps.Keys(m))
	for _, l := range labels {
		n, ok := count(m[l], "count")
		if !ok || n == 0 {
			continue
		}
		if r.Errors == nil {
			r.Errors, r.ErrorSamples = map[string]int{}, map[string]string{}
		}
		r.Errors[l] += n
		if msgs := list(m[l], "messages"); len(msgs) > 0 {
			r.ErrorSamples[l] = clipText(str(msgs[0], "message"), 500)
		}
	}
	if r.Failed > 0 && r.Errors == nil {
		r.Errors = map[string]int{InferencePerf: r.Failed}
	}
}
