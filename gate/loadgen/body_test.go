package loadgen

import (
	"encoding/json"
	"testing"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestBodyVLLMBytes pins the bytes of vLLM requests: the engine profiles
// must not change what perfgate sends to vLLM, or every baseline recorded
// before them would measure a different request.
func TestBodyVLLMBytes(t *testing.T) {
	chat := &workload.Manifest{API: workload.Chat, Sampling: workload.Sampling{IgnoreEOS: true}}
	comp := &workload.Manifest{API: workload.Completions, Sampling: workload.Sampling{IgnoreEOS: true}}
	for _, tc := range []struct {
		name string
		m    *workload.Manifest
		req  workload.Request
		want string
	}{
		{"chat", chat, workload.Request{Prompt: "hi", MaxTokens: 16},
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
		{"completions ids", comp, workload.Request{PromptIDs: []int{1, 2}, MaxTokens: 16},
			`{"model":"m","prompt":[1,2],"max_tokens":16,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
		{"completions text", comp, workload.Request{Prompt: "hi", MaxTokens: 16},
			`{"model":"m","prompt":"hi","max_tokens":16,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
	} {
		got, err := encodeBodies(tc.m, []workload.Request{tc.req}, "m", "", engine.Must(engine.VLLM), true)
		if err != nil {
			t.Fatal(err)
		}
		if string(got[0]) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got[0], tc.want)
		}
	}
}

// TestBodyMaxTokensPerEngine: each profile's chat requests carry the
// fields that engine reads as the token bound. ollama reads max_tokens
// only; a chat request with max_completion_tokens alone ran to the
// request timeout (issue 11).
func TestBodyMaxTokensPerEngine(t *testing.T) {
	m := &workload.Manifest{API: workload.Chat}
	for _, tc := range []struct {
		engine                   engine.Name
		maxTokens, maxCompletion bool
		continuous               bool
	}{
		{engine.VLLM, false, true, true},
		{engine.SGLang, true, true, true},
		{engine.Ollama, true, false, false},
		{engine.LlamaCpp, true, true, false},
		{engine.TGI, true, false, false},
		{engine.OpenAI, true, true, true},
	} {
		got, err := encodeBodies(m, []workload.Request{{Prompt: "hi", MaxTokens: 7}}, "m", "", engine.Must(tc.engine), true)
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			MaxTokens     *int `json:"max_tokens"`
			MaxCompletion *int `json:"max_completion_tokens"`
			StreamOptions struct {
				Continuous *bool `json:"continuous_usage_stats"`
			} `json:"stream_options"`
		}
		if err := json.Unmarshal(got[0], &b); err != nil {
			t.Fatal(err)
		}
		if (b.MaxTokens != nil) != tc.maxTokens || (b.MaxTokens != nil && *b.MaxTokens != 7) {
			t.Errorf("%s: max_tokens %v, want present=%v (7): %s", tc.engine, b.MaxTokens, tc.maxTokens, got[0])
		}
		if (b.MaxCompletion != nil) != tc.maxCompletion || (b.MaxCompletion != nil && *b.MaxCompletion != 7) {
			t.Errorf("%s: max_completion_tokens %v, want present=%v (7): %s", tc.engine, b.MaxCompletion, tc.maxCompletion, got[0])
		}
		if (b.StreamOptions.Continuous != nil) != tc.continuous {
			t.Errorf("%s: continuous_usage_stats %v, want present=%v", tc.engine, b.StreamOptions.Continuous, tc.continuous)
		}
		// Completions carry max_tokens on every engine.
		comp := &workload.Manifest{API: workload.Completions}
		got, err = encodeBodies(comp, []workload.Request{{Prompt: "hi", MaxTokens: 7}}, "m", "", engine.Must(tc.engine), false)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			MaxTokens     *int `json:"max_tokens"`
			MaxCompletion *int `json:"max_completion_tokens"`
		}
		if err := json.Unmarshal(got[0], &c); err != nil || c.MaxTokens == nil || *c.MaxTokens != 7 || c.MaxCompletion != nil {
			t.Errorf("%s completions: %s", tc.engine, got[0])
		}
	}
}
