package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// styleServer streams completions in one of the usage styles servers use,
// chunk tokens per chunk, each token the word " w". With tokenize it serves
// /tokenize counting words, so chunk texts can be counted exactly.
type styleServer struct {
	style    string // cumulative, per_chunk, zeros, final, none
	chunk    int
	tokenize bool
}

func (s styleServer) start(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	// Its /version makes engine detection take it for vLLM, whose profile
	// names /tokenize.
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"version":"0.11.0"}`) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","max_model_len":4096}]}`)
	})
	if s.tokenize {
		mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Prompt string `json:"prompt"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			fmt.Fprintf(w, `{"count":%d,"max_model_len":4096,"tokens":[]}`, len(strings.Fields(req.Prompt)))
		})
	}
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MaxTokens int `json:"max_tokens"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s); fl.Flush() }
		sent := 0
		for sent < req.MaxTokens {
			if sent > 0 {
				time.Sleep(2 * time.Millisecond)
			}
			k := min(s.chunk, req.MaxTokens-sent)
			sent += k
			fin := "null"
			if sent == req.MaxTokens {
				fin = `"length"`
			}
			usage := ""
			switch s.style {
			case "cumulative":
				usage = fmt.Sprintf(`,"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}`, sent, sent+3)
			case "per_chunk":
				usage = fmt.Sprintf(`,"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}`, k, k+3)
			case "zeros": // ollama's completions
				usage = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
			}
			send(fmt.Sprintf(`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"%s","finish_reason":%s}]%s}`, strings.Repeat(" w", k), fin, usage))
		}
		if s.style != "none" {
			send(fmt.Sprintf(`{"id":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}}`, sent, sent+3))
		}
		send("[DONE]")
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestTokenCountingStyles runs every usage style with one and with three
// tokens per chunk, with and without a server tokenizer: the output total,
// the method recorded, whether itl_token_ms is approximate, and the ratio
// of itl_ms to itl_token_ms (the tokens a gap was divided among) must come
// out as docs/metrics.md says. The zeros rows are issue 11's ollama case,
// where every trial used to be invalid ("tokens per chunk sum to 0").
func TestTokenCountingStyles(t *testing.T) {
	const maxTok = 12
	tests := []struct {
		style    string
		chunk    int
		tokenize bool
		method   string
		approx   bool
		output   int     // output tokens per request
		ratio    float64 // itl_ms.mean / itl_token_ms.mean
		invalid  string  // part of the invalid reason, "" when valid
	}{
		{"cumulative", 1, false, "usage_cumulative", false, maxTok, 1, ""},
		{"cumulative", 3, false, "usage_cumulative", false, maxTok, 3, ""},
		{"cumulative", 3, true, "usage_cumulative", false, maxTok, 3, ""},
		{"per_chunk", 1, false, "usage_per_chunk", false, maxTok, 1, ""},
		{"per_chunk", 3, false, "usage_per_chunk", false, maxTok, 3, ""},
		{"zeros", 1, false, "one_per_chunk", false, maxTok, 1, ""},
		{"zeros", 3, false, "even_split", true, maxTok, 3, ""},
		{"zeros", 3, true, "tokenize", true, maxTok, 3, ""},
		{"final", 1, false, "one_per_chunk", false, maxTok, 1, ""},
		{"final", 3, false, "even_split", true, maxTok, 3, ""},
		// One per chunk adding up to the usage total is exact: no
		// tokenize requests.
		{"final", 1, true, "one_per_chunk", false, maxTok, 1, ""},
		{"final", 3, true, "tokenize", true, maxTok, 3, ""},
		// No usage at all: without a tokenizer the client can only count
		// chunks; with one it recovers the real output length.
		{"none", 1, false, "one_per_chunk", false, maxTok, 1, ""},
		// Counting chunks undercounts, and the ignore_eos check says so.
		{"none", 3, false, "one_per_chunk", false, maxTok / 3, 1, "ignore_eos requests came back with a different token count"},
		{"none", 3, true, "tokenize", true, maxTok, 3, ""},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s/chunk%d/tokenize=%v", tc.style, tc.chunk, tc.tokenize)
		t.Run(name, func(t *testing.T) {
			url := styleServer{tc.style, tc.chunk, tc.tokenize}.start(t)
			var progress, detail bytes.Buffer
			r := newRunner(t, url, func(c *Config) { c.Warmups, c.Progress, c.Detailed = 0, &progress, &detail })
			m := manifest(4, 4, 0, maxTok)
			res, err := r.Run(context.Background(), m, 1)
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Trials[0]
			if tr.Valid != (tc.invalid == "") || !strings.Contains(tr.InvalidReason, tc.invalid) {
				t.Fatalf("trial valid %v (%s), want invalid for %q", tr.Valid, tr.InvalidReason, tc.invalid)
			}
			if tr.Tokens == nil || tr.Tokens.Method != tc.method || tr.Tokens.ITLTokenApprox != tc.approx {
				t.Fatalf("token counting %+v, want method %s approximate %v", tr.Tokens, tc.method, tc.approx)
			}
			if got := tr.Values["total_output_tokens"]; got != float64(4*tc.output) {
				t.Errorf("total_output_tokens = %v, want %d", got, 4*tc.output)
			}
			ratio := tr.Values["itl_ms.mean"] / tr.Values["itl_token_ms.mean"]
			if math.Abs(ratio-tc.ratio) > 1e-3 {
				t.Errorf("itl_ms.mean / itl_token_ms.mean = %.4f, want %v (tokens per gap)", ratio, tc.ratio)
			}
			several := strings.Contains(strings.Join(tr.Warnings, "\n"), "tokens on average")
			if want := float64(tc.output)/float64(maxTok/tc.chunk) > metrics.WarnTokensPerChunk; several != want {
				t.Errorf("several-tokens warning %v, want %v: %q", several, want, tr.Warnings)
			}
			// Detailed records carry the method, the held ones (counted
			// by the tokenizer after the trial) included.
			for _, line := range strings.Split(strings.TrimSpace(detail.String()), "\n") {
				var d Detail
				if err := json.Unmarshal([]byte(line), &d); err != nil || d.TokenMethod != tc.method {
					t.Errorf("detail %s: token_method %q, want %s (%v)", line, d.TokenMethod, tc.method, err)
				}
			}
			if got := strings.Contains(progress.String(), "tokens a chunk, "+tc.method+")"); got != several {
				t.Errorf("progress line names the chunking %v, want %v: %q", got, several, progress.String())
			}
		})
	}
}

// TestResolveTokens pins the per-message counts of each style on one
// request, including chat's role chunk (no text, no usage) and a finish
// chunk without text.
func TestResolveTokens(t *testing.T) {
	type msg struct {
		usage int // -1: none
		text  bool
	}
	tests := []struct {
		name      string
		msgs      []msg
		output    int // final usage (-1: none)
		method    metrics.TokenMethod
		first     int
		gaps      []uint32 // nil: one per gap
		outTokens int
	}{
		{"cumulative with a role chunk", []msg{{-1, false}, {1, true}, {3, true}, {4, true}}, 4,
			metrics.TokensUsageCumulative, 0, []uint32{1, 2, 1}, 4},
		{"cumulative, one each", []msg{{1, true}, {2, true}, {3, true}}, 3,
			metrics.TokensUsageCumulative, 1, nil, 3},
		{"per chunk", []msg{{2, true}, {2, true}, {1, true}}, 5,
			metrics.TokensUsagePerChunk, 2, []uint32{2, 1}, 5},
		{"zeros then a total: even split", []msg{{0, true}, {0, true}, {0, true}, {0, false}}, 7,
			metrics.TokensEvenSplit, 2, []uint32{2, 3, 0}, 7},
		{"final only, one each with an empty finish chunk", []msg{{-1, true}, {-1, true}, {-1, false}}, 2,
			metrics.TokensOnePerChunk, 1, []uint32{1, 0}, 2},
		{"no usage: count messages with text", []msg{{-1, false}, {-1, true}, {-1, true}}, -1,
			metrics.TokensOnePerChunk, 0, nil, 2},
		{"cumulative that stops short of the total", []msg{{1, true}, {2, true}}, 6,
			metrics.TokensEvenSplit, 3, []uint32{3}, 6},
		{"per chunk with a finish chunk without usage", []msg{{2, true}, {3, true}, {-1, false}}, 5,
			metrics.TokensUsagePerChunk, 2, []uint32{3, 0}, 5},
		{"cumulative with a finish chunk without usage", []msg{{2, true}, {5, true}, {-1, false}}, 5,
			metrics.TokensUsageCumulative, 2, []uint32{3, 0}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := metrics.Request{Chunks: len(tc.msgs)}
			var per []uint32
			all, seen := true, tc.output >= 0
			for _, m := range tc.msgs {
				if m.usage < 0 && m.text {
					all = false
				}
				per = append(per, entry(m.usage, m.usage >= 0, m.text))
			}
			if tc.output >= 0 {
				rec.OutputTokens = tc.output
			}
			resolveTokens(&rec, per, all, seen)
			if rec.Tokens != tc.method || rec.FirstChunkTokens != tc.first || fmt.Sprint(rec.GapTokens) != fmt.Sprint(tc.gaps) || rec.OutputTokens != tc.outTokens {
				t.Errorf("got %v first %d gaps %v output %d, want %v first %d gaps %v output %d",
					rec.Tokens, rec.FirstChunkTokens, rec.GapTokens, rec.OutputTokens, tc.method, tc.first, tc.gaps, tc.outTokens)
			}
		})
	}
}

// TestScaleTo checks the largest-remainder rescaling of tokenizer counts.
func TestScaleTo(t *testing.T) {
	tests := []struct {
		in    []uint32
		total int
		want  []uint32
	}{
		{[]uint32{1, 1, 1}, 3, []uint32{1, 1, 1}},
		{[]uint32{1, 1, 1}, 4, []uint32{2, 1, 1}},
		{[]uint32{2, 0, 2}, 2, []uint32{1, 0, 1}},
		{[]uint32{3, 1}, 8, []uint32{6, 2}},
		{[]uint32{0, 0}, 5, []uint32{0, 0}},
	}
	for _, tc := range tests {
		got := append([]uint32(nil), tc.in...)
		scaleTo(got, tc.total)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("scaleTo(%v, %d) = %v, want %v", tc.in, tc.total, got, tc.want)
		}
	}
}

// TestTokenCountingAgainstSimEngines runs the client against the
// simulator's personalities, one and three tokens a chunk: vLLM and SGLang
// with continuous usage (cumulative), vLLM without it (final only: its
// /tokenize counts the chunks, or the total is split evenly without it),
// ollama completions (zeros on every chunk, no /tokenize) and ollama chat
// (final only). Every trial is valid and counts the tokens the server made.
func TestTokenCountingAgainstSimEngines(t *testing.T) {
	tests := []struct {
		engine   string
		chat     bool
		chunk    int
		noCont   bool
		noTok    bool
		method   string
		approx   bool
		multiple bool // the several-tokens warning
	}{
		{"vllm", false, 1, false, false, "usage_cumulative", false, false},
		{"vllm", false, 3, false, false, "usage_cumulative", false, true},
		{"vllm", true, 3, false, false, "usage_cumulative", false, true},
		{"vllm", false, 3, true, false, "tokenize", true, true},
		{"vllm", false, 3, true, true, "even_split", true, true},
		{"vllm", false, 1, true, true, "one_per_chunk", false, false},
		{"sglang", false, 1, false, false, "usage_cumulative", false, false},
		{"sglang", true, 3, false, false, "usage_cumulative", false, true},
		{"sglang", false, 3, true, false, "tokenize", true, true},
		{"ollama", false, 1, false, false, "one_per_chunk", false, false},
		{"ollama", false, 3, false, false, "even_split", true, true},
		{"ollama", true, 3, false, false, "even_split", true, true},
	}
	const maxTok = 16
	for _, tc := range tests {
		name := fmt.Sprintf("%s/chat=%v/chunk%d/continuous=%v/tokenizer=%v", tc.engine, tc.chat, tc.chunk, !tc.noCont, !tc.noTok)
		t.Run(name, func(t *testing.T) {
			srv, url := startSim(t, func(c *sim.Config) {
				if err := c.SetEngine(tc.engine); err != nil {
					t.Fatal(err)
				}
				c.StreamInterval = tc.chunk
			})
			r := newRunner(t, url, func(c *Config) {
				c.Warmups, c.NoContinuousUsage, c.NoTokenizer = 0, tc.noCont, tc.noTok
			})
			m := manifest(6, 3, 0, maxTok)
			for i := range m.Requests {
				// ollama takes text prompts only; every engine takes them.
				m.Requests[i].PromptIDs, m.Requests[i].Prompt = nil, "count to twenty"
			}
			if tc.chat {
				// The engine profile (detected: ollama's /api/version)
				// sends max_tokens, the field ollama's chat reads.
				m.API = workload.Chat
			}
			res, err := r.Run(context.Background(), m, 1)
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Trials[0]
			if !tr.Valid {
				t.Fatalf("trial invalid: %s", tr.InvalidReason)
			}
			if tr.Tokens == nil || tr.Tokens.Method != tc.method || tr.Tokens.ITLTokenApprox != tc.approx {
				t.Fatalf("token counting %+v, want %s approximate %v", tr.Tokens, tc.method, tc.approx)
			}
			made := 0
			for _, rec := range srv.Records() {
				if strings.Contains(rec.RequestID, "-t0-") {
					made += rec.CompletionTokens
				}
			}
			if got := int(tr.Values["total_output_tokens"]); got != made {
				t.Errorf("total_output_tokens %d, the server made %d", got, made)
			}
			if got := strings.Contains(strings.Join(tr.Warnings, "\n"), "tokens on average"); got != tc.multiple {
				t.Errorf("several-tokens warning %v, want %v (%.2f tokens per chunk): %q", got, tc.multiple, tr.Tokens.TokensPerChunk, tr.Warnings)
			}
		})
	}
}

// TestEOSStopOnAnEngineWithoutIgnoreEOS is issue 11's "the server clamped
// or ignored max_tokens" against the ollama personality, which stops at EOS
// whatever ignore_eos says: the trial names the real cause and its remedy.
func TestEOSStopOnAnEngineWithoutIgnoreEOS(t *testing.T) {
	_, url := startSim(t, func(c *sim.Config) {
		if err := c.SetEngine("ollama"); err != nil {
			t.Fatal(err)
		}
		c.EOSMeanTokens = 6
	})
	r := newRunner(t, url, func(c *Config) { c.Warmups = 0 })
	m := manifest(8, 4, 0, 64)
	for i := range m.Requests {
		m.Requests[i].PromptIDs, m.Requests[i].Prompt = nil, "tell a story"
	}
	res, err := r.Run(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	if tr.Valid || !strings.Contains(tr.InvalidReason, "stopped at EOS") || !strings.Contains(tr.InvalidReason, metrics.EOSRemedy) {
		t.Errorf("valid %v, reason %q", tr.Valid, tr.InvalidReason)
	}
}

// TestClientErrorQuotedInTrial: the ollama personality refuses token-id
// prompts; the run's error and the trial's reason quote why, and the API
// key the server might echo never appears.
func TestClientErrorQuotedInTrial(t *testing.T) {
	_, url := startSim(t, func(c *sim.Config) {
		if err := c.SetEngine("ollama"); err != nil {
			t.Fatal(err)
		}
	})
	r := newRunner(t, url, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(3, 3, 0, 4), 1)
	const why = `http_400: 3: "json: cannot unmarshal array into Go struct field CompletionRequest.prompt of type string"`
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Fatalf("error %v, want it to quote %s", err, why)
	}
	if reason := res.Trials[0].InvalidReason; !strings.Contains(reason, why) || strings.Contains(reason, "sk-secret") {
		t.Errorf("reason %q", reason)
	}
}

// FuzzResolveTokens: whatever usage a stream carried, the counts keep
// their shape (one per gap, or nil) and every method but one_per_chunk
// adds up to the output total, so the consistency check never fires on a
// server that only reported its usage oddly.
func FuzzResolveTokens(f *testing.F) {
	f.Add([]byte{3, 5, 7, 9}, uint16(4), true, true)
	f.Add([]byte{1, 1, 1, 0}, uint16(7), true, false)
	f.Add([]byte{0, 3, 5}, uint16(0), false, true)
	f.Fuzz(func(t *testing.T, per []byte, total uint16, seen, all bool) {
		if len(per) == 0 || len(per) > 64 {
			return
		}
		vals := make([]uint32, len(per))
		for i, b := range per {
			vals[i] = uint32(b) // usage<<2 | hasUsage | hasText, as entry builds it
		}
		rec := metrics.Request{Chunks: len(per), OutputTokens: int(total)}
		if !seen {
			rec.OutputTokens = 0
		}
		resolveTokens(&rec, vals, all, seen)
		if rec.GapTokens != nil && len(rec.GapTokens) != len(per)-1 {
			t.Fatalf("%d gap counts for %d messages", len(rec.GapTokens), len(per))
		}
		sum := rec.FirstChunkTokens
		for _, k := range rec.GapTokens {
			sum += int(k)
		}
		if rec.GapTokens == nil {
			sum += len(per) - 1
		}
		if rec.Tokens != metrics.TokensOnePerChunk && sum != rec.OutputTokens {
			t.Fatalf("%v: counts sum to %d, output %d", rec.Tokens, sum, rec.OutputTokens)
		}
	})
}

// FuzzTokenizeAnswer: the /tokenize answer parser never panics and never
// returns a negative count.
func FuzzTokenizeAnswer(f *testing.F) {
	for _, s := range []string{`{"count":3,"tokens":[1,2,3]}`, `{"tokens":[1]}`, `{"count":-1}`, `[]`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := parseTokenizeAnswer(b); err == nil && n < 0 {
			t.Fatalf("%s: count %d", b, n)
		}
	})
}

// TestTokenizerBodies: vLLM and SGLang get {"model", "prompt",
// "add_special_tokens": false}, llama.cpp {"content"}, all with the
// workload's headers; an engine whose profile names no tokenizer is never
// asked.
func TestTokenizerBodies(t *testing.T) {
	var got []map[string]any
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		_ = json.NewDecoder(r.Body).Decode(&b)
		got = append(got, b)
		if r.Header.Get("X-Team") != "perf" {
			t.Errorf("the workload's header is missing: %v", r.Header)
		}
		fmt.Fprint(w, `{"tokens":[1,2]}`)
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	r := newRunner(t, ts.URL, nil)
	c := &client{http: ts.Client(), headers: http.Header{"X-Team": {"perf"}}}
	for _, name := range []engine.Name{engine.VLLM, engine.LlamaCpp, engine.Ollama} {
		tok := r.probeTokenizer(context.Background(), c, "m", engine.Must(name))
		if (tok == nil) != (name == engine.Ollama) {
			t.Errorf("%s: tokenizer %v", name, tok)
		}
	}
	if len(got) != 2 || got[0]["prompt"] != "perfgate" || got[0]["add_special_tokens"] != false || got[0]["model"] != "m" ||
		got[1]["content"] != "perfgate" || len(got[1]) != 1 {
		t.Errorf("bodies %v", got)
	}
}
