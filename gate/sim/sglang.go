package sim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// SGLang's native endpoints (sglang/srt/entrypoints/http_server.py) and
// its Prometheus names (sglang/srt/metrics/collector.py).

// handleServerInfo is GET /get_server_info: SGLang returns its ServerArgs
// as a flat object, the scheduler's info, "internal_states" and "version".
// The simulator fills the ServerArgs fields its knobs stand for, which is
// also what lets a client tell SGLang from vLLM (vLLM has no such path).
func (s *Server) handleServerInfo(w http.ResponseWriter, r *http.Request) {
	cfg := s.Config()
	st := s.Stats()
	writeJSON(w, http.StatusOK, map[string]any{
		"model_path":           cfg.Model,
		"tokenizer_path":       cfg.Model,
		"served_model_name":    cfg.Model,
		"context_length":       cfg.MaxModelLen,
		"tp_size":              1,
		"dp_size":              1,
		"max_running_requests": cfg.MaxNumSeqs,
		"chunked_prefill_size": cfg.MaxBatchedTokens,
		"max_total_tokens":     cfg.KVCacheTokens,
		"page_size":            cfg.BlockSize,
		"disable_radix_cache":  !cfg.PrefixCaching,
		"stream_interval":      cfg.StreamInterval,
		"internal_states":      []map[string]any{{"last_gen_throughput": 0, "num_running_reqs": st.Running}},
		"version":              cfg.Version,
	})
}

// handleModelInfo is GET /get_model_info.
func (s *Server) handleModelInfo(w http.ResponseWriter, r *http.Request) {
	m := s.Config().Model
	writeJSON(w, http.StatusOK, map[string]any{"model_path": m, "tokenizer_path": m, "is_generation": true,
		"preferred_sampling_params": nil, "weight_version": "default"})
}

// flushText is SGLang's /flush_cache answer, sent with 200 when the cache
// was flushed and 400 when requests were running or waiting (SGLang then
// leaves the cache alone).
const flushText = "Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n"

// handleFlushCache is SGLang's prefix-cache reset (GET or POST
// /flush_cache), vLLM's /reset_prefix_cache counterpart.
func (s *Server) handleFlushCache(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if st := s.Stats(); st.Running+st.Waiting > 0 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, flushText)
		return
	}
	s.eng.resetPrefixCache()
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, flushText)
}

// writeSGLangMetrics renders /metrics with SGLang's names and its
// model_name label: the gauges a report maps onto its server context
// (num_running_reqs, num_queue_reqs, token_usage, cache_hit_rate), the
// token counters and the latency histograms.
func (s *Server) writeSGLangMetrics(w io.Writer) error {
	st := s.Stats()
	lbl := `model_name="` + escapeLabel(s.Config().Model) + `"`
	var b strings.Builder
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, lbl, num(v))
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s{%s} %d\n", name, help, name, name, lbl, v)
	}
	hit := 0.0
	if st.PrefixQueries > 0 {
		hit = float64(st.PrefixHits) / float64(st.PrefixQueries)
	}
	gauge("sglang:num_running_reqs", "The number of running requests.", float64(st.Running))
	gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", float64(st.Waiting))
	gauge("sglang:token_usage", "The token usage.", st.KVCacheUsage)
	gauge("sglang:cache_hit_rate", "The prefix cache hit rate.", hit)
	counter("sglang:prompt_tokens_total", "Number of prefill tokens processed.", st.PromptTokens)
	counter("sglang:generation_tokens_total", "Number of generation tokens processed.", st.GenerationTokens)
	counter("sglang:cached_tokens_total", "Number of cached prompt tokens.", st.PrefixHits)
	s.met.mu.Lock()
	var finished uint64
	for _, n := range s.met.finishReasons {
		finished += uint64(n)
	}
	fmt.Fprintf(&b, "# HELP sglang:num_requests_total Number of requests processed.\n# TYPE sglang:num_requests_total counter\nsglang:num_requests_total{%s} %d\n", lbl, finished)
	for _, h := range []struct {
		name, help string
		h          *histogram
	}{
		{"sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.met.ttft},
		{"sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.met.itl},
		{"sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds", s.met.e2e},
	} {
		writeHistogram(&b, h.name, h.help, lbl, h.h)
	}
	s.met.mu.Unlock()
	_, err := io.WriteString(w, b.String())
	return err
}
