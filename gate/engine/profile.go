// Package engine knows the serving engines perfgate measures and the
// quirks each has behind the one OpenAI-compatible API: where it says it is
// healthy, which field bounds a chat completion's length, whether it
// honours ignore_eos, how it reports token usage in a stream, whether it
// takes token-id prompts, how its prefix cache is reset between trials,
// what its Prometheus /metrics series are called, and what its launch
// command looks like. A Profile is plain data; the facts are cited in
// docs/engines.md. The package does no I/O except the probes Detect sends
// through the client its caller gives it.
package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Name is an engine profile's name as written in perfgate.yaml
// (server.engine), on the command line (--engine) and in the fingerprint
// (server.engine).
type Name string

// The profiles. Auto is not a profile: it asks Detect to find one.
const (
	Auto     Name = "auto"
	VLLM     Name = "vllm"
	SGLang   Name = "sglang"
	Ollama   Name = "ollama"
	LlamaCpp Name = "llamacpp"
	TGI      Name = "tgi"
	// OpenAI is the generic OpenAI-compatible server: what perfgate
	// assumes of a server that does not say what it is.
	OpenAI Name = "openai"
)

// Usage is how a server reports token usage in a stream that asked for it
// (stream_options.include_usage).
type Usage string

const (
	// UsageCumulative: every chunk carries the running totals
	// (continuous_usage_stats), so the difference between two chunks is
	// the number of tokens the later one carried.
	UsageCumulative Usage = "cumulative"
	// UsageFinal: only a last chunk carries usage; content chunks carry
	// none.
	UsageFinal Usage = "final"
	// UsageZeros: every content chunk carries a usage object of zeros and
	// a last chunk the totals. A zero there means "not counted", not "no
	// tokens".
	UsageZeros Usage = "zeros"
)

// Endpoint is an HTTP method and path on the server.
type Endpoint struct {
	Method, Path string
}

// Launch is the shape of an engine's launch command, for reading the
// model and the GPU count from a server's argv (the fingerprint's
// server.argv).
type Launch struct {
	// Programs are argv prefixes that start this engine, e.g. {"vllm",
	// "serve"} or {"python", "-m", "sglang.launch_server"}. A program
	// matches by its base name, so /usr/bin/python3 is "python3".
	Programs [][]string
	// ModelFlags name the model ("--model-path"); ModelPositional says the
	// model is the first word after the program (vllm serve MODEL).
	ModelFlags      []string
	ModelPositional bool
	// TensorParallelFlags give the tensor-parallel degree, the GPUs one
	// replica spans; DataParallelFlags multiply it. An engine without
	// either (ollama) uses whatever GPUs it finds.
	TensorParallelFlags []string
	DataParallelFlags   []string
}

// Profile is what perfgate knows of one engine.
type Profile struct {
	Name Name
	// Title is the engine's name in prose ("vLLM").
	Title string
	// HealthPath answers 200 once the engine serves ("" when the engine
	// has none: readiness is then GET /v1/models alone, and a 404 on
	// /health never delays it).
	HealthPath string
	// NoModelsHint says how the engine comes to list a model, for a
	// readiness wait that sees an empty /v1/models ("" when it lists its
	// model once it serves).
	NoModelsHint string
	// DefaultTag is the tag the engine serves a model name without one
	// as ("latest" for ollama, whose /v1/models lists every model with
	// its tag, as `ollama run NAME` resolves NAME to NAME:latest); empty
	// when names are matched exactly.
	DefaultTag string
	// ChatMaxTokens are the request fields set to a chat request's token
	// bound. OpenAI deprecated max_tokens for max_completion_tokens; some
	// engines read only one of the two, so where an engine accepts both
	// perfgate sends both.
	ChatMaxTokens []string
	// IgnoreEOS says the engine honours ignore_eos (generates exactly
	// max_tokens). Where it does not, a request may stop early at EOS.
	IgnoreEOS bool
	// CompletionsUsage and ChatUsage are how the engine reports usage in
	// a stream of /v1/completions and /v1/chat/completions.
	CompletionsUsage Usage
	ChatUsage        Usage
	// ContinuousUsage says the engine accepts
	// stream_options.continuous_usage_stats (cumulative usage per chunk).
	ContinuousUsage bool
	// TokenPrompts says /v1/completions accepts a prompt of token ids;
	// where not, prompts must be text.
	TokenPrompts bool
	// Tokenize is the engine's tokenizer endpoint ("" when none).
	Tokenize string
	// TokenizeContent says the endpoint takes llama.cpp's {"content":
	// text} body instead of vLLM's and SGLang's {"model", "prompt"} (or
	// "messages"), and so counts no chat template.
	TokenizeContent bool
	// CacheReset drops the engine's prefix cache between trials (nil when
	// the engine has no such endpoint). CacheResetNote says what it needs
	// (vLLM serves it only in development mode).
	CacheReset     *Endpoint
	CacheResetNote string
	// Metrics maps perfgate's canonical /metrics series (vLLM's current
	// names, which the report's server context reads) to this engine's
	// name for the same quantity. vLLM's own map is empty: its names are
	// the canonical ones.
	Metrics map[string]string
	// ClosesAfterStream says the engine closes a connection once a
	// streamed response has ended although its Keep-Alive header offers
	// to keep it: a client that reuses connections then picks closed ones.
	// perfgate opens a fresh connection per request for such an engine
	// (docs/run.md#connections).
	ClosesAfterStream bool
	// Launch is the shape of the engine's launch command.
	Launch Launch
	// Profiler is how the engine is profiled (profiler.go); nil when it
	// serves no profiling endpoints.
	Profiler *Profiler
}

// profiles holds every profile by name. The facts are cited in
// docs/engines.md; keep the two in step.
var profiles = map[Name]Profile{
	VLLM: {
		Name: VLLM, Title: "vLLM", HealthPath: "/health",
		// Kept as it always was, so vLLM requests (and the baselines
		// recorded with them) stay byte for byte the same.
		ChatMaxTokens: []string{"max_completion_tokens"},
		IgnoreEOS:     true, CompletionsUsage: UsageCumulative, ChatUsage: UsageCumulative, ContinuousUsage: true,
		TokenPrompts: true, Tokenize: "/tokenize",
		CacheReset:     &Endpoint{"POST", "/reset_prefix_cache"},
		CacheResetNote: "vLLM serves it only with VLLM_SERVER_DEV_MODE=1",
		Profiler:       vllmProfiler,
		Launch: Launch{
			Programs:            [][]string{{"vllm", "serve"}, {"python", "-m", "vllm.entrypoints.openai.api_server"}},
			ModelFlags:          []string{"--model"},
			ModelPositional:     true,
			TensorParallelFlags: []string{"--tensor-parallel-size", "-tp"},
			DataParallelFlags:   []string{"--data-parallel-size", "-dp"},
		},
	},
	SGLang: {
		Name: SGLang, Title: "SGLang", HealthPath: "/health",
		ChatMaxTokens: []string{"max_tokens", "max_completion_tokens"},
		IgnoreEOS:     true, CompletionsUsage: UsageCumulative, ChatUsage: UsageCumulative, ContinuousUsage: true,
		TokenPrompts: true, Tokenize: "/tokenize",
		CacheReset:     &Endpoint{"POST", "/flush_cache"},
		CacheResetNote: "SGLang skips the flush while requests are running or waiting",
		Profiler:       sglangProfiler,
		Metrics: map[string]string{
			"vllm:num_requests_running":        "sglang:num_running_reqs",
			"vllm:num_requests_waiting":        "sglang:num_queue_reqs",
			"vllm:kv_cache_usage_perc":         "sglang:token_usage",
			"cache_hit_rate":                   "sglang:cache_hit_rate",
			"vllm:prompt_tokens_total":         "sglang:prompt_tokens_total",
			"vllm:generation_tokens_total":     "sglang:generation_tokens_total",
			"vllm:time_to_first_token_seconds": "sglang:time_to_first_token_seconds",
			"vllm:inter_token_latency_seconds": "sglang:inter_token_latency_seconds",
			"vllm:e2e_request_latency_seconds": "sglang:e2e_request_latency_seconds",
			// SGLang retracts running requests when the KV cache runs
			// out, as vLLM preempts them.
			"vllm:num_preemptions_total":      "sglang:num_retracted_requests_total",
			"vllm:request_queue_time_seconds": "sglang:queue_time_seconds",
			"spec_accept_rate":                "sglang:spec_accept_rate",
		},
		Launch: Launch{
			Programs:            [][]string{{"python", "-m", "sglang.launch_server"}, {"sglang", "serve"}},
			ModelFlags:          []string{"--model-path", "--model"},
			TensorParallelFlags: []string{"--tp-size", "--tp", "--tensor-parallel-size"},
			DataParallelFlags:   []string{"--dp-size", "--dp", "--data-parallel-size"},
		},
	},
	Ollama: {
		Name: Ollama, Title: "Ollama",
		DefaultTag:    "latest",
		NoModelsHint:  "ollama lists a model only once it was pulled or created: run `ollama pull MODEL` or `ollama create MODEL -f Modelfile` against this server, or point OLLAMA_MODELS at a directory that holds it",
		ChatMaxTokens: []string{"max_tokens"},
		// ollama maps max_tokens to num_predict and has no ignore_eos.
		CompletionsUsage: UsageZeros, ChatUsage: UsageFinal,
		Launch: Launch{Programs: [][]string{{"ollama", "serve"}}},
	},
	LlamaCpp: {
		Name: LlamaCpp, Title: "llama.cpp", HealthPath: "/health",
		ChatMaxTokens: []string{"max_tokens", "max_completion_tokens"},
		IgnoreEOS:     true, CompletionsUsage: UsageFinal, ChatUsage: UsageFinal,
		TokenPrompts: true, Tokenize: "/tokenize", TokenizeContent: true,
		ClosesAfterStream: true,
		Metrics: map[string]string{
			"vllm:num_requests_running":    "llamacpp:requests_processing",
			"vllm:num_requests_waiting":    "llamacpp:requests_deferred",
			"vllm:kv_cache_usage_perc":     "llamacpp:kv_cache_usage_ratio",
			"vllm:prompt_tokens_total":     "llamacpp:prompt_tokens_total",
			"vllm:generation_tokens_total": "llamacpp:tokens_predicted_total",
		},
		Launch: Launch{
			Programs:   [][]string{{"llama-server"}},
			ModelFlags: []string{"-m", "--model"},
		},
	},
	TGI: {
		Name: TGI, Title: "Text Generation Inference", HealthPath: "/health",
		ChatMaxTokens:    []string{"max_tokens"},
		CompletionsUsage: UsageFinal, ChatUsage: UsageFinal,
		Metrics: map[string]string{
			"vllm:num_requests_waiting": "tgi_queue_size",
		},
		Launch: Launch{
			Programs:            [][]string{{"text-generation-launcher"}},
			ModelFlags:          []string{"--model-id"},
			TensorParallelFlags: []string{"--num-shard"},
		},
	},
	OpenAI: {
		Name: OpenAI, Title: "an OpenAI-compatible server",
		// /health where there is one; its 404 hands readiness to
		// /v1/models at once (package ready).
		HealthPath: "/health",
		// Nothing is known: send both bounds, so a server that reads
		// either stops where asked; assume what the OpenAI API promises
		// and nothing more. Continuous usage is still asked for (as
		// perfgate always did): a vLLM behind a proxy answers it, and
		// servers that do not know the field ignore it.
		ChatMaxTokens:    []string{"max_tokens", "max_completion_tokens"},
		CompletionsUsage: UsageFinal, ChatUsage: UsageFinal, ContinuousUsage: true,
		TokenPrompts: true,
	},
}

// Get returns the profile called name; Auto and unknown names are errors
// listing the valid ones.
func Get(name Name) (Profile, error) {
	p, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown engine %q: want %s", string(name), strings.Join(Names(), ", "))
	}
	return p, nil
}

// Must returns the profile called name and panics on a name that is not a
// profile (for the package's own constants).
func Must(name Name) Profile {
	p, err := Get(name)
	if err != nil {
		panic(err)
	}
	return p
}

// Parse reads a configured engine name ("" means auto). It accepts any
// letter case and the spellings "llama.cpp" and "llama-cpp".
func Parse(s string) (Name, error) {
	n := Name(strings.ToLower(strings.TrimSpace(s)))
	switch n {
	case "":
		return Auto, nil
	case "llama.cpp", "llama-cpp":
		n = LlamaCpp
	}
	if n == Auto {
		return Auto, nil
	}
	if _, ok := profiles[n]; !ok {
		return "", fmt.Errorf("unknown engine %q: want auto, %s", s, strings.Join(Names(), ", "))
	}
	return n, nil
}

// Names lists the profiles' names, sorted.
func Names() []string {
	out := make([]string, 0, len(profiles))
	for n := range profiles {
		out = append(out, string(n))
	}
	sort.Strings(out)
	return out
}

// Profiles returns every profile, sorted by name.
func Profiles() []Profile {
	out := make([]Profile, 0, len(profiles))
	for _, n := range Names() {
		out = append(out, profiles[Name(n)])
	}
	return out
}

// MaxTokensFields are the request fields that carry a request's token
// bound: max_tokens for /v1/completions on every engine, the profile's
// ChatMaxTokens for /v1/chat/completions.
func (p Profile) MaxTokensFields(chat bool) []string {
	if !chat {
		return []string{"max_tokens"}
	}
	if len(p.ChatMaxTokens) == 0 {
		return []string{"max_tokens", "max_completion_tokens"}
	}
	return p.ChatMaxTokens
}

// Usage returns how the engine reports usage on the chat or the
// completions API.
func (p Profile) Usage(chat bool) Usage {
	if chat {
		return p.ChatUsage
	}
	return p.CompletionsUsage
}

// Metric returns the engine's name for the canonical /metrics series, and
// whether it has one. vLLM's names are the canonical ones.
func (p Profile) Metric(canonical string) (string, bool) {
	if p.Name == VLLM {
		return canonical, strings.HasPrefix(canonical, "vllm:")
	}
	n, ok := p.Metrics[canonical]
	return n, ok
}

// MetricAliases lists every profile's name for the canonical series, in
// profile order and without vLLM's own: a scrape reads whichever the
// server exposes, so it need not know the engine. The engines' names do
// not collide (each has its own prefix).
func MetricAliases(canonical string) []string {
	var out []string
	for _, p := range Profiles() {
		if p.Name == VLLM {
			continue
		}
		if n, ok := p.Metrics[canonical]; ok {
			out = append(out, n)
		}
	}
	return out
}
