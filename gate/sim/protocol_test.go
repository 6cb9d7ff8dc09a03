package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestCompletionStreamFraming(t *testing.T) {
	_, url := start(t, fastConfig(t))
	tests := []struct {
		name       string
		body       string
		wantTokens int  // token chunks (stream_interval 1: one per token)
		wantUsage  bool // a final usage chunk with choices []
		continuous bool // every token chunk carries cumulative usage
	}{
		{"string prompt, usage", `{"model":"sim-fast","prompt":"hello there world","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`, 5, true, false},
		{"default max_tokens is 16", `{"prompt":"hi","stream":true}`, 16, false, false},
		{"token ids, no usage", `{"prompt":[1,2,3,4,5,6,7],"max_tokens":3,"stream":true}`, 3, false, false},
		{"continuous usage", `{"prompt":[1,2,3],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`, 4, true, true},
		// vLLM only honours continuous_usage_stats together with include_usage.
		{"continuous without include", `{"prompt":[1,2,3],"max_tokens":2,"stream":true,"stream_options":{"continuous_usage_stats":true}}`, 2, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, "/v1/completions", tc.body, "X-Request-Id", "req-42")
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			fs := frames(t, body)
			n := len(fs)
			if tc.wantUsage {
				n--
				u := fs[n]
				if u.Choices == nil || len(u.Choices) != 0 || u.Usage == nil {
					t.Fatalf("last chunk is not a usage chunk with choices []: %+v", u)
				}
				if u.Usage.CompletionTokens != tc.wantTokens || u.Usage.TotalTokens != u.Usage.PromptTokens+tc.wantTokens {
					t.Errorf("usage %+v, want %d completion tokens", *u.Usage, tc.wantTokens)
				}
			}
			if n != tc.wantTokens {
				t.Fatalf("%d token chunks, want %d", n, tc.wantTokens)
			}
			for i, f := range fs[:n] {
				if f.ID != "cmpl-req-42" || f.Object != "text_completion" || f.Model != "sim-fast" || f.Created == 0 {
					t.Errorf("chunk %d header %+v", i, f)
				}
				if len(f.Choices) != 1 || f.Choices[0].Text == "" {
					t.Fatalf("chunk %d choices %+v", i, f.Choices)
				}
				last := i == n-1
				if fr := f.Choices[0].FinishReason; (fr != nil) != last || (last && *fr != "length") {
					t.Errorf("chunk %d finish_reason %v", i, fr)
				}
				if tc.continuous != (f.Usage != nil) {
					t.Errorf("chunk %d usage %+v, continuous %v", i, f.Usage, tc.continuous)
				}
				if tc.continuous && f.Usage.CompletionTokens != i+1 {
					t.Errorf("chunk %d cumulative completion_tokens %d", i, f.Usage.CompletionTokens)
				}
			}
			if got := resp.Header.Get("X-Request-Id"); got != "req-42" {
				t.Errorf("x-request-id echoed as %q", got)
			}
		})
	}
}

func TestChatStreamFraming(t *testing.T) {
	_, url := start(t, fastConfig(t))
	body := `{"model":"sim-fast","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_completion_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`
	resp, raw := post(t, url, "/v1/chat/completions", body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	fs := frames(t, raw)
	if len(fs) != 1+4+1 {
		t.Fatalf("got %d chunks, want role + 4 tokens + usage", len(fs))
	}
	role := fs[0].Choices[0].Delta
	if role == nil || role.Role == nil || *role.Role != "assistant" {
		t.Fatalf("first chunk is not the role chunk: %+v", fs[0])
	}
	var text strings.Builder
	for i, f := range fs[1:5] {
		if f.Object != "chat.completion.chunk" || !strings.HasPrefix(f.ID, "chatcmpl-") {
			t.Errorf("chunk %d header %+v", i, f)
		}
		d := f.Choices[0].Delta
		if d == nil || d.Content == nil || d.Role != nil {
			t.Fatalf("chunk %d delta %+v", i, d)
		}
		text.WriteString(*d.Content)
		if (f.Choices[0].FinishReason != nil) != (i == 3) {
			t.Errorf("chunk %d finish_reason %v", i, f.Choices[0].FinishReason)
		}
	}
	u := fs[5].Usage
	if u == nil || u.CompletionTokens != 4 || len(fs[5].Choices) != 0 {
		t.Fatalf("usage chunk %+v", fs[5])
	}
	// The generated text re-tokenizes to exactly the reported count.
	if n := len(tokenize(text.String())); n != 4 {
		t.Errorf("text %q tokenizes to %d tokens", text.String(), n)
	}
	// The prompt count is the chat template's token count.
	want := len(tokenize("<|system|>\nbe brief\n<|user|>\nhi\n<|assistant|>\n"))
	if u.PromptTokens != want {
		t.Errorf("prompt_tokens %d, want %d", u.PromptTokens, want)
	}
}

func TestNonStreaming(t *testing.T) {
	_, url := start(t, fastConfig(t))
	resp, raw := post(t, url, "/v1/completions", `{"prompt":["one two","three four five"],"max_tokens":3}`)
	var c struct {
		Object  string `json:"object"`
		Choices []struct {
			Index        int    `json:"index"`
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d body %s err %v", resp.StatusCode, raw, err)
	}
	if c.Object != "text_completion" || len(c.Choices) != 2 || c.Usage.CompletionTokens != 6 {
		t.Fatalf("response %s", raw)
	}
	for i, ch := range c.Choices {
		if ch.Index != i || ch.FinishReason != "length" || len(tokenize(ch.Text)) != 3 {
			t.Errorf("choice %d: %+v", i, ch)
		}
	}
	wantPrompt := len(tokenize("one two")) + len(tokenize("three four five"))
	if c.Usage.PromptTokens != wantPrompt || c.Usage.TotalTokens != wantPrompt+6 {
		t.Errorf("usage %+v, want prompt %d", c.Usage, wantPrompt)
	}

	resp, raw = post(t, url, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`)
	var ch struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct{ Role, Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &ch); err != nil || resp.StatusCode != 200 {
		t.Fatalf("chat: status %d body %s", resp.StatusCode, raw)
	}
	if ch.Object != "chat.completion" || ch.Choices[0].Message.Role != "assistant" || ch.Usage.CompletionTokens != 2 {
		t.Errorf("chat response %s", raw)
	}
}

func TestStopStrings(t *testing.T) {
	cfg := fastConfig(t)
	_, url := start(t, cfg)
	// With a fixed seed the output is reproducible; stop at its third word.
	_, raw := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":8,"seed":7}`)
	var full struct{ Choices []struct{ Text string } }
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatal(err)
	}
	words := strings.SplitAfter(full.Choices[0].Text, " ")
	third := " " + strings.TrimSpace(strings.Split(full.Choices[0].Text, " ")[3])
	want := strings.Join(words[:3], "")
	want = strings.TrimSuffix(want, " ")
	body := fmt.Sprintf(`{"prompt":"x","max_tokens":8,"seed":7,"stop":[%q]}`, third)
	_, raw = post(t, url, "/v1/completions", body)
	var got struct {
		Choices []struct {
			Text         string
			FinishReason string  `json:"finish_reason"`
			StopReason   *string `json:"stop_reason"`
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Choices[0]
	if !strings.HasPrefix(full.Choices[0].Text, c.Text) || strings.Contains(c.Text, third) || c.FinishReason != "stop" || c.StopReason == nil || *c.StopReason != third {
		t.Errorf("full %q, stop %q: got %+v (want text %q)", full.Choices[0].Text, third, c, want)
	}
}

func TestErrors(t *testing.T) {
	cfg := fastConfig(t)
	cfg.MaxModelLen = 100
	_, url := start(t, cfg)
	ids := func(n int) string { return strings.TrimSuffix(strings.Repeat("1,", n), ",") }
	tests := []struct {
		name, method, path, body string
		status                   int
		msg                      string // substring of error.message (or detail)
	}{
		{"malformed JSON", "POST", "/v1/completions", `{"prompt": "x",`, 400, "JSON"},
		{"wrong type", "POST", "/v1/completions", `{"prompt": "x", "max_tokens": "ten"}`, 400, "max_tokens"},
		{"missing prompt", "POST", "/v1/completions", `{"max_tokens": 3}`, 400, "prompt is required"},
		{"empty prompt list", "POST", "/v1/completions", `{"prompt": []}`, 400, "empty"},
		{"bad prompt item", "POST", "/v1/completions", `{"prompt": [{"a":1}]}`, 400, "prompt"},
		{"negative id", "POST", "/v1/completions", `{"prompt": [1,-2]}`, 400, "negative"},
		{"empty string prompt", "POST", "/v1/completions", `{"prompt": ""}`, 400, "empty"},
		{"too long", "POST", "/v1/completions", `{"prompt": [` + ids(90) + `], "max_tokens": 20}`, 400, "This model's maximum context length is 100 tokens. However, you requested 110 tokens (90 in the messages, 20 in the completion)"},
		{"prompt alone too long", "POST", "/v1/completions", `{"prompt": [` + ids(100) + `]}`, 400, "maximum context length is 100 tokens"},
		{"unknown model", "POST", "/v1/completions", `{"model": "gpt-9", "prompt": "x"}`, 404, "The model `gpt-9` does not exist."},
		{"unknown model chat", "POST", "/v1/chat/completions", `{"model": "gpt-9", "messages": [{"role":"user","content":"x"}]}`, 404, "does not exist"},
		{"no messages", "POST", "/v1/chat/completions", `{"messages": []}`, 400, "messages"},
		{"chat too long", "POST", "/v1/chat/completions", `{"messages": [{"role":"user","content":"x"}], "max_completion_tokens": 99}`, 400, "maximum context length"},
		{"max_tokens zero", "POST", "/v1/completions", `{"prompt": "x", "max_tokens": 0}`, 400, "at least 1"},
		{"min over max", "POST", "/v1/completions", `{"prompt": "x", "max_tokens": 2, "min_tokens": 3}`, 400, "min_tokens"},
		{"negative temperature", "POST", "/v1/completions", `{"prompt": "x", "temperature": -1}`, 400, "temperature"},
		{"stream options without stream", "POST", "/v1/completions", `{"prompt": "x", "stream_options": {"include_usage": true}}`, 400, "stream=True"},
		{"empty cache_salt", "POST", "/v1/completions", `{"prompt": "x", "cache_salt": ""}`, 400, "cache_salt"},
		{"n > 1", "POST", "/v1/completions", `{"prompt": "x", "n": 2}`, 400, "n=2"},
		{"bad stop", "POST", "/v1/completions", `{"prompt": "x", "stop": 3}`, 400, "stop"},
		{"unknown path", "GET", "/v1/nothing", ``, 404, "Not Found"},
		{"wrong method", "GET", "/v1/completions", ``, 405, "Method Not Allowed"},
		{"tokenize unknown model", "POST", "/tokenize", `{"model":"x","prompt":"a"}`, 404, "does not exist"},
		{"config typo", "POST", "/sim/config", `{"decode_scal": 2}`, 400, "unknown field"},
		{"config out of range", "POST", "/sim/config", `{"jitter_cv": -1}`, 400, "jitter_cv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error *struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    int     `json:"code"`
				} `json:"error"`
				Detail string `json:"detail"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (%+v)", resp.StatusCode, tc.status, e)
			}
			msg := e.Detail
			if e.Error != nil {
				msg = e.Error.Message
				if e.Error.Code != tc.status || e.Error.Type != errorTypes[tc.status] {
					t.Errorf("error code %d type %q", e.Error.Code, e.Error.Type)
				}
			}
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not contain %q", msg, tc.msg)
			}
		})
	}
}

func TestUtilityEndpoints(t *testing.T) {
	srv, url := start(t, fastConfig(t))
	resp, body := get(t, url, "/v1/models")
	var models struct {
		Object string
		Data   []struct {
			ID, Root    string
			MaxModelLen int `json:"max_model_len"`
		}
	}
	if err := json.Unmarshal(body, &models); err != nil || resp.StatusCode != 200 || models.Object != "list" ||
		len(models.Data) != 1 || models.Data[0].ID != "sim-fast" || models.Data[0].Root != "sim-fast" || models.Data[0].MaxModelLen != 4096 {
		t.Errorf("/v1/models %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, url, "/health"); resp.StatusCode != 200 {
		t.Errorf("/health %d", resp.StatusCode)
	}
	if _, body := get(t, url, "/version"); !strings.Contains(string(body), `"version":"0.11.0+perfgate-sim"`) {
		t.Errorf("/version %s", body)
	}
	_, body = post(t, url, "/tokenize", `{"prompt":[5,6,7]}`)
	if !strings.Contains(string(body), `"count":3`) || !strings.Contains(string(body), `"tokens":[5,6,7]`) {
		t.Errorf("/tokenize ids: %s", body)
	}
	_, body = post(t, url, "/tokenize", `{"prompt":"hello world, again"}`)
	if want := fmt.Sprintf(`"count":%d`, len(tokenize("hello world, again"))); !strings.Contains(string(body), want) {
		t.Errorf("/tokenize text: %s, want %s", body, want)
	}
	_, body = post(t, url, "/tokenize", `{"messages":[{"role":"user","content":"hi"}]}`)
	if !strings.Contains(string(body), `"count":`) {
		t.Errorf("/tokenize messages: %s", body)
	}
	if resp, _ := post(t, url, "/reset_prefix_cache", ``); resp.StatusCode != 200 {
		t.Errorf("/reset_prefix_cache %d", resp.StatusCode)
	}
	resp, body = post(t, url, "/sim/config", `{"decode_scale":1.5,"faults":{"stall_for":"3ms"}}`)
	if resp.StatusCode != 200 || srv.Config().DecodeScale != 1.5 || srv.Config().Faults.StallFor.D().Milliseconds() != 3 {
		t.Errorf("/sim/config %d %s", resp.StatusCode, body)
	}
	if srv.Config().PrefillScale != 1 {
		t.Errorf("fields absent from POST /sim/config changed")
	}
	if _, body := get(t, url, "/sim/config"); !strings.Contains(string(body), `"decode_scale":1.5`) {
		t.Errorf("GET /sim/config %s", body)
	}
}

func TestTokenizer(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{" the", 1},
		{"hello", 2},          // "hell" "o"
		{"hello world", 4},    // "hell" "o" " wor" "ld"
		{"a  b", 3},           // "a" " " " b"
		{"line\nnext", 3},     // "line" "\n" "next"
		{" the of and to", 4}, // vocabulary words are one token each
	}
	for _, tc := range tests {
		if got := len(tokenize(tc.text)); got != tc.want {
			t.Errorf("tokenize(%q) = %d tokens, want %d", tc.text, got, tc.want)
		}
	}
	for _, w := range vocab {
		if n := len(tokenize(w)); n != 1 {
			t.Errorf("vocabulary word %q is %d tokens", w, n)
		}
	}
}
