package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func engineConfig(t *testing.T, engine string) Config {
	t.Helper()
	cfg := fastConfig(t)
	if err := cfg.SetEngine(engine); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestEndpointsPerEngine checks which paths each personality serves and
// what the others answer: a client probing /health, /version, /tokenize,
// /metrics or the cache reset meets the real engine's answer.
func TestEndpointsPerEngine(t *testing.T) {
	tests := []struct {
		engine, method, path string
		status               int
		body                 string // a part of the body ("" not checked)
	}{
		{"vllm", "GET", "/version", 200, `"version"`},
		{"vllm", "GET", "/get_server_info", 404, `{"detail":"Not Found"}`},
		{"vllm", "POST", "/reset_prefix_cache", 200, ""},
		{"sglang", "GET", "/health", 200, ""},
		{"sglang", "GET", "/health_generate", 200, ""},
		{"sglang", "GET", "/get_server_info", 200, `"version":"0.5.3+perfgate-sim"`},
		{"sglang", "GET", "/get_model_info", 200, `"is_generation":true`},
		{"sglang", "GET", "/flush_cache", 200, "Cache flushed."},
		{"sglang", "POST", "/flush_cache", 200, "Cache flushed."},
		{"sglang", "POST", "/reset_prefix_cache", 404, `{"detail":"Not Found"}`},
		{"sglang", "GET", "/version", 404, `{"detail":"Not Found"}`},
		{"sglang", "GET", "/metrics", 200, "sglang:num_running_reqs"},
		{"sglang", "POST", "/tokenize", 200, `"count":`},
		{"sglang", "GET", "/v1/models", 200, `"owned_by":"sglang"`},
		{"ollama", "GET", "/health", 404, "404 page not found"},
		{"ollama", "GET", "/api/version", 200, `{"version":"0.17.4+perfgate-sim"}`},
		{"ollama", "GET", "/", 200, "Ollama is running"},
		{"ollama", "GET", "/version", 404, "404 page not found"},
		{"ollama", "POST", "/tokenize", 404, "404 page not found"},
		{"ollama", "GET", "/metrics", 404, "404 page not found"},
		{"ollama", "GET", "/v1/completions", 405, "405 method not allowed"},
		{"ollama", "GET", "/v1/models", 200, `"owned_by":"library"`},
	}
	urls := map[string]string{}
	for _, e := range Engines() {
		_, urls[e] = start(t, engineConfig(t, e))
	}
	for _, tc := range tests {
		var resp *http.Response
		var body []byte
		if tc.method == "GET" {
			resp, body = get(t, urls[tc.engine], tc.path)
		} else {
			resp, body = post(t, urls[tc.engine], tc.path, `{"prompt":"hello world"}`)
		}
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) {
			t.Errorf("%s %s %s: %d %q, want %d with %q", tc.engine, tc.method, tc.path, resp.StatusCode, body, tc.status, tc.body)
		}
	}
	_, body := get(t, urls["sglang"], "/metrics")
	for _, name := range []string{"sglang:num_queue_reqs", "sglang:token_usage", "sglang:cache_hit_rate", "sglang:time_to_first_token_seconds_bucket"} {
		if !strings.Contains(string(body), name+"{") {
			t.Errorf("SGLang /metrics lacks %s", name)
		}
	}
	if strings.Contains(string(body), "vllm:") {
		t.Error("SGLang /metrics serves vllm: names")
	}
	if _, body := get(t, urls["vllm"], "/models"); !strings.Contains(string(body), "Not Found") {
		t.Errorf("vLLM unknown path: %s", body)
	}
}

// TestErrorShapes: each personality refuses a request for another model
// with its engine's error body.
func TestErrorShapes(t *testing.T) {
	tests := []struct{ engine, want string }{
		{"vllm", `{"error":{"message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`},
		{"sglang", `{"object":"error","message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`},
		{"ollama", `{"error":{"message":"model \"nope\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}}`},
	}
	for _, tc := range tests {
		_, url := start(t, engineConfig(t, tc.engine))
		resp, body := post(t, url, "/v1/completions", `{"model":"nope","prompt":"hi","max_tokens":2}`)
		if resp.StatusCode != 404 || strings.TrimSpace(string(body)) != tc.want {
			t.Errorf("%s: %d %s\nwant %s", tc.engine, resp.StatusCode, body, tc.want)
		}
	}
}

// TestSGLangContextMessages: SGLang words the context-length refusals its
// own way, in its error shape.
func TestSGLangContextMessages(t *testing.T) {
	cfg := engineConfig(t, "sglang")
	cfg.MaxModelLen = 64
	cfg.KVCacheTokens = 4096
	_, url := start(t, cfg)
	_, body := post(t, url, "/v1/completions", `{"prompt":"hello","max_tokens":100}`)
	if !strings.Contains(string(body), `"object":"error","message":"Requested token count exceeds the model's maximum context length of 64 tokens.`) {
		t.Errorf("prompt + max_tokens: %s", body)
	}
	_, body = post(t, url, "/v1/completions", `{"prompt":[`+strings.TrimSuffix(strings.Repeat("1,", 64), ",")+`],"max_tokens":1}`)
	if !strings.Contains(string(body), `"message":"The input (64 tokens) is longer than the model's context length (64 tokens)."`) {
		t.Errorf("long prompt: %s", body)
	}
}

// TestOllamaRefusesTokenIDs is issue 11's text-only server: a token-id
// prompt fails to bind, 400, with ollama's message and shape.
func TestOllamaRefusesTokenIDs(t *testing.T) {
	_, url := start(t, engineConfig(t, "ollama"))
	resp, body := post(t, url, "/v1/completions", `{"model":"sim-fast","prompt":[1,2,3],"max_tokens":4,"stream":true}`)
	want := `{"error":{"message":"json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string","type":"invalid_request_error","param":null,"code":null}}`
	if resp.StatusCode != 400 || strings.TrimSpace(string(body)) != want {
		t.Errorf("%d %s\nwant %s", resp.StatusCode, body, want)
	}
}

// TestOllamaStream pins ollama's completions framing: usage zeros on every
// token chunk, an empty finish chunk, then the totals with "choices": [];
// three tokens a chunk; continuous_usage_stats, ignore_eos and
// max_completion_tokens ignored; no X-Request-Id; a bare Content-Type.
func TestOllamaStream(t *testing.T) {
	_, url := start(t, engineConfig(t, "ollama"))
	resp, body := post(t, url, "/v1/completions",
		`{"model":"sim-fast","prompt":"hello there","max_tokens":10,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Request-Id") != "" {
		t.Errorf("headers: Content-Type %q, X-Request-Id %q", ct, resp.Header.Get("X-Request-Id"))
	}
	fs := frames(t, body)
	if len(fs) != 4+1+1 { // 1+3+3+3 tokens (the first alone), the finish chunk, the usage chunk
		t.Fatalf("%d frames: %s", len(fs), body)
	}
	for i, f := range fs[:5] {
		if f.Usage == nil || f.Usage.CompletionTokens != 0 || f.Usage.PromptTokens != 0 {
			t.Errorf("frame %d: usage %+v, want zeros", i, f.Usage)
		}
	}
	if words := len(strings.Fields(fs[1].Choices[0].Text)); words != 3 {
		t.Errorf("second chunk %q: %d tokens, want 3", fs[1].Choices[0].Text, words)
	}
	if fin := fs[4].Choices[0]; fin.Text != "" || fin.FinishReason == nil || *fin.FinishReason != "length" {
		t.Errorf("finish chunk %+v", fin)
	}
	if u := fs[5]; len(u.Choices) != 0 || u.Usage == nil || u.Usage.CompletionTokens != 10 {
		t.Errorf("usage chunk %+v", u)
	}

	// Chat: max_completion_tokens and ignore_eos are unknown fields; the
	// request ends at EOS (seeded, mean 4 tokens), long before 200.
	cfg := engineConfig(t, "ollama")
	cfg.EOSMeanTokens = 4
	_, url = start(t, cfg)
	_, body = post(t, url, "/v1/chat/completions",
		`{"model":"sim-fast","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":200,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`)
	fs = frames(t, body)
	last := fs[len(fs)-1]
	fin := fs[len(fs)-2]
	if last.Usage == nil || last.Usage.CompletionTokens >= 200 || fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "stop" {
		t.Errorf("chat: usage %+v finish %+v: ignore_eos and max_completion_tokens must be ignored", last.Usage, fin.Choices)
	}
	if fs[0].Choices[0].Delta == nil || fs[0].Choices[0].Delta.Role == nil || fs[0].Choices[0].Delta.Content == nil {
		t.Errorf("first chat chunk must carry role and content: %+v", fs[0].Choices)
	}
	for i, f := range fs[:len(fs)-1] {
		if f.Usage != nil {
			t.Errorf("chat frame %d carries usage", i)
		}
	}
}

// TestSGLangStream: cumulative usage on every chunk with
// continuous_usage_stats, "matched_stop" where vLLM has "stop_reason",
// "usage": null without it.
func TestSGLangStream(t *testing.T) {
	_, url := start(t, engineConfig(t, "sglang"))
	_, body := post(t, url, "/v1/completions",
		`{"model":"sim-fast","prompt":"hello","max_tokens":4,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	evs := events(t, body)
	for i, ev := range evs[:4] {
		var f map[string]any
		if err := json.Unmarshal([]byte(ev), &f); err != nil {
			t.Fatal(err)
		}
		ch := f["choices"].([]any)[0].(map[string]any)
		if _, ok := ch["matched_stop"]; !ok {
			t.Errorf("chunk %d has no matched_stop: %s", i, ev)
		}
		if u, _ := f["usage"].(map[string]any); u == nil || u["completion_tokens"] != float64(i+1) {
			t.Errorf("chunk %d usage %v, want cumulative %d", i, f["usage"], i+1)
		}
	}
	_, body = post(t, url, "/v1/completions", `{"model":"sim-fast","prompt":"hello","max_tokens":2,"stream":true}`)
	if !strings.Contains(string(body), `"usage":null`) {
		t.Errorf("no usage null: %s", body)
	}
}

// TestSetEngine: defaults applied, unknown names refused, the engine
// fixed once the server runs, vLLM's config unchanged by the new field.
func TestSetEngine(t *testing.T) {
	var c Config
	if err := c.SetEngine("tgi"); err == nil {
		t.Error("unknown engine accepted")
	}
	cfg := engineConfig(t, "ollama")
	if cfg.StreamInterval != 3 || cfg.Engine != "ollama" {
		t.Errorf("ollama defaults: %+v", cfg)
	}
	srv, _ := start(t, cfg)
	if err := srv.Update(func(c *Config) { c.Engine = "" }); err == nil {
		t.Error("engine changed at run time")
	}
	_, url := start(t, engineConfig(t, "vllm"))
	if _, body := get(t, url, "/sim/config"); strings.Contains(string(body), `"engine"`) {
		t.Errorf("vLLM config shows an engine field: %s", body)
	}
	cfg.Engine = "bogus"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "engine") {
		t.Errorf("Validate: %v", err)
	}
}
