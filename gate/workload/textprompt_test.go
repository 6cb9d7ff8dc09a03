package workload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// textWorkload is a prefix-repetition workload; format "" leaves
// prompt_format out.
func textWorkload(api, format string) string {
	s := "name: tw\napi: " + api + "\ndataset:\n  kind: prefix-repetition\n  input_tokens: 20\n  output_tokens: 4\n" +
		"  range_ratio: 0.5\n  prefix_tokens: 12\n  num_prefixes: 2\n  seed: 7\n"
	if format != "" {
		s += "  prompt_format: " + format + "\n"
	}
	return s + "load: {requests: 6}\nwarmups: 2\n"
}

func parse1(t *testing.T, src string) *Manifest {
	t.Helper()
	f, err := Parse("tw.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

// promptOf returns the text a request sends.
func promptOf(r Request) string {
	if r.Messages != nil {
		return r.Messages[0].Content
	}
	return r.Prompt
}

// TestTextPromptsNominal: prompt_format text sends words, not ids, on the
// completions API; expanded nominally (one word a token) each prompt has
// input_tokens words, and requests that share a prefix share its words.
func TestTextPromptsNominal(t *testing.T) {
	for _, api := range []string{"completions", "chat"} {
		m := parse1(t, textWorkload(api, "text"))
		if m.PromptFormat != PromptText {
			t.Fatalf("%s: prompt format %q", api, m.PromptFormat)
		}
		prefixes := map[string]int{}
		for _, r := range append(append([]Request{}, m.Requests...), m.Warmups...) {
			if r.PromptIDs != nil {
				t.Fatalf("%s: request %d sends token ids", api, r.Index)
			}
			if (api == "chat") != (r.Messages != nil) {
				t.Fatalf("%s: request %d has the wrong shape", api, r.Index)
			}
			words := strings.Fields(promptOf(r))
			if len(words) != r.InputTokens {
				t.Errorf("%s: request %d: %d words for %d tokens", api, r.Index, len(words), r.InputTokens)
			}
			prefixes[strings.Join(words[:12], " ")]++
		}
		// Two measured prefixes (3 requests each) and one warmup prefix.
		if len(prefixes) != 3 {
			t.Errorf("%s: %d distinct prefixes, want 3: %v", api, len(prefixes), prefixes)
		}
	}
}

// TestTextPromptHashes: the key changes the hash of the workload it is
// added to (other prompts are sent) but not of a workload without it, and
// writing the default token_ids explicitly changes nothing.
func TestTextPromptHashes(t *testing.T) {
	ids := parse1(t, textWorkload("completions", "")).Hash
	if parse1(t, textWorkload("completions", "token_ids")).Hash != ids {
		t.Error("prompt_format: token_ids changed the hash of a completions workload")
	}
	txt := parse1(t, textWorkload("completions", "text")).Hash
	if txt == ids {
		t.Error("prompt_format: text did not change the hash")
	}
	if parse1(t, textWorkload("chat", "text")).Hash == parse1(t, textWorkload("chat", "")).Hash {
		t.Error("calibrated chat prompts hash like uncalibrated ones")
	}
	// Pinned: the text expansion is part of the file format too.
	const golden = "7d3cf40d8ba50d6ea0ccb8e55a170773f39a64d6dc6068d93a0de1a2f7961e87"
	if txt != golden {
		t.Errorf("text workload hash %s, want %s: the expansion changed", txt, golden)
	}
}

// TestCalibrate renders the prompts for a server that counts two tokens a
// word and three per request: the request's own words pay for the
// overhead, the prefix keeps its words shared, the hash and the original
// manifest stay as they were.
func TestCalibrate(t *testing.T) {
	m := parse1(t, textWorkload("completions", "text"))
	before := promptOf(m.Requests[0])
	c := result.PromptCalibration{Method: "tokenize", TokensPerWord: 2, OverheadTokens: 3}
	got, err := m.Calibrate(c)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != m.Hash || got.Calibration == nil || got.Calibration.TokensPerWord != 2 || got.Calibration.Method != "tokenize" {
		t.Errorf("hash %s (was %s), calibration %+v", got.Hash, m.Hash, got.Calibration)
	}
	if promptOf(m.Requests[0]) != before {
		t.Error("Calibrate changed the manifest it was given")
	}
	byPrefix := map[string]string{}
	for _, r := range got.Requests {
		words := strings.Fields(promptOf(r))
		own := max(1, int(float64(r.InputTokens-12-3)/2+0.5))
		if len(words) != 6+own {
			t.Errorf("request %d: %d words, want 6 prefix + %d own (input %d)", r.Index, len(words), own, r.InputTokens)
		}
		orig := strings.Fields(promptOf(m.Requests[r.Index]))
		if strings.Join(words[:6], " ") != strings.Join(orig[:6], " ") {
			t.Errorf("request %d: calibrated prefix is not the start of the nominal one", r.Index)
		}
		key := strings.Join(orig[:12], " ")
		if p, ok := byPrefix[key]; ok && p != strings.Join(words[:6], " ") {
			t.Errorf("request %d: requests of one prefix differ after calibration", r.Index)
		}
		byPrefix[key] = strings.Join(words[:6], " ")
	}
	if _, err := m.Calibrate(result.PromptCalibration{TokensPerWord: 0}); err == nil {
		t.Error("a calibration of 0 tokens per word was accepted")
	}
	ids := parse1(t, textWorkload("completions", ""))
	if same, err := ids.Calibrate(c); err != nil || same != ids || ids.CalibrationProbes() != nil {
		t.Error("a token-id manifest was calibrated")
	}
}

func TestCalibrationProbes(t *testing.T) {
	for _, api := range []string{"completions", "chat"} {
		m := parse1(t, textWorkload(api, "text"))
		p := m.CalibrationProbes()
		if len(p) != 2 {
			t.Fatalf("%d probes", len(p))
		}
		for i, r := range p {
			if n := len(strings.Fields(promptOf(r))); n != ProbeWords[i] || r.MaxTokens != 1 || (api == "chat") != (r.Messages != nil) {
				t.Errorf("%s probe %d: %d words, max_tokens %d", api, i, n, r.MaxTokens)
			}
		}
		if promptOf(p[0]) == promptOf(m.Requests[0]) {
			t.Error("a probe repeats a measured prompt")
		}
		if promptOf(p[1]) != promptOf(p[0])+" "+promptOf(p[0]) {
			t.Error("the second probe is not the first one twice")
		}
		m.Sampling.MinTokens = 3
		if p := m.CalibrationProbes(); p[0].MaxTokens != 3 {
			t.Errorf("probe max_tokens %d below min_tokens 3", p[0].MaxTokens)
		}
	}
}

func TestFitCalibration(t *testing.T) {
	w := ProbeWords[0]
	for _, c := range []struct {
		counts       [2]int
		perWord, per float64
		err          string
	}{
		{[2]int{w + 1, 2*w + 1}, 1, 1, ""},                            // one token a word plus BOS
		{[2]int{2*w + 6, 4*w + 6}, 2, 6, ""},                          // two a word, a six-token chat template
		{[2]int{w, 2 * w}, 1, 0, ""},                                  // exact
		{[2]int{100, 200}, 100 / float64(w), 0, ""},                   // fewer tokens than words
		{[2]int{w + 44, 2*w + 87}, float64(w+43) / float64(w), 1, ""}, // overhead is 2*(w+44)-(2w+87)
		{[2]int{50, 50}, 0, 0, "cannot be sized"},                     // a server counting something else
		{[2]int{0, 0}, 0, 0, "cannot be sized"},
	} {
		got, err := FitCalibration("usage", c.counts)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.counts, err, c.err)
			}
			continue
		}
		if err != nil || got.TokensPerWord != c.perWord || got.OverheadTokens != c.per || len(got.Samples) != 2 || got.Method != "usage" {
			t.Errorf("%v: %+v, %v; want %v per word, %v per request", c.counts, got, err, c.perWord, c.per)
		}
	}
}

// TestTextPromptSpec: the result's spec says the prompts were text and
// records no token id range.
func TestTextPromptSpec(t *testing.T) {
	var s struct {
		Dataset map[string]any `json:"dataset"`
	}
	if err := json.Unmarshal(parse1(t, textWorkload("completions", "text")).Spec, &s); err != nil {
		t.Fatal(err)
	}
	if s.Dataset["prompt_format"] != "text" || s.Dataset["token_ids"] != nil {
		t.Errorf("spec dataset %v", s.Dataset)
	}
	s.Dataset = nil
	if err := json.Unmarshal(parse1(t, textWorkload("completions", "")).Spec, &s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Dataset["prompt_format"]; ok {
		t.Errorf("token-id spec records a prompt format: %v", s.Dataset)
	}
}

func TestTextPromptPlan(t *testing.T) {
	var b strings.Builder
	if err := WritePlan(&b, []*Manifest{parse1(t, textWorkload("completions", "text"))}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "sized to the server's tokenizer") {
		t.Errorf("plan does not say the prompts are calibrated:\n%s", b.String())
	}
}
