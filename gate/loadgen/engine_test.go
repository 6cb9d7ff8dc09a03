package loadgen

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// imitation wraps the simulator (which streams like vLLM) in the
// endpoints by which an engine tells what it is, and records the paths and
// chat bodies it saw. vLLM's own /version and /health are hidden where the
// imitated engine has none.
type imitation struct {
	mu    sync.Mutex
	paths []string
	chats []string
}

func (im *imitation) saw(p string) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	for _, x := range im.paths {
		if x == p {
			return true
		}
	}
	return false
}

func startImitation(t *testing.T, name engine.Name) (*imitation, string) {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv := sim.New(cfg)
	im := &imitation{}
	own := map[string]string{} // path -> JSON body
	hidden := map[string]bool{"/version": name != engine.VLLM, "/reset_prefix_cache": name != engine.VLLM}
	header := ""
	switch name {
	case engine.SGLang:
		own["/get_server_info"] = `{"model_path":"Qwen/Qwen3-8B","tp_size":1,"version":"0.5.2"}`
		own["/flush_cache"] = "Cache flushed.\n"
	case engine.Ollama:
		own["/api/version"] = `{"version":"0.17.4"}`
		hidden["/health"] = true
	case engine.LlamaCpp:
		own["/props"] = `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"build_info":"b6000"}`
		header = "llama.cpp"
	case engine.TGI:
		own["/info"] = `{"model_id":"m","router":"text-generation-router","version":"3.0.0","max_concurrent_requests":128}`
	case engine.OpenAI:
		hidden["/health"] = true
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		im.mu.Lock()
		im.paths = append(im.paths, r.URL.Path)
		if r.URL.Path == "/v1/chat/completions" {
			b, _ := io.ReadAll(r.Body)
			im.chats = append(im.chats, string(b))
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		im.mu.Unlock()
		if header != "" {
			w.Header().Set("Server", header)
		}
		if body, ok := own[r.URL.Path]; ok {
			_, _ = io.WriteString(w, body)
			return
		}
		if hidden[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return im, ts.URL
}

func chatManifest() *workload.Manifest {
	m := manifest(2, 0, 0, 4)
	m.API = workload.Chat
	for i := range m.Requests {
		m.Requests[i].PromptIDs, m.Requests[i].Prompt = nil, "hello"
	}
	for i := range m.Warmups {
		m.Warmups[i].PromptIDs, m.Warmups[i].Prompt = nil, "hello"
	}
	return m
}

// TestEngineDetectedAndUsed: against an imitation of each engine, auto
// finds the engine, records it in the result, and the chat requests carry
// the profile's max-tokens fields.
func TestEngineDetectedAndUsed(t *testing.T) {
	for _, tc := range []struct {
		name    engine.Name
		version string
		field   string // a chat max-tokens field the engine reads
	}{
		{engine.VLLM, "0.11.0+perfgate-sim", `"max_completion_tokens":4`},
		{engine.SGLang, "0.5.2", `"max_tokens":4`},
		{engine.Ollama, "0.17.4", `"max_tokens":4`},
		{engine.LlamaCpp, "b6000", `"max_tokens":4`},
		{engine.TGI, "3.0.0", `"max_tokens":4`},
		{engine.OpenAI, "", `"max_tokens":4,"max_completion_tokens":4`},
	} {
		t.Run(string(tc.name), func(t *testing.T) {
			im, url := startImitation(t, tc.name)
			var progress bytes.Buffer
			r := newRunner(t, url, func(c *Config) { c.Progress = &progress })
			res, err := r.Run(context.Background(), chatManifest(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if res.Server.Engine != string(tc.name) || res.Server.Version != tc.version {
				t.Errorf("engine %q version %q, want %q %q", res.Server.Engine, res.Server.Version, tc.name, tc.version)
			}
			if !strings.Contains(progress.String(), "engine: "+string(tc.name)) {
				t.Errorf("progress does not name the engine:\n%s", progress.String())
			}
			im.mu.Lock()
			defer im.mu.Unlock()
			if len(im.chats) == 0 {
				t.Fatal("no chat requests")
			}
			for _, b := range im.chats {
				if !strings.Contains(b, tc.field) {
					t.Errorf("chat body %s lacks %s", b, tc.field)
				}
			}
		})
	}
}

// TestEngineIgnoreEOSWarning: a workload with ignore_eos against an
// engine that does not honour it says so in every trial's warnings, so a
// reader knows output lengths follow the model.
func TestEngineIgnoreEOSWarning(t *testing.T) {
	_, url := startImitation(t, engine.Ollama)
	r := newRunner(t, url, nil)
	res, err := r.Run(context.Background(), chatManifest(), 1) // IgnoreEOS set
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Trials[0].Warnings; len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "Ollama (engine ollama) does not honour it") {
		t.Errorf("warnings %q", w)
	}
	_, url = startImitation(t, engine.VLLM)
	res, err = newRunner(t, url, nil).Run(context.Background(), chatManifest(), 1)
	if err != nil || strings.Contains(strings.Join(res.Trials[0].Warnings, "\n"), "ignore_eos") {
		t.Errorf("vLLM: %v %q", err, res.Trials[0].Warnings)
	}
}

// TestEngineWarnings: token-id prompts to an engine that takes text only
// are named; text prompts and chat are not.
func TestEngineWarnings(t *testing.T) {
	ollama, vllm := engine.Must(engine.Ollama), engine.Must(engine.VLLM)
	ids := manifest(1, 0, 0, 4) // token-id prompts, ignore_eos
	if w := strings.Join(engineWarnings(ids, ollama, false), "\n"); !strings.Contains(w, "takes text prompts only") || !strings.Contains(w, "prompt_format: text") || !strings.Contains(w, "ignore_eos") {
		t.Errorf("ollama, token ids: %q", w)
	}
	if w := engineWarnings(ids, vllm, false); len(w) != 0 {
		t.Errorf("vllm: %q", w)
	}
	chat := chatManifest()
	chat.Sampling.IgnoreEOS = false
	if w := engineWarnings(chat, ollama, false); len(w) != 0 {
		t.Errorf("ollama chat without ignore_eos: %q", w)
	}
}

// TestEngineConfiguredNoHealth: with server.engine: ollama, readiness
// never probes /health (ollama has none) and is quick.
func TestEngineConfiguredNoHealth(t *testing.T) {
	im, url := startImitation(t, engine.Ollama)
	r := newRunner(t, url, func(c *Config) { c.Engine = engine.Ollama })
	start := time.Now()
	srv, err := r.Prepare(context.Background(), chatManifest())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("ready after %v", took)
	}
	if im.saw("/health") || srv.Engine != "ollama" {
		t.Errorf("probed /health: %v; engine %q", im.saw("/health"), srv.Engine)
	}
}

// TestResetPrefixCachePerEngine: the cache reset goes to the profile's
// endpoint (SGLang's /flush_cache), and an engine without one fails the
// run before any request with an error that says so.
func TestResetPrefixCachePerEngine(t *testing.T) {
	im, url := startImitation(t, engine.SGLang)
	r := newRunner(t, url, func(c *Config) { c.ResetPrefixCache = true; c.Warmups = 0 })
	if _, err := r.Run(context.Background(), manifest(2, 0, 0, 2), 1); err != nil {
		t.Fatalf("SGLang reset: %v", err)
	}
	if !im.saw("/flush_cache") || im.saw("/reset_prefix_cache") {
		t.Errorf("paths %v: want /flush_cache, not vLLM's endpoint", im.paths)
	}

	im, url = startImitation(t, engine.Ollama)
	r = newRunner(t, url, func(c *Config) { c.ResetPrefixCache = true; c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(2, 0, 0, 2), 1)
	if err == nil || !strings.Contains(err.Error(), "Ollama (engine ollama) has no prefix-cache reset endpoint") || res.Complete || len(res.Trials) != 0 {
		t.Errorf("err = %v, trials %d", err, len(res.Trials))
	}
	if im.saw("/v1/completions") {
		t.Error("requests were sent before the reset failed")
	}
}
