package loadgen

import (
	"encoding/json"
	"fmt"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/workload"
)

// body is the JSON of one streaming request. Field order is fixed, so the
// bytes sent are reproducible.
type body struct {
	Model               string             `json:"model"`
	Prompt              any                `json:"prompt,omitempty"`
	Messages            []workload.Message `json:"messages,omitempty"`
	MaxTokens           int                `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                `json:"max_completion_tokens,omitempty"`
	Stream              bool               `json:"stream"`
	StreamOptions       streamOptions      `json:"stream_options"`
	Temperature         *float64           `json:"temperature,omitempty"`
	TopP                *float64           `json:"top_p,omitempty"`
	Seed                *int64             `json:"seed,omitempty"`
	IgnoreEOS           bool               `json:"ignore_eos,omitempty"`
	MinTokens           int                `json:"min_tokens,omitempty"`
	CacheSalt           string             `json:"cache_salt,omitempty"`
	TopK                *int               `json:"top_k,omitempty"`
	MinP                *float64           `json:"min_p,omitempty"`
	FrequencyPenalty    *float64           `json:"frequency_penalty,omitempty"`
	PresencePenalty     *float64           `json:"presence_penalty,omitempty"`
	RepetitionPenalty   *float64           `json:"repetition_penalty,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
	// ContinuousUsage asks vLLM for cumulative usage in every chunk, which
	// gives the exact token count of each chunk (itl_token_ms).
	ContinuousUsage bool `json:"continuous_usage_stats,omitempty"`
}

// encodeBodies serialises every request before a trial starts, so no JSON
// encoding happens on the measuring path. The engine profile p decides
// which fields carry a chat request's token bound (ollama reads only
// max_tokens, so a request with max_completion_tokens alone would run to
// the model's limit) and whether continuous usage is asked for; vLLM's
// requests are the bytes perfgate always sent.
func encodeBodies(m *workload.Manifest, reqs []workload.Request, model, salt string, p engine.Profile, continuous bool) ([][]byte, error) {
	continuous = continuous && p.ContinuousUsage
	var chatMax, chatMaxCompletion bool
	for _, f := range p.MaxTokensFields(true) {
		chatMax = chatMax || f == "max_tokens"
		chatMaxCompletion = chatMaxCompletion || f == "max_completion_tokens"
	}
	out := make([][]byte, len(reqs))
	for i := range reqs {
		r := &reqs[i]
		b := body{
			Model:         model,
			Stream:        true,
			StreamOptions: streamOptions{IncludeUsage: true, ContinuousUsage: continuous},
			Temperature:   m.Sampling.Temperature,
			TopP:          m.Sampling.TopP,
			Seed:          m.Sampling.Seed,
			IgnoreEOS:     m.Sampling.IgnoreEOS,
			MinTokens:     m.Sampling.MinTokens,
			CacheSalt:     salt,

			TopK:              m.Sampling.TopK,
			MinP:              m.Sampling.MinP,
			FrequencyPenalty:  m.Sampling.FrequencyPenalty,
			PresencePenalty:   m.Sampling.PresencePenalty,
			RepetitionPenalty: m.Sampling.RepetitionPenalty,
		}
		switch {
		case m.API == workload.Chat:
			b.Messages = r.Messages
			if chatMax {
				b.MaxTokens = r.MaxTokens
			}
			if chatMaxCompletion {
				b.MaxCompletionTokens = r.MaxTokens
			}
			if b.Messages == nil {
				b.Messages = []workload.Message{{Role: "user", Content: r.Prompt}}
			}
		case r.PromptIDs != nil:
			b.Prompt, b.MaxTokens = r.PromptIDs, r.MaxTokens
		default:
			b.Prompt, b.MaxTokens = r.Prompt, r.MaxTokens
		}
		data, err := json.Marshal(&b)
		if err != nil {
			return nil, fmt.Errorf("encode request %d: %w", r.Index, err)
		}
		if i == 0 {
			if err := checkExtra(data, m.ExtraBody); err != nil {
				return nil, fmt.Errorf("workload %s: %w", m.Cell, err)
			}
		}
		out[i] = mergeExtra(data, m.ExtraBody)
	}
	return out, nil
}

// checkExtra refuses an extra_body member that the encoded body b already
// has. Workload validation refuses the keys perfgate writes, but a body
// field added later (for another engine) must not end up twice in the
// JSON, where the server would pick one of the two silently.
func checkExtra(b, extra []byte) error {
	if len(extra) <= 2 {
		return nil
	}
	var have, add map[string]json.RawMessage
	if err := json.Unmarshal(b, &have); err != nil {
		return fmt.Errorf("encoded body: %w", err)
	}
	if err := json.Unmarshal(extra, &add); err != nil {
		return fmt.Errorf("extra_body: %w", err)
	}
	for k := range add {
		if _, dup := have[k]; dup {
			return fmt.Errorf("extra_body key %q is also written by perfgate", k)
		}
	}
	return nil
}

// mergeExtra appends the members of the JSON object extra (a workload's
// extra_body, compact) to the encoded body b. Validation refuses every
// key body writes, so no member appears twice.
func mergeExtra(b, extra []byte) []byte {
	if len(extra) <= 2 { // nil or {}
		return b
	}
	out := make([]byte, 0, len(b)+len(extra))
	out = append(out, b[:len(b)-1]...)
	out = append(out, ',')
	return append(out, extra[1:]...)
}

// endpoint is the API path of m.
func endpoint(m *workload.Manifest) string {
	if m.API == workload.Chat {
		return "/v1/chat/completions"
	}
	return "/v1/completions"
}
