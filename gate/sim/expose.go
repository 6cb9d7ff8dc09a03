package sim

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// writeMetrics renders the Prometheus text exposition format (version
// 0.0.4) by hand: vLLM's metric names with labels model_name and engine,
// then the simulator's own sim_* series.
func (s *Server) writeMetrics(w io.Writer) error {
	st := s.Stats()
	cfg := s.Config()
	lbl := `model_name="` + escapeLabel(cfg.Model) + `",engine="0"`
	var b strings.Builder
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, lbl, num(v))
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s{%s} %d\n", name, help, name, name, lbl, v)
	}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", float64(st.Running))
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", float64(st.Waiting))
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", st.KVCacheUsage)
	counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", st.Preemptions)
	counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", st.PromptTokens)
	counter("vllm:generation_tokens_total", "Number of generation tokens processed.", st.GenerationTokens)
	counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", st.PrefixQueries)
	counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", st.PrefixHits)

	s.met.mu.Lock()
	name := "vllm:request_success_total"
	fmt.Fprintf(&b, "# HELP %s Count of successfully processed requests.\n# TYPE %s counter\n", name, name)
	for _, r := range slices.Sorted(maps.Keys(s.met.finishReasons)) {
		fmt.Fprintf(&b, "%s{%s,finished_reason=%q} %d\n", name, lbl, r, s.met.finishReasons[r])
	}
	hists := []struct {
		name, help string
		h          *histogram
	}{
		{"vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.met.ttft},
		{"vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.met.itl},
		{"vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", s.met.tpot},
		{"vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", s.met.e2e},
		{"vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", s.met.queue},
	}
	for _, h := range hists {
		writeHistogram(&b, h.name, h.help, lbl, h.h)
	}
	s.met.mu.Unlock()

	fmt.Fprintf(&b, "# HELP sim_requests_received_total Inference requests that reached the simulator.\n# TYPE sim_requests_received_total counter\nsim_requests_received_total %d\n", st.Received)
	fmt.Fprintf(&b, "# HELP sim_requests_rejected_total Requests answered 4xx for bad input before serving.\n# TYPE sim_requests_rejected_total counter\nsim_requests_rejected_total %d\n", st.Rejected)
	fmt.Fprintf(&b, "# HELP sim_requests_aborted_total Sequences cut by a disconnect, a drop fault or shutdown.\n# TYPE sim_requests_aborted_total counter\nsim_requests_aborted_total %d\n", st.Aborted)
	fmt.Fprintf(&b, "# HELP sim_token_events_total Token chunks (SSE events) written to clients.\n# TYPE sim_token_events_total counter\nsim_token_events_total %d\n", st.TokenEvents)
	fmt.Fprintf(&b, "# HELP sim_steps_total Engine steps executed.\n# TYPE sim_steps_total counter\nsim_steps_total %d\n", st.Steps)
	b.WriteString("# HELP sim_faults_total Injected faults by kind.\n# TYPE sim_faults_total counter\n")
	for _, k := range faultKinds {
		fmt.Fprintf(&b, "sim_faults_total{kind=%q} %d\n", k, st.Faults[k])
	}
	b.WriteString("# HELP sim_knob Current value of each numeric regression knob.\n# TYPE sim_knob gauge\n")
	for _, k := range []struct {
		n string
		v float64
	}{{"decode_scale", cfg.DecodeScale}, {"prefill_scale", cfg.PrefillScale}, {"base_scale", cfg.BaseScale},
		{"first_token_delay_seconds", cfg.FirstTokenDelay.D().Seconds()}, {"jitter_cv", cfg.JitterCV}} {
		fmt.Fprintf(&b, "sim_knob{name=%q} %s\n", k.n, num(k.v))
	}
	b.WriteString("# HELP sim_session_factor Per-start offset of each phase's cost, drawn at start (1: none).\n# TYPE sim_session_factor gauge\n")
	fmt.Fprintf(&b, "sim_session_factor{phase=\"prefill\"} %s\nsim_session_factor{phase=\"decode\"} %s\n", num(st.Session.Prefill), num(st.Session.Decode))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHistogram renders one cumulative-bucket histogram with labels lbl.
func writeHistogram(b *strings.Builder, name, help, lbl string, h *histogram) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum uint64
	base := strings.TrimSuffix(name, "_seconds") + "_seconds"
	for i, c := range h.counts {
		cum += c
		le := "+Inf"
		if i < len(h.bounds) {
			le = num(h.bounds[i])
		}
		fmt.Fprintf(b, "%s_bucket{%s,le=%q} %d\n", base, lbl, le, cum)
	}
	fmt.Fprintf(b, "%s_sum{%s} %s\n%s_count{%s} %d\n", base, lbl, num(h.sum), base, lbl, h.count)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
