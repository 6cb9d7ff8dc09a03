package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// textManifest expands a random workload with prompt_format text.
func textManifest(t *testing.T, api string) *workload.Manifest {
	t.Helper()
	src := "name: text\napi: " + api + "\ndataset: {kind: random, input_tokens: 80, output_tokens: 4, range_ratio: 0.25, prompt_format: text}\n" +
		"load: {requests: 12, concurrency: 4}\nwarmups: 2\ntimeout: 10s\n"
	f, err := workload.Parse("text.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

// TestCalibrateByUsage runs text prompts against the simulator, whose
// tokenizer splits words longer than four letters, with its /tokenize
// (method "tokenize") and hidden as on ollama (method "usage": the
// prompt_tokens of two one-token requests). Either fit is recorded in the
// result, and the server then counts the prompts within 3 % of their
// input_tokens on average (each within 15 %) (uncalibrated, one word a token, it counts about a quarter
// more).
func TestCalibrateByUsage(t *testing.T) {
	for _, tc := range []struct{ api, method string }{
		{"completions", "usage"}, {"chat", "usage"}, {"completions", "tokenize"}, {"chat", "tokenize"},
	} {
		api := tc.api
		cfg, err := sim.Preset("fast")
		if err != nil {
			t.Fatal(err)
		}
		s := sim.New(cfg)
		mux := http.NewServeMux()
		if tc.method == "usage" {
			mux.HandleFunc("POST /tokenize", http.NotFound)
		}
		mux.Handle("/", s)
		ts := httptest.NewServer(mux)
		t.Cleanup(func() { ts.Close(); s.Close() })
		url := ts.URL
		var detail bytes.Buffer
		r := newRunner(t, url, func(c *Config) { c.Detailed = &detail })
		m := textManifest(t, api)
		res, err := r.Run(context.Background(), m, 1)
		if err != nil {
			t.Fatal(err)
		}
		c := res.Workload.Calibration
		if c == nil || c.Method != tc.method || len(c.Samples) != 2 || !(c.TokensPerWord > 1.05) {
			t.Fatalf("%s: calibration %+v", api, c)
		}
		sc := bufio.NewScanner(&detail)
		n, sent, wanted := 0, 0, 0
		for sc.Scan() {
			var d Detail
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			want := m.Requests[d.Index].InputTokens
			sent, wanted = sent+d.InputTokens, wanted+want
			if math.Abs(float64(d.InputTokens-want)) > 0.15*float64(want) {
				t.Errorf("%s request %d: the server counted %d prompt tokens for input_tokens %d", api, d.Index, d.InputTokens, want)
			}
			n++
		}
		if n != len(m.Requests) {
			t.Fatalf("%s: %d records", api, n)
		}
		// Words differ in tokens, so single prompts scatter; the mean is
		// what the fit controls.
		if e := float64(sent)/float64(wanted) - 1; math.Abs(e) > 0.03 {
			t.Errorf("%s/%s: prompts average %+.1f %% off their input_tokens", api, tc.method, 100*e)
		}
	}
}

// TestCalibrateByTokenize: a server with /tokenize (here two tokens a word
// plus one) is asked there, once per probe and once per Runner and cell
// however many times the trials are run.
func TestCalibrateByTokenize(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(cfg)
	calls := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			Model  string `json:"model"`
			Prompt string `json:"prompt"`
		}
		if json.NewDecoder(r.Body).Decode(&b) != nil || b.Model == "" || b.Prompt == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if n := len(strings.Fields(b.Prompt)); n == workload.ProbeWords[0] || n == workload.ProbeWords[1] {
			calls++ // a probe; token accounting may count chunk text here too
		}
		fmt.Fprintf(w, `{"count":%d,"max_model_len":4096,"tokens":[]}`, 2*len(strings.Fields(b.Prompt))+1)
	})
	mux.Handle("/", s)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.Close(); s.Close() })
	r := newRunner(t, ts.URL, nil)
	m := textManifest(t, "completions")
	res, err := r.Run(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Workload.Calibration
	if c == nil || c.Method != "tokenize" || c.TokensPerWord != 2 || c.OverheadTokens != 1 {
		t.Fatalf("calibration %+v", c)
	}
	if err := r.RunTrials(context.Background(), m, res, 1); err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(res.Trials) != 2 {
		t.Errorf("%d /tokenize calls over %d trials, want 2 (one per probe, once)", calls, len(res.Trials))
	}
}

// TestCalibrationFailure: a server that counts no prompt tokens leaves
// text prompts unsizable, which fails the cell with the reason instead of
// sending prompts of unknown length.
func TestCalibrationFailure(t *testing.T) {
	ts := newFake(t, &fake{})
	r := newRunner(t, ts.URL, nil)
	res, err := r.Run(context.Background(), textManifest(t, "completions"), 1)
	if err == nil || !strings.Contains(err.Error(), "cannot be sized") {
		t.Fatalf("error %v", err)
	}
	if res.Complete || len(res.Trials) != 0 {
		t.Errorf("complete %v with %d trials", res.Complete, len(res.Trials))
	}
}

// TestOllamaLatestTag: a workload naming an ollama model without its tag
// (as `ollama run NAME` is written) is served by NAME:latest, the name
// ollama's /v1/models lists; other engines keep the exact match.
func TestOllamaLatestTag(t *testing.T) {
	for _, engine := range []string{"ollama", ""} {
		_, url := startSim(t, func(c *sim.Config) {
			if engine != "" {
				if err := c.SetEngine(engine); err != nil {
					t.Fatal(err)
				}
			}
			c.Model = "tiny:latest"
		})
		r := newRunner(t, url, nil)
		m := textManifest(t, "chat")
		m.Model = "tiny"
		srv, err := r.Prepare(context.Background(), m)
		if engine == "ollama" && (err != nil || srv.Model != "tiny:latest") {
			t.Errorf("ollama: model %q, %v", srv.Model, err)
		}
		if engine == "" && (err == nil || !strings.Contains(err.Error(), `does not serve model "tiny"`)) {
			t.Errorf("vllm: %v, want the exact name refused", err)
		}
	}
}

// TestTextPromptsOnOllamaPersonality: the ollama personality answers 400
// to token-id prompts (issue 11); prompt_format text gets every trial
// through, calibrated by usage since the ollama profile has no tokenizer
// endpoint.
func TestTextPromptsOnOllamaPersonality(t *testing.T) {
	_, url := startSim(t, func(c *sim.Config) {
		if err := c.SetEngine("ollama"); err != nil {
			t.Fatal(err)
		}
	})
	r := newRunner(t, url, nil)
	res, err := r.Run(context.Background(), textManifest(t, "completions"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Workload.Calibration; c == nil || c.Method != "usage" {
		t.Errorf("calibration %+v, want one by usage", c)
	}
	if tr := res.Trials[0]; tr.Completed != 12 {
		t.Errorf("%d of 12 requests completed: %s", tr.Completed, tr.InvalidReason)
	}
}

// TestTokenIDsOnTextOnlyEngine: token ids sent to the ollama personality
// fail every request with its 400; the run's error names the remedy.
func TestTokenIDsOnTextOnlyEngine(t *testing.T) {
	_, url := startSim(t, func(c *sim.Config) {
		if err := c.SetEngine("ollama"); err != nil {
			t.Fatal(err)
		}
	})
	r := newRunner(t, url, func(c *Config) { c.Warmups = 0 })
	_, err := r.Run(context.Background(), manifest(4, 2, 0, 8), 1)
	if err == nil || !strings.Contains(err.Error(), "every request") || !strings.Contains(err.Error(), "set dataset.prompt_format: text") {
		t.Errorf("error %v", err)
	}
}
