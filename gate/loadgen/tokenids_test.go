package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/workload"
)

func TestFitVocab(t *testing.T) {
	m := manifest(2, 1, 0, 4)
	m.Requests[0].PromptIDs = []int{1000, 29999, 4999, 5000, 7}
	m.Warmups[0].PromptIDs = []int{12000}
	for _, tc := range []struct {
		vocab    int
		want     []int
		wantWarm []int
		warn     bool
	}{
		{0, []int{1000, 29999, 4999, 5000, 7}, []int{12000}, false},     // not reported
		{32000, []int{1000, 29999, 4999, 5000, 7}, []int{12000}, false}, // all inside
		{5000, []int{1000, 1000 + 28999%4000, 4999, 1000, 7}, []int{1000 + 11000%4000}, true},
		{2000, []int{1000, 500 + 29499%1500, 500 + 4499%1500, 500 + 4500%1500, 7}, []int{500 + 11500%1500}, true},
	} {
		got, warn := fitVocab(m, tc.vocab)
		if fmt.Sprint(got.Requests[0].PromptIDs) != fmt.Sprint(tc.want) || fmt.Sprint(got.Warmups[0].PromptIDs) != fmt.Sprint(tc.wantWarm) {
			t.Errorf("vocab %d: ids %v warmup %v, want %v %v", tc.vocab, got.Requests[0].PromptIDs, got.Warmups[0].PromptIDs, tc.want, tc.wantWarm)
		}
		if (warn != "") != tc.warn {
			t.Errorf("vocab %d: warning %q", tc.vocab, warn)
		}
		for _, id := range got.Requests[0].PromptIDs {
			if tc.vocab > 0 && id >= tc.vocab {
				t.Errorf("vocab %d: id %d left outside", tc.vocab, id)
			}
		}
	}
	if m.Requests[0].PromptIDs[1] != 29999 {
		t.Error("fitVocab changed the caller's manifest")
	}
}

// vocabServer wraps the fake: /v1/models reports a vocabulary as
// llama.cpp does (meta.n_vocab, when vocab > 0), and a completion whose
// prompt holds an id at or above limit is refused with refusal.
func vocabServer(t *testing.T, vocab, limit int, refusal string) *httptest.Server {
	f := &fake{}
	base := newFake(t, f)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		meta := ""
		if vocab > 0 {
			meta = fmt.Sprintf(`,"meta":{"vocab_type":2,"n_vocab":%d,"n_ctx_train":4096}`, vocab)
		}
		fmt.Fprintf(w, `{"object":"list","data":[{"id":"fake-model","max_model_len":4096%s}]}`, meta)
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct {
			Prompt []int `json:"prompt"`
		}
		_ = json.Unmarshal(b, &body)
		for _, id := range body.Prompt {
			if id >= limit {
				http.Error(w, refusal, http.StatusBadRequest)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		f.complete(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		base.Config.Handler.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func idsManifest(n int, id int) *workload.Manifest {
	m := manifest(n, 2, 0, 4)
	for i := range m.Requests {
		m.Requests[i].PromptIDs = []int{id, id + 1, id + 2}
	}
	return m
}

// TestVocabReported: a server that reports a vocabulary smaller than the
// workload's random ids (a small llama.cpp model) gets ids inside it, and
// so answers every request, with a warning saying the prompts were folded.
func TestVocabReported(t *testing.T) {
	ts := vocabServer(t, 5000, 5000, `{"error":{"code":400,"message":"Prompt contains invalid tokens","type":"invalid_request_error"}}`)
	r := newRunner(t, ts.URL, func(c *Config) { c.Engine = engine.LlamaCpp })
	res, err := r.Run(t.Context(), idsManifest(10, 20000), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	if tr.Failed != 0 || !strings.Contains(strings.Join(tr.Warnings, "\n"), "vocabulary of 5000 tokens") {
		t.Errorf("failed %d (%v), warnings %q", tr.Failed, tr.ErrorSamples, tr.Warnings)
	}
}

// TestInvalidTokensHintEveryEngine: a server that refuses token ids and
// reports no vocabulary fails the run with an error naming
// dataset.prompt_format: text, whatever the engine; when only some
// requests are refused the trial warns the same.
func TestInvalidTokensHintEveryEngine(t *testing.T) {
	for _, tc := range []struct {
		eng     engine.Name
		refusal string
	}{
		{engine.VLLM, `{"object":"error","message":"Token id 20000 is out of vocabulary","type":"BadRequestError","code":400}`},
		{engine.LlamaCpp, `{"error":{"code":400,"message":"Prompt contains invalid tokens","type":"invalid_request_error"}}`},
		{engine.OpenAI, `{"error":{"message":"invalid token id in prompt"}}`},
	} {
		t.Run(string(tc.eng), func(t *testing.T) {
			ts := vocabServer(t, 0, 10000, tc.refusal)
			r := newRunner(t, ts.URL, func(c *Config) { c.Engine = tc.eng })
			_, err := r.Run(t.Context(), idsManifest(4, 20000), 1)
			if err == nil || !strings.Contains(err.Error(), "dataset.prompt_format: text") {
				t.Fatalf("error %v: want the text-prompt remedy", err)
			}
			m := idsManifest(4, 20000)
			m.Requests[0].PromptIDs = []int{1000, 1001, 1002}
			res, err := r.Run(t.Context(), m, 1)
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.Join(res.Trials[0].Warnings, "\n"); !strings.Contains(w, "3 request(s) failed") || !strings.Contains(w, "dataset.prompt_format: text") {
				t.Errorf("warnings %q", w)
			}
		})
	}
}

// TestIgnoreEOSWarningFollowsObservation: the generic profile assumes a
// server may not honour ignore_eos, but a trial whose every request came
// back with exactly max_tokens shows that it did: no warning then (an
// independent vLLM-compatible simulator got one per trial although all 240
// requests stopped at the requested length). With nothing observed (every
// request failed) the profile's assumption still warns.
func TestIgnoreEOSWarningFollowsObservation(t *testing.T) {
	ts := newFake(t, &fake{})
	r := newRunner(t, ts.URL, func(c *Config) { c.Engine = engine.OpenAI })
	res, err := r.Run(t.Context(), manifest(20, 4, 0, 6), 1)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Trials[0].Warnings, "\n"); strings.Contains(w, "ignore_eos") {
		t.Errorf("all 20 requests had their length, yet: %q", w)
	}
	var none eosSeen
	if w := strings.Join(engineWarnings(manifest(1, 0, 0, 4), engine.Must(engine.OpenAI), none.exact()), "\n"); !strings.Contains(w, "ignore_eos") {
		t.Errorf("nothing observed: %q", w)
	}
}
