package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxBody bounds request bodies; vLLM has no such limit but a test server
// should not buffer gigabytes because of a broken client.
const maxBody = 32 << 20

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if s.kind() == EngineOllama {
		s.ollamaModels(w)
		return
	}
	owner := "vllm"
	if s.kind() == EngineSGLang {
		owner = "sglang"
	}
	cfg := s.Config()
	type model struct {
		ID          string  `json:"id"`
		Object      string  `json:"object"`
		Created     int64   `json:"created"`
		OwnedBy     string  `json:"owned_by"`
		Root        string  `json:"root"`
		Parent      *string `json:"parent"`
		MaxModelLen int     `json:"max_model_len"`
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []model{{
		ID: cfg.Model, Object: "model", Created: s.born.Unix(), OwnedBy: owner, Root: cfg.Model,
		MaxModelLen: cfg.MaxModelLen}}})
}

// handleHealth answers 200 with an empty body like vLLM, or 503 while the
// slow-start fault is active and after Close.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	sglang := s.kind() == EngineSGLang // SGLang answers 503 with an empty body
	if s.stopped() {
		if sglang {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		s.writeError(w, http.StatusServiceUnavailable, "engine is shut down")
		return
	}
	if time.Since(s.born) < s.Config().Faults.SlowStart.D() {
		s.met.fault(faultSlowStart)
		if sglang {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		s.writeError(w, http.StatusServiceUnavailable, "engine is starting")
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.Config().Version})
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if s.kind() == EngineSGLang {
		_ = s.writeSGLangMetrics(w)
		return
	}
	_ = s.writeMetrics(w)
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}

func (s *Server) handleResetPrefixCache(w http.ResponseWriter, r *http.Request) {
	s.eng.resetPrefixCache()
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleGetConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Config())
}

// handleSetConfig merges a JSON object into the current config: fields that
// are present change, the rest stay. Unknown fields are an error so a typo
// in a test does not silently leave the server unchanged.
func (s *Server) handleSetConfig(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "reading body: %v", err)
		return
	}
	var decodeErr error
	err = s.Update(func(c *Config) {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		decodeErr = dec.Decode(c)
	})
	if decodeErr != nil {
		s.writeError(w, http.StatusBadRequest, "POST /sim/config: %v", decodeErr)
		return
	}
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "POST /sim/config: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, s.Config())
}

// handleTokenize counts tokens with the simulator's tokenizer: exact for
// token-id prompts, approximate (about four characters a token) for text.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string          `json:"model"`
		Prompt   json.RawMessage `json:"prompt"`
		Messages []chatMessage   `json:"messages"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	cfg := s.Config()
	if req.Model != "" && req.Model != cfg.Model {
		s.reject(w, http.StatusNotFound, "The model `%s` does not exist.", req.Model)
		return
	}
	var ids []uint64
	switch {
	case req.Messages != nil:
		text, err := chatPrompt(req.Messages)
		if err != nil {
			s.reject(w, http.StatusBadRequest, "%v", err)
			return
		}
		ids = tokenize(text)
	case len(req.Prompt) > 0:
		prompts, err := parsePrompt(req.Prompt)
		if err != nil || len(prompts) != 1 {
			s.reject(w, http.StatusBadRequest, "prompt must be a string or a list of token ids")
			return
		}
		ids = prompts[0]
	default:
		s.reject(w, http.StatusBadRequest, "either prompt or messages is required")
		return
	}
	out := make([]uint64, len(ids))
	for i, id := range ids {
		out[i] = publicID(id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": cfg.MaxModelLen, "tokens": out})
}

// decode reads a JSON body into v, answering 400 in vLLM's shape when it is
// not valid JSON.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		s.reject(w, http.StatusBadRequest, "reading request body: %v", err)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		s.reject(w, http.StatusBadRequest, "%s", jsonErrorMessage(err))
		return false
	}
	return true
}

func jsonErrorMessage(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("JSON decode error at offset %d: %v", e.Offset, e)
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("invalid type for field %q: expected %s, got JSON %s", e.Field, e.Type, e.Value)
	}
	return "invalid JSON body: " + err.Error()
}

// reject answers a client error and counts it.
func (s *Server) reject(w http.ResponseWriter, status int, format string, args ...any) {
	s.met.count(func(m *metricsState) { m.rejects++ })
	s.writeError(w, status, format, args...)
}
