package loadgen

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

func TestParseChunk(t *testing.T) {
	tests := []struct {
		in   string
		want chunk
		bad  bool
	}{
		{`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
			chunk{choices: true, text: [2][2]int{{95, 100}}, texts: 1}, false},
		{`{"id":"cmpl-1","choices":[],"usage":{"prompt_tokens":201,"completion_tokens":128,"total_tokens":329}}`,
			chunk{usage: true, promptTokens: 201, completionTokens: 128}, false},
		{`{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}],"usage":null}`,
			chunk{choices: true, finish: "length", text: [2][2]int{{32, 35}}, texts: 1}, false},
		// ollama's completions chunk: zero usage on a token message.
		{`{"id":"cmpl-9","object":"text_completion","created":1,"choices":[{"text":"ab","index":0,"finish_reason":null}],"model":"m","system_fingerprint":"fp_ollama","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
			chunk{choices: true, usage: true, text: [2][2]int{{73, 77}}, texts: 1}, false},
		// Reasoning and content in one delta: both are output text.
		{`{"choices":[{"delta":{"reasoning_content":"r","content":"c"}}]}`,
			chunk{choices: true, text: [2][2]int{{42, 45}, {56, 59}}, texts: 2}, false},
		// ollama's finish chunk: an empty delta.
		{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			chunk{choices: true, finish: "stop"}, false},
		{`{"choices":[{"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":0}}`,
			chunk{choices: true, usage: true, promptTokens: 5}, false},
		{`{"error":{"message":"boom \"quoted\" }","type":"InternalServerError","param":null,"code":500}}`,
			chunk{err: true}, false},
		{`{"object":"error","message":"bad","code":400}`, chunk{err: true}, false},
		{` { "choices" : [ { "text" : "a]}" } ] } `, chunk{choices: true, text: [2][2]int{{28, 33}}, texts: 1}, false},
		{`{"choices":[{"text":"a"}]`, chunk{}, true},
		{`[1,2]`, chunk{}, true},
		{``, chunk{}, true},
		{`{"a":}`, chunk{}, true},
	}
	for _, tc := range tests {
		got, err := parseChunk([]byte(tc.in))
		if (err != nil) != tc.bad {
			t.Errorf("%s: err = %v, want bad=%v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}

// reference decodes with encoding/json: the oracle for the fuzz target.
func reference(b []byte) (chunk, bool) {
	var m struct {
		Choices []struct {
			Finish any `json:"finish_reason"`
			Text   any `json:"text"`
			Delta  any `json:"delta"`
		} `json:"choices"`
		Usage *struct {
			Prompt     any `json:"prompt_tokens"`
			Completion any `json:"completion_tokens"`
		} `json:"usage"`
		Error  json.RawMessage `json:"error"`
		Object any             `json:"object"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return chunk{}, false
	}
	var c chunk
	c.choices = len(m.Choices) > 0
	if c.choices {
		if s, ok := m.Choices[0].Finish.(string); ok {
			c.finish = s
		}
	}
	c.texts = len(referenceTexts(b))
	if m.Usage != nil {
		c.usage = true
		if f, ok := m.Usage.Prompt.(float64); ok && f == float64(int(f)) && f >= 0 {
			c.promptTokens = int(f)
		}
		if f, ok := m.Usage.Completion.(float64); ok && f == float64(int(f)) && f >= 0 {
			c.completionTokens = int(f)
		}
	}
	c.err = (len(m.Error) > 0 && string(m.Error) != "null") || m.Object == "error"
	return c, true
}

func FuzzChunk(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"text":"a","finish_reason":null}],"usage":null}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
		`{"error":{"message":"x","code":500}}`,
		`{"choices":[{"delta":{"content":"\"}"},"finish_reason":"stop"}]}`,
		`{"object":"error"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseChunk(b) // must never panic
		want, valid := reference(b)
		if !valid || err != nil {
			return // the fast scanner is lenient on invalid JSON by design
		}
		// Duplicate keys and escaped keys are resolved differently by
		// encoding/json (last wins, unescaping); skip those inputs.
		if hasTrickyKeys(b) {
			return
		}
		texts := parsedTexts(&got, b)
		if wt := referenceTexts(b); len(wt) <= len(got.text) && !slices.Equal(texts, wt) {
			t.Fatalf("%s: texts %q, want %q", b, texts, wt)
		} else if len(wt) > len(got.text) {
			return // more output fields than a chunk keeps
		}
		got.text = [2][2]int{}
		if got != want {
			t.Fatalf("%s:\n got %+v\nwant %+v", b, got, want)
		}
	})
}

// parsedTexts decodes the output strings parseChunk found, sorted.
func parsedTexts(c *chunk, b []byte) []string {
	var out []string
	for _, t := range c.text[:c.texts] {
		var s string
		if err := json.Unmarshal(b[t[0]:t[1]], &s); err == nil {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// referenceTexts lists the first choice's non-empty output strings with
// encoding/json, sorted.
func referenceTexts(b []byte) []string {
	var m struct {
		Choices []map[string]any `json:"choices"`
	}
	if json.Unmarshal(b, &m) != nil || len(m.Choices) == 0 || m.Choices[0] == nil {
		return nil
	}
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	add(m.Choices[0]["text"])
	if d, ok := m.Choices[0]["delta"].(map[string]any); ok {
		for _, k := range []string{"content", "reasoning_content", "reasoning"} {
			add(d[k])
		}
	}
	slices.Sort(out)
	return out
}

// hasTrickyKeys reports inputs where the fast scanner and encoding/json
// legitimately disagree: escapes and non-ASCII (encoding/json unescapes and
// folds case), upper-case letters (it matches keys case-insensitively),
// floats and huge numbers (the scanner reads plain integers only) and
// duplicate keys (it keeps the last, the scanner merges).
func hasTrickyKeys(b []byte) bool {
	if tricky.Match(b) {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var stack []map[string]bool
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil }
	// inObj tracks whether the next string token is a key.
	var keyNext []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				markValue(keyNext)
				stack = append(stack, map[string]bool{})
				keyNext = append(keyNext, true)
			case '[':
				markValue(keyNext)
				stack = append(stack, nil)
				keyNext = append(keyNext, false)
			default:
				stack, keyNext = stack[:len(stack)-1], keyNext[:len(keyNext)-1]
			}
		case string:
			if expectKey() && keyNext[len(keyNext)-1] {
				if stack[len(stack)-1][v] {
					return true
				}
				stack[len(stack)-1][v] = true
				keyNext[len(keyNext)-1] = false
				continue
			}
			markValue(keyNext)
		default:
			markValue(keyNext)
		}
	}
}

// markValue notes that a value was read in the current object, so the next
// string is a key again.
func markValue(keyNext []bool) {
	if n := len(keyNext); n > 0 {
		keyNext[n-1] = true
	}
}

var tricky = regexp.MustCompile(`[\\A-Z]|[^\x00-\x7f]|[0-9][eE.]|[0-9]{15}`)
