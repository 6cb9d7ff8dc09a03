package engine

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// engineServer imitates the identifying endpoints of an engine: each path
// answers its body with 200, everything else 404, with an optional Server
// header. It also checks the bearer token Detect sends.
func engineServer(t *testing.T, server string, paths map[string]string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("%s %s: detection must only GET", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer k" {
			t.Errorf("%s: Authorization %q", r.URL.Path, got)
		}
		if server != "" {
			w.Header().Set("Server", server)
		}
		body, ok := paths[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		server  string
		paths   map[string]string
		want    Name
		version string
	}{
		{"vllm", "uvicorn", map[string]string{"/version": `{"version":"0.11.0"}`, "/health": ""}, VLLM, "0.11.0"},
		// SGLang's /get_server_info holds its server args and version.
		{"sglang", "uvicorn", map[string]string{"/get_server_info": `{"model_path":"Qwen/Qwen3-8B","tp_size":4,"version":"0.5.2"}`, "/health": ""}, SGLang, "0.5.2"},
		// A SGLang that also answers /version is still SGLang.
		{"sglang with /version", "", map[string]string{"/get_server_info": `{"tp_size":1,"version":"0.5.2"}`, "/version": `{"version":"0.5.2"}`}, SGLang, "0.5.2"},
		{"ollama", "", map[string]string{"/api/version": `{"version":"0.17.4"}`}, Ollama, "0.17.4"},
		{"llama.cpp by /props", "llama.cpp", map[string]string{"/props": `{"default_generation_settings":{"n_ctx":4096},"total_slots":4,"build_info":"b6000-abc"}`}, LlamaCpp, "b6000-abc"},
		{"llama.cpp by header", "llama.cpp", map[string]string{}, LlamaCpp, ""},
		{"tgi", "", map[string]string{"/info": `{"model_id":"m","router":"text-generation-router","version":"3.0.0"}`}, TGI, "3.0.0"},
		{"unknown", "nginx", map[string]string{"/v1/models": `{"data":[]}`}, OpenAI, ""},
		// A /get_server_info that is not SGLang's (no server args) does
		// not make a server SGLang.
		{"other server_info", "", map[string]string{"/get_server_info": `{"status":"ok"}`}, OpenAI, ""},
		{"html everywhere", "", map[string]string{"/version": "<html>", "/info": "<html>", "/props": "<html>"}, OpenAI, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := engineServer(t, tc.server, tc.paths)
			d := Detect(context.Background(), ts.Client(), ts.URL+"/", "k")
			if d.Name != tc.want || d.Version != tc.version || d.Evidence == "" {
				t.Errorf("Detect = %+v, want %s %q", d, tc.want, tc.version)
			}
		})
	}
}

// TestDetectUnreachable: a server that cannot be reached is the generic
// profile, quickly, and a cancelled context stops the probes.
func TestDetectUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	start := time.Now()
	d := Detect(context.Background(), nil, url, "")
	if d.Name != OpenAI || time.Since(start) > 5*time.Second {
		t.Errorf("Detect = %+v after %v", d, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := Detect(ctx, nil, url, ""); d.Name != OpenAI || !strings.Contains(d.Evidence, "interrupted") {
		t.Errorf("cancelled: %+v", d)
	}
}

func TestFromHeader(t *testing.T) {
	for in, want := range map[string]Name{"llama.cpp": LlamaCpp, "Ollama/0.1": Ollama, "uvicorn": "", "": ""} {
		got, ok := FromHeader(in)
		if got != want || ok != (want != "") {
			t.Errorf("FromHeader(%q) = %q %v", in, got, ok)
		}
	}
}
