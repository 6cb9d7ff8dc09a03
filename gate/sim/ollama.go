package sim

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// ollama's OpenAI compatibility layer (middleware/openai.go and
// openai/openai.go in github.com/ollama/ollama) binds requests into Go
// structs with gin, so it differs from vLLM in what it ignores and how it
// refuses:
//   - the prompt must be a string: a token-id list fails to bind with
//     "json: cannot unmarshal array into Go struct field
//     CompletionRequest.prompt of type string" (400);
//   - max_tokens is the only length field (num_predict): chat's
//     max_completion_tokens, ignore_eos, min_tokens, cache_salt and
//     stream_options.continuous_usage_stats are unknown fields, silently
//     dropped, so a request without max_tokens runs until EOS or the
//     context ends;
//   - none of vLLM's parameter checks apply.

// ollamaRequest holds the fields ollama's CompletionRequest and
// ChatCompletionRequest share that the simulator uses.
type ollamaRequest struct {
	Model         string          `json:"model"`
	MaxTokens     *int            `json:"max_tokens"`
	Seed          *int64          `json:"seed"`
	Stop          json.RawMessage `json:"stop"`
	Stream        bool            `json:"stream"`
	Temperature   *float64        `json:"temperature"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// params converts to the simulator's request parameters, leaving out
// every field ollama ignores.
func (o *ollamaRequest) params() *params {
	p := &params{Model: o.Model, MaxTokens: o.MaxTokens, Seed: o.Seed, Stop: o.Stop, Stream: o.Stream, Temperature: o.Temperature}
	if o.StreamOptions != nil {
		p.StreamOptions = &streamOptions{IncludeUsage: o.StreamOptions.IncludeUsage}
	}
	return p
}

// ollamaBind decodes body into v as gin's ShouldBindJSON does and answers
// its error as ollama does (NewError(400, err.Error())). structName is
// the Go type ollama binds into, which its type errors name.
func (s *Server) ollamaBind(w http.ResponseWriter, r *http.Request, structName string, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%v", err)
		return false
	}
	err = json.Unmarshal(body, v)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		// Spelled out rather than err.Error(), whose wording varies with
		// the Go release and names this package's type.
		s.reject(w, http.StatusBadRequest, "json: cannot unmarshal %s into Go struct field %s.%s of type %s", te.Value, structName, te.Field, te.Type)
		return false
	case err != nil:
		s.reject(w, http.StatusBadRequest, "%v", err)
		return false
	}
	return true
}

func (s *Server) ollamaCompletions(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ollamaRequest
		Prompt string `json:"prompt"`
	}
	if !s.ollamaBind(w, r, "CompletionRequest", &req) {
		return
	}
	p := req.params()
	s.generate(w, r, false, p, [][]uint64{tokenize(req.Prompt)}, p.MaxTokens)
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ollamaRequest
		Messages []chatMessage `json:"messages"`
	}
	if !s.ollamaBind(w, r, "ChatCompletionRequest", &req) {
		return
	}
	if len(req.Messages) == 0 {
		s.reject(w, http.StatusBadRequest, "[] is too short - 'messages'")
		return
	}
	text, err := chatPrompt(req.Messages)
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%v", err)
		return
	}
	p := req.params()
	s.generate(w, r, true, p, [][]uint64{tokenize(text)}, p.MaxTokens)
}

// handleOllamaRoot is ollama's liveness answer on "/".
func (s *Server) handleOllamaRoot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("Ollama is running"))
}

// appendOllamaChunk frames one token chunk as ollama does: completions
// carry "usage" zeros on every chunk when include_usage is set (the
// middleware sets an empty Usage on each), chat carries none, and the
// first chat chunk holds the role together with the content.
func (j *job) appendOllamaChunk(buf []byte, text string, finish string, first bool) []byte {
	buf = j.appendOllamaHead(buf)
	if j.chat {
		buf = append(buf, `,"system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{`...)
		switch {
		case first && text != "":
			buf = append(buf, `"role":"assistant","content":`...)
			buf = appendString(buf, text)
		case text != "":
			buf = append(buf, `"content":`...)
			buf = appendString(buf, text)
		}
		buf = append(buf, `},"finish_reason":`...)
		buf = appendNullable(buf, finish)
		buf = append(buf, "}]"...)
		return j.appendTail(buf)
	}
	buf = append(buf, `,"choices":[{"text":`...)
	buf = appendString(buf, text)
	buf = append(buf, `,"index":0,"finish_reason":`...)
	buf = appendNullable(buf, finish)
	buf = append(buf, `}],"model":`...)
	buf = appendString(buf, j.model)
	buf = append(buf, `,"system_fingerprint":"fp_ollama"`...)
	if j.usage {
		buf = append(buf, `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`...)
	}
	return j.appendTail(buf)
}

// appendOllamaUsage is the usage-only chunk ollama sends after the
// finish chunk when include_usage is set: the totals, "choices": [].
func (j *job) appendOllamaUsage(buf []byte, prompt, completion int) []byte {
	buf = j.appendOllamaHead(buf)
	if j.chat {
		buf = append(buf, `,"system_fingerprint":"fp_ollama","choices":[]`...)
	} else {
		buf = append(buf, `,"choices":[],"model":`...)
		buf = appendString(buf, j.model)
		buf = append(buf, `,"system_fingerprint":"fp_ollama"`...)
	}
	buf = append(buf, `,"usage":{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt), 10)
	buf = append(buf, `,"completion_tokens":`...)
	buf = strconv.AppendInt(buf, int64(completion), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(prompt+completion), 10)
	buf = append(buf, '}')
	return j.appendTail(buf)
}

// appendOllamaHead writes the fields before "choices" (chat) or before
// "choices" and "model" (completions, whose struct orders them so).
func (j *job) appendOllamaHead(buf []byte) []byte {
	buf = append(buf, `data: {"id":`...)
	buf = appendString(buf, j.id)
	if j.chat {
		buf = append(buf, `,"object":"chat.completion.chunk","created":`...)
		buf = strconv.AppendInt(buf, j.created, 10)
		buf = append(buf, `,"model":`...)
		return appendString(buf, j.model)
	}
	buf = append(buf, `,"object":"text_completion","created":`...)
	return strconv.AppendInt(buf, j.created, 10)
}

// ollamaModels is ollama's /v1/models (ToListCompletion): no
// max_model_len, owned_by is the name's namespace ("library").
func (s *Server) ollamaModels(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{
		"id": s.Config().Model, "object": "model", "created": s.born.Unix(), "owned_by": "library"}}})
}
