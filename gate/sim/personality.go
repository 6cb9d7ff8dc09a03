package sim

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
)

// The engines the simulator can impersonate (Config.Engine). Each
// personality changes only the HTTP surface — endpoints, error bodies,
// usage reporting, ignored request fields, chunking defaults, headers and
// metric names — never the performance model, so a test of an engine
// quirk measures the same server it would under vLLM. The facts and the
// engine source files they come from are listed in docs/simulator.md.
const (
	// EngineVLLM is vLLM's OpenAI-compatible server; "" means the same.
	EngineVLLM = "vllm"
	// EngineSGLang is SGLang's HTTP server (sglang.launch_server).
	EngineSGLang = "sglang"
	// EngineOllama is ollama's OpenAI compatibility layer (/v1).
	EngineOllama = "ollama"
)

// Engines lists the personalities in sorted order.
func Engines() []string { return []string{EngineOllama, EngineSGLang, EngineVLLM} }

// engineVersions are what each personality reports as its version
// (/version, /get_server_info, /api/version) unless Config.Version was set
// to something else.
var engineVersions = map[string]string{
	EngineSGLang: "0.5.3+perfgate-sim",
	EngineOllama: "0.17.4+perfgate-sim",
}

// ollamaStreamInterval is the ollama personality's default tokens per
// chunk: issue 11 measured 3.4 on ollama v0.17.4 on CPU.
const ollamaStreamInterval = 3

// SetEngine makes c impersonate engine name and applies that engine's
// defaults: its version string and, for ollama, several tokens per chunk.
// Call it before the knobs a user set, so those win.
func (c *Config) SetEngine(name string) error {
	if name == "" {
		name = EngineVLLM
	}
	if !slices.Contains(Engines(), name) {
		return fmt.Errorf("unknown engine %q (known: %v)", name, Engines())
	}
	if name == EngineVLLM {
		c.Engine = ""
		return nil
	}
	c.Engine = name
	c.Version = engineVersions[name]
	if name == EngineOllama {
		c.StreamInterval = ollamaStreamInterval
	}
	return nil
}

// canonEngine maps "vllm" to "", the simulator's original personality.
func canonEngine(name string) string {
	if name == EngineVLLM {
		return ""
	}
	return name
}

// kind is the engine s impersonates, "" for vLLM. It is fixed when the
// server starts: the routes depend on it.
func (s *Server) kind() string { return s.persona }

// errorBody is an error response body in the engine's shape:
//   - vLLM: {"error": {"message", "type", "param", "code": 400}};
//   - SGLang: {"object": "error", "message", "type", "param", "code": 400}
//     (ErrorResponse in sglang/srt/entrypoints/openai/protocol.py);
//   - ollama: {"error": {"message", "type": "invalid_request_error" |
//     "not_found_error" | "api_error", "param": null, "code": null}}
//     (NewError in ollama's openai/openai.go).
func (s *Server) errorBody(status int, msg string) any {
	switch s.kind() {
	case EngineSGLang:
		return sglangError{Object: "error", Message: msg, Type: errorTypes[status], Code: status}
	case EngineOllama:
		t := "api_error"
		switch status {
		case http.StatusBadRequest:
			t = "invalid_request_error"
		case http.StatusNotFound:
			t = "not_found_error"
		}
		return ollamaError{Error: ollamaErrorInfo{Message: msg, Type: t}}
	}
	return newAPIError(status, msg)
}

type sglangError struct {
	Object  string  `json:"object"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

type ollamaError struct {
	Error ollamaErrorInfo `json:"error"`
}

type ollamaErrorInfo struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   any     `json:"param"`
	Code    *string `json:"code"`
}

// routes is the engine's endpoint table. vLLM's is the simulator's
// original surface; the others keep only what the engine serves, so a
// client probing /health, /version, /tokenize or /metrics meets the real
// engine's answer (a 404 where it has none).
func (s *Server) routesFor(kind string) map[string]map[string]http.HandlerFunc {
	sim := map[string]map[string]http.HandlerFunc{
		"/sim/config": {http.MethodGet: s.handleGetConfig, http.MethodPost: s.handleSetConfig},
		"/sim/stats":  {http.MethodGet: s.handleStats},
	}
	add := func(r map[string]map[string]http.HandlerFunc) map[string]map[string]http.HandlerFunc {
		for k, v := range sim {
			r[k] = v
		}
		return r
	}
	get := http.MethodGet
	post := http.MethodPost
	switch kind {
	case EngineSGLang:
		// sglang/srt/entrypoints/http_server.py
		return add(map[string]map[string]http.HandlerFunc{
			"/v1/completions":      {post: s.handleCompletions},
			"/v1/chat/completions": {post: s.handleChat},
			"/v1/models":           {get: s.handleModels},
			"/health":              {get: s.handleHealth},
			"/health_generate":     {get: s.handleHealth},
			"/get_server_info":     {get: s.handleServerInfo},
			"/get_model_info":      {get: s.handleModelInfo},
			"/flush_cache":         {get: s.handleFlushCache, post: s.handleFlushCache},
			"/metrics":             {get: s.handleMetrics},
			"/tokenize":            {post: s.handleTokenize},
			"/v1/tokenize":         {post: s.handleTokenize},
			"/start_profile":       {get: s.handleStartProfile, post: s.handleStartProfile},
			"/stop_profile":        {get: s.handleStopProfile, post: s.handleStopProfile},
		})
	case EngineOllama:
		// GenerateRoutes in ollama's server/routes.go: no /health, no
		// /version, no /tokenize, no /metrics.
		return add(map[string]map[string]http.HandlerFunc{
			"/v1/completions":      {post: s.handleCompletions},
			"/v1/chat/completions": {post: s.handleChat},
			"/v1/models":           {get: s.handleModels},
			"/api/version":         {get: s.handleVersion, http.MethodHead: s.handleVersion},
			"/":                    {get: s.handleOllamaRoot, http.MethodHead: s.handleOllamaRoot},
		})
	}
	return add(map[string]map[string]http.HandlerFunc{
		"/v1/completions":      {post: s.handleCompletions},
		"/v1/chat/completions": {post: s.handleChat},
		"/v1/models":           {get: s.handleModels},
		"/health":              {get: s.handleHealth},
		"/version":             {get: s.handleVersion},
		"/metrics":             {get: s.handleMetrics},
		"/tokenize":            {post: s.handleTokenize},
		"/reset_prefix_cache":  {post: s.handleResetPrefixCache},
		"/start_profile":       {post: s.handleStartProfile},
		"/stop_profile":        {post: s.handleStopProfile},
	})
}

// notFound answers an unknown path or method: FastAPI's JSON for vLLM and
// SGLang, gin's plain text for ollama ("404 page not found", and "405
// method not allowed" since ollama sets HandleMethodNotAllowed).
func (s *Server) notFound(w http.ResponseWriter, methods map[string]http.HandlerFunc) {
	if methods != nil {
		for _, m := range slices.Sorted(maps.Keys(methods)) {
			w.Header().Add("Allow", m)
		}
	}
	if s.kind() == EngineOllama {
		w.Header().Set("Content-Type", "text/plain")
		if methods != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = w.Write([]byte("405 method not allowed"))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("404 page not found"))
		return
	}
	if methods != nil {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
}
