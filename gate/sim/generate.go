package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

// params are the request fields shared by completions and chat.
type params struct {
	Model         string          `json:"model"`
	MaxTokens     *int            `json:"max_tokens"`
	MinTokens     int             `json:"min_tokens"`
	IgnoreEOS     bool            `json:"ignore_eos"`
	Stop          json.RawMessage `json:"stop"`
	Temperature   *float64        `json:"temperature"`
	Seed          *int64          `json:"seed"`
	CacheSalt     *string         `json:"cache_salt"`
	N             *int            `json:"n"`
	Stream        bool            `json:"stream"`
	StreamOptions *streamOptions  `json:"stream_options"`
}

type completionRequest struct {
	params
	Prompt json.RawMessage `json:"prompt"`
}

type chatRequest struct {
	params
	Messages            []chatMessage `json:"messages"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
}

// job is one accepted generation request: its sequences (one per prompt),
// the shared output queue, and how to frame the response.
type job struct {
	chat       bool
	id         string
	created    int64
	model      string
	seqs       []*seq
	out        *output
	stream     bool
	usage      bool
	continuous bool
	stamp      bool
	faults     faultPlan
	// persona is the engine whose stream framing the job follows.
	persona string
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	if !s.arrive(w) {
		return
	}
	if s.kind() == EngineOllama {
		s.ollamaCompletions(w, r)
		return
	}
	var req completionRequest
	if !s.decode(w, r, &req) {
		return
	}
	prompts, err := parsePrompt(req.Prompt)
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%v", err)
		return
	}
	maxTokens := req.MaxTokens
	if maxTokens == nil {
		// vLLM's CompletionRequest defaults max_tokens to 16, like OpenAI's
		// legacy API; chat defaults to whatever fits in the context.
		d := 16
		maxTokens = &d
	}
	s.generate(w, r, false, &req.params, prompts, maxTokens)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if !s.arrive(w) {
		return
	}
	if s.kind() == EngineOllama {
		s.ollamaChat(w, r)
		return
	}
	var req chatRequest
	if !s.decode(w, r, &req) {
		return
	}
	text, err := chatPrompt(req.Messages)
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%v", err)
		return
	}
	maxTokens := req.MaxCompletionTokens
	if maxTokens == nil {
		maxTokens = req.MaxTokens // deprecated by OpenAI, still honoured by vLLM
	}
	s.generate(w, r, true, &req.params, [][]uint64{tokenize(text)}, maxTokens)
}

// arrive counts an inference request and applies the exit fault: past the
// limit the server behaves as dead (connection cut) and OnExit fires once.
func (s *Server) arrive(w http.ResponseWriter) bool {
	n := s.received.Add(1)
	s.met.count(func(m *metricsState) { m.received = n })
	if s.stopped() {
		s.writeError(w, http.StatusServiceUnavailable, "engine is shut down")
		return false
	}
	if limit := s.Config().Faults.ExitAfterRequests; limit > 0 && n > int64(limit) {
		s.met.fault(faultExit)
		s.exitOnce.Do(func() {
			if s.opts.OnExit != nil {
				go s.opts.OnExit()
			}
		})
		panic(http.ErrAbortHandler)
	}
	return true
}

// generate validates the shared parameters, applies the status faults,
// queues the sequences and writes the response.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, chat bool, p *params, prompts [][]uint64, maxTokens *int) {
	cfg := s.Config()
	ollama := s.kind() == EngineOllama
	if p.Model != "" && p.Model != cfg.Model {
		if ollama {
			s.reject(w, http.StatusNotFound, "model %q not found, try pulling it first", p.Model)
			return
		}
		s.reject(w, http.StatusNotFound, "The model `%s` does not exist.", p.Model)
		return
	}
	stop, err := parseStop(p.Stop)
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%v", err)
		return
	}
	switch {
	case ollama:
		// ollama validates none of vLLM's sampling parameters.
	case p.N != nil && *p.N != 1:
		s.reject(w, http.StatusBadRequest, "n=%d is not supported by the simulator (only n=1)", *p.N)
		return
	case p.StreamOptions != nil && !p.Stream:
		s.reject(w, http.StatusBadRequest, "Stream options can only be defined when `stream=True`.")
		return
	case p.CacheSalt != nil && *p.CacheSalt == "":
		s.reject(w, http.StatusBadRequest, "Parameter 'cache_salt' must be a non-empty string if provided.")
		return
	case p.Temperature != nil && *p.Temperature < 0:
		s.reject(w, http.StatusBadRequest, "temperature must be non-negative, got %v.", *p.Temperature)
		return
	case maxTokens != nil && *maxTokens < 1:
		s.reject(w, http.StatusBadRequest, "max_tokens must be at least 1, got %d.", *maxTokens)
		return
	case p.MinTokens < 0:
		s.reject(w, http.StatusBadRequest, "min_tokens must be greater than or equal to 0, got %d.", p.MinTokens)
		return
	case maxTokens != nil && p.MinTokens > *maxTokens:
		s.reject(w, http.StatusBadRequest, "min_tokens must be less than or equal to max_tokens=%d, got %d.", *maxTokens, p.MinTokens)
		return
	}
	limits := make([]int, len(prompts))
	for i, pr := range prompts {
		if len(pr) == 0 {
			s.reject(w, http.StatusBadRequest, "The prompt cannot be empty.")
			return
		}
		if len(pr) >= cfg.MaxModelLen {
			if s.kind() == EngineSGLang { // TokenizerManager's wording
				s.reject(w, http.StatusBadRequest, "The input (%d tokens) is longer than the model's context length (%d tokens).", len(pr), cfg.MaxModelLen)
				return
			}
			s.reject(w, http.StatusBadRequest, "This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", cfg.MaxModelLen, len(pr))
			return
		}
		limits[i] = cfg.MaxModelLen - len(pr)
		if maxTokens != nil && ollama {
			// ollama stops at the context's end instead of refusing.
			limits[i] = min(*maxTokens, limits[i])
		} else if maxTokens != nil {
			if len(pr)+*maxTokens > cfg.MaxModelLen && s.kind() == EngineSGLang {
				s.reject(w, http.StatusBadRequest, "Requested token count exceeds the model's maximum context length of %d tokens. You requested a total of %d tokens: %d tokens from the input messages and %d tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.", cfg.MaxModelLen, len(pr)+*maxTokens, len(pr), *maxTokens)
				return
			}
			if len(pr)+*maxTokens > cfg.MaxModelLen {
				s.reject(w, http.StatusBadRequest, "This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.", cfg.MaxModelLen, len(pr)+*maxTokens, len(pr), *maxTokens)
				return
			}
			limits[i] = *maxTokens
		}
	}

	plan := s.drawFaults(&cfg)
	if plan.status != 0 {
		s.met.fault(statusFaultKind[plan.status])
		s.writeError(w, plan.status, "simulated %d fault", plan.status)
		return
	}

	n := s.received.Load()
	reqID := r.Header.Get("X-Request-Id")
	if reqID == "" {
		reqID = fmt.Sprintf("sim-%d-%s", n, strconv.FormatUint(fnvUint64(fnvOffset, cfg.Seed^uint64(n)), 36))
	}
	prefix := "cmpl-"
	if chat {
		prefix = "chatcmpl-"
	}
	j := &job{chat: chat, id: prefix + reqID, created: time.Now().Unix(), model: cfg.Model,
		out: &output{requestID: reqID, notify: make(chan struct{}, 1)}, stream: p.Stream,
		stamp: cfg.StampSendTime, faults: plan, persona: s.kind()}
	if p.StreamOptions != nil {
		j.usage = p.StreamOptions.IncludeUsage
		// As in vLLM and SGLang; ollama has no continuous usage.
		j.continuous = j.usage && p.StreamOptions.ContinuousUsageStats && !ollama
	}
	arrival := s.clk.now()
	salt := ""
	if p.CacheSalt != nil {
		salt = *p.CacheSalt
	}
	for i, pr := range prompts {
		rng := newRand(cfg.Seed, uint64(n)<<16|uint64(i)|1<<62)
		if p.Seed != nil {
			rng = newRand(uint64(*p.Seed), uint64(i))
		}
		j.seqs = append(j.seqs, &seq{num: uint64(n), index: i, prompt: pr, salt: salt, maxTokens: limits[i],
			minTokens: p.MinTokens, ignoreEOS: p.IgnoreEOS, stop: stop, rng: rng, arrival: arrival, out: j.out})
	}
	if s.kind() == "" {
		w.Header().Set("X-Request-Id", reqID) // vLLM echoes it; SGLang and ollama do not
	}

	// The first-token delay models slow pre-processing in the API server:
	// the request reaches the scheduler late, so TTFT grows and TPOT does not.
	if d := cfg.FirstTokenDelay.D(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.eng.quit:
			t.Stop()
			s.writeError(w, http.StatusServiceUnavailable, "engine is shut down")
			return
		}
	}
	s.eng.submit(j.seqs...)
	defer s.eng.abort(j.seqs...) // no-op for sequences that finished
	if j.stream {
		s.writeStream(w, r, j)
	} else {
		s.writeWhole(w, r, j)
	}
}

// parseStop accepts a string or a list of strings.
func parseStop(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("stop must be a string or a list of strings")
	}
	return many, nil
}
