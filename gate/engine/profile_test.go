package engine

import (
	"reflect"
	"strings"
	"testing"
)

// TestProfiles pins each profile's facts (docs/engines.md cites their
// sources): a change here is a change in what perfgate sends or expects,
// and must be one on purpose.
func TestProfiles(t *testing.T) {
	for _, tc := range []struct {
		name       Name
		health     string
		chatMax    []string
		ignoreEOS  bool
		comp, chat Usage
		continuous bool
		ids        bool
		reset      string
	}{
		// vLLM keeps sending max_completion_tokens alone: its requests
		// must stay byte for byte what baselines were recorded with.
		{VLLM, "/health", []string{"max_completion_tokens"}, true, UsageCumulative, UsageCumulative, true, true, "POST /reset_prefix_cache"},
		{SGLang, "/health", []string{"max_tokens", "max_completion_tokens"}, true, UsageCumulative, UsageCumulative, true, true, "POST /flush_cache"},
		// ollama has no /health, reads max_tokens only (as num_predict),
		// has no ignore_eos and takes text prompts only; its completions
		// stream carries zero usage on every chunk.
		{Ollama, "", []string{"max_tokens"}, false, UsageZeros, UsageFinal, false, false, ""},
		{LlamaCpp, "/health", []string{"max_tokens", "max_completion_tokens"}, true, UsageFinal, UsageFinal, false, true, ""},
		{TGI, "/health", []string{"max_tokens"}, false, UsageFinal, UsageFinal, false, false, ""},
		{OpenAI, "/health", []string{"max_tokens", "max_completion_tokens"}, false, UsageFinal, UsageFinal, true, true, ""},
	} {
		p, err := Get(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		reset := ""
		if p.CacheReset != nil {
			reset = p.CacheReset.Method + " " + p.CacheReset.Path
		}
		got := []any{p.HealthPath, p.MaxTokensFields(true), p.IgnoreEOS, p.Usage(false), p.Usage(true), p.ContinuousUsage, p.TokenPrompts, reset}
		want := []any{tc.health, tc.chatMax, tc.ignoreEOS, tc.comp, tc.chat, tc.continuous, tc.ids, tc.reset}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, want)
		}
		if f := p.MaxTokensFields(false); !reflect.DeepEqual(f, []string{"max_tokens"}) {
			t.Errorf("%s completions fields %v", tc.name, f)
		}
		if p.Title == "" || p.Name != tc.name {
			t.Errorf("%s: title %q name %q", tc.name, p.Title, p.Name)
		}
	}
	if len(Profiles()) != 6 {
		t.Errorf("%d profiles; the table above must cover each", len(Profiles()))
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Name
		err  string
	}{
		{"", Auto, ""},
		{"auto", Auto, ""},
		{"vLLM", VLLM, ""},
		{" sglang ", SGLang, ""},
		{"llama.cpp", LlamaCpp, ""},
		{"llama-cpp", LlamaCpp, ""},
		{"openai", OpenAI, ""},
		{"tensorrt", "", `unknown engine "tensorrt": want auto, llamacpp, ollama, openai, sglang, tgi, vllm`},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Parse(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Get(Auto); err == nil || !strings.Contains(err.Error(), "vllm") {
		t.Errorf("Get(auto) = %v; auto is no profile", err)
	}
}

// TestMetricNames: SGLang's series map onto the canonical (vLLM) names
// the report's server context reads; vLLM's are their own.
func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		p         Name
		canonical string
		want      string
		ok        bool
	}{
		{VLLM, "vllm:num_requests_running", "vllm:num_requests_running", true},
		{SGLang, "vllm:num_requests_running", "sglang:num_running_reqs", true},
		{SGLang, "vllm:num_requests_waiting", "sglang:num_queue_reqs", true},
		{SGLang, "vllm:kv_cache_usage_perc", "sglang:token_usage", true},
		{SGLang, "cache_hit_rate", "sglang:cache_hit_rate", true},
		// SGLang retracts requests under KV pressure where vLLM preempts.
		{SGLang, "vllm:num_preemptions_total", "sglang:num_retracted_requests_total", true},
		{SGLang, "vllm:request_queue_time_seconds", "sglang:queue_time_seconds", true},
		{TGI, "vllm:num_preemptions_total", "", false},
		{LlamaCpp, "vllm:generation_tokens_total", "llamacpp:tokens_predicted_total", true},
		{Ollama, "vllm:num_requests_running", "", false},
	} {
		got, ok := Must(tc.p).Metric(tc.canonical)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s %s = %q %v, want %q %v", tc.p, tc.canonical, got, ok, tc.want, tc.ok)
		}
	}
	if got := MetricAliases("vllm:num_requests_waiting"); !reflect.DeepEqual(got, []string{"llamacpp:requests_deferred", "sglang:num_queue_reqs", "tgi_queue_size"}) {
		t.Errorf("aliases %v", got)
	}
}
