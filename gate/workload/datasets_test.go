package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func load1(t *testing.T, path string) []*Manifest {
	t.Helper()
	ms, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestShareGPT(t *testing.T) {
	m := load1(t, "testdata/valid/sharegpt.yaml")[0]
	// a3 (prompt "hi") and a4 (no answer) are dropped; a2's system turn is
	// skipped to its first human turn.
	usable := map[string]bool{
		"Explain how a transformer attention layer works, step by step, for a beginner.": true,
		"Write a haiku about the sea and the wind at night, please.":                     true,
		"List the planets of the solar system in order from the sun.":                    true,
		"What is the capital of France, and why is it famous?":                           true,
	}
	seen := map[string]bool{}
	for _, r := range m.Requests {
		if !usable[r.Prompt] || seen[r.Prompt] {
			t.Errorf("unexpected or repeated prompt %q", r.Prompt)
		}
		seen[r.Prompt] = true
		if r.InputTokens != estimateTokens(r.Prompt) || r.MaxTokens < 4 {
			t.Errorf("%q: input %d, max_tokens %d", r.Prompt, r.InputTokens, r.MaxTokens)
		}
	}
	// The answer "Mercury, ... Neptune." has 67 characters: 17 tokens.
	for _, r := range m.Requests {
		if strings.HasPrefix(r.Prompt, "List the planets") && r.MaxTokens != 17 {
			t.Errorf("planets: max_tokens %d, want 17 (67 chars / 4, rounded up)", r.MaxTokens)
		}
	}
	if len(m.Requests) != 3 || m.Requests[2].Arrival != 750*time.Millisecond {
		t.Errorf("%d requests, last arrival %v; want 3, 750ms", len(m.Requests), m.Requests[len(m.Requests)-1].Arrival)
	}
	for _, w := range m.Warmups {
		if usable[w.Prompt] || w.Prompt == "" {
			t.Errorf("warmup reuses a dataset prompt: %q", w.Prompt)
		}
	}
}

func TestShareGPTChatOverride(t *testing.T) {
	m := load1(t, "testdata/valid/sharegpt-chat-override.yaml")[0]
	for _, r := range m.Requests {
		if r.MaxTokens != 64 || len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Content == "" {
			t.Errorf("request %d: %+v", r.Index, r)
		}
	}
}

func TestJSONL(t *testing.T) {
	ms := load1(t, "testdata/valid/jsonl.yaml")
	if len(ms) != 2 || ms[0].Cell != "t-jsonl@c1" || ms[1].Cell != "t-jsonl@c2" {
		t.Fatalf("cells: %d", len(ms))
	}
	got := ms[0].Requests
	want := []struct {
		prompt  string
		in, out int
	}{
		{"Tell me a story about a cat.", 7, 32}, // 28 chars -> 7
		{"Name three rivers.", 5, 8},            // input_tokens given
		{"Why is the sky blue?", 5, 20},
	}
	for i, w := range want {
		if got[i].Prompt != w.prompt || got[i].InputTokens != w.in || got[i].MaxTokens != w.out {
			t.Errorf("request %d = %q in %d out %d; want %+v", i, got[i].Prompt, got[i].InputTokens, got[i].MaxTokens, w)
		}
	}
}

func TestOptionalDatasetMissing(t *testing.T) {
	var warnings []*Error
	ms, err := Loader{Warn: func(e *Error) { warnings = append(warnings, e) }}.LoadFile("testdata/valid/optional-missing.yaml")
	if err != nil || len(ms) != 0 {
		t.Fatalf("got %d cells, err %v; want none and no error", len(ms), err)
	}
	if len(warnings) != 1 || !warnings[0].Warning || warnings[0].Line != 4 ||
		!strings.Contains(warnings[0].Error(), "testdata/valid/optional-missing.yaml:4: warning: dataset file ../data/not-downloaded.json not found") ||
		!strings.Contains(warnings[0].Error(), ShareGPTURL) {
		t.Errorf("warnings = %v", warnings)
	}
}

func TestAllFieldsDecoded(t *testing.T) {
	m := load1(t, "testdata/valid/gate.yaml")[0]
	f := func(v float64) *float64 { return &v }
	seed := int64(3)
	if m.Model != "Qwen/Qwen2.5-7B-Instruct" || m.GPUs != 2 || m.API != Chat || m.Concurrency != 4 ||
		!math.IsInf(m.Rate, 1) || !math.IsInf(m.Burstiness, 1) || m.Timeout != 90*time.Second ||
		m.Trials != (TrialBudget{Min: 3, Max: 10}) || m.SLO != (SLO{TTFTms: 500, TPOTms: 40, E2ELms: 2000}) {
		t.Errorf("manifest = %+v", m)
	}
	if want := (Sampling{Temperature: f(0.5), TopP: f(0.9), Seed: &seed, MinTokens: 2}); !reflect.DeepEqual(m.Sampling, want) {
		t.Errorf("sampling = %+v", m.Sampling)
	}
	no := false
	yes := true
	want := []GateRule{
		{Metric: "tpot_ms.p50", Tolerance: 0.03},
		{Metric: "success_rate", Tolerance: 0.005},
		{Metric: "goodput_ratio", Tolerance: 0.025, Gated: &yes},
		{Metric: "ttft_ms.p99.9", Gated: &no},
	}
	if !reflect.DeepEqual(m.Gate, want) {
		t.Errorf("gate = %+v", m.Gate)
	}
	if !strings.Contains(string(m.Spec), `"description":"2024"`) || !strings.Contains(string(m.Spec), `"rate":"inf"`) {
		t.Errorf("spec = %s", m.Spec)
	}
}

// TestRandomLengths checks vLLM's length range and exact token-id prompts.
func TestRandomLengths(t *testing.T) {
	f := &File{Name: "x", API: Completions, Dataset: Dataset{Kind: KindRandom, InputTokens: 100, OutputTokens: 10,
		RangeRatio: 0.25, Seed: 1, TokenIDs: TokenRange{Min: 5, Max: 9}}}
	items := f.generate(2000, "")
	inSeen, outSeen := map[int]bool{}, map[int]bool{}
	for _, it := range items {
		if it.input < 75 || it.input > 125 || it.output < 7 || it.output > 13 || len(it.ids) != it.input {
			t.Fatalf("item: input %d (%d ids), output %d", it.input, len(it.ids), it.output)
		}
		for _, id := range it.ids {
			if id < 5 || id > 9 {
				t.Fatalf("token id %d outside [5, 9]", id)
			}
		}
		inSeen[it.input], outSeen[it.output] = true, true
	}
	// floor(100*0.75)=75 .. ceil(100*1.25)=125 and floor(7.5)=7 .. ceil(12.5)=13: every value occurs.
	if len(inSeen) != 51 || len(outSeen) != 7 {
		t.Errorf("distinct input lengths %d (want 51), output lengths %d (want 7)", len(inSeen), len(outSeen))
	}
}

func TestPrefixRepetition(t *testing.T) {
	f := &File{Name: "x", API: Completions, Warmups: 4, Dataset: Dataset{Kind: KindPrefixRepetition, InputTokens: 8,
		OutputTokens: 4, PrefixTokens: 16, NumPrefixes: 3, Seed: 2, TokenIDs: TokenRange{Min: 1000, Max: 29999}}}
	items := f.generate(12, "")
	counts := map[string]int{}
	for _, it := range items {
		if len(it.ids) != 24 || it.input != 24 {
			t.Fatalf("item has %d ids, input %d; want 24", len(it.ids), it.input)
		}
		counts[idKey(it.ids[:16])]++
	}
	if len(counts) != 3 {
		t.Fatalf("%d distinct prefixes, want 3", len(counts))
	}
	for _, c := range counts {
		if c != 4 {
			t.Errorf("prefix used %d times, want 4", c)
		}
	}
	for _, w := range f.warmups(4, items) {
		if counts[idKey(w.ids[:16])] > 0 || len(w.ids) != 24 {
			t.Errorf("warmup shares a measured prefix or has %d ids", len(w.ids))
		}
	}
}

func idKey(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

func TestChatTextLength(t *testing.T) {
	s := newStream(1, "t")
	txt := text(500, s)
	if n := len(strings.Fields(txt)); n != 500 {
		t.Errorf("text(500) has %d words", n)
	}
	for _, w := range words {
		if strings.ContainsAny(w, " \t\n") || w == "" {
			t.Errorf("bad word %q", w)
		}
	}
}

func TestWarmupsDiffer(t *testing.T) {
	for _, m := range loadSmoke(t) {
		measured := map[string]bool{}
		for _, r := range m.Requests {
			measured[promptKey(r)] = true
		}
		if len(m.Warmups) == 0 {
			t.Errorf("%s: no warmups", m.Cell)
		}
		for _, w := range m.Warmups {
			if measured[promptKey(w)] || w.Arrival != 0 {
				t.Errorf("%s: warmup %d equals a measured prompt or has an arrival", m.Cell, w.Index)
			}
		}
	}
}

func loadSmoke(t *testing.T) []*Manifest {
	t.Helper()
	ms, err := LoadPaths([]string{"../../workloads/smoke"})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func promptKey(r Request) string {
	if r.PromptIDs != nil {
		return idKey(r.PromptIDs)
	}
	if r.Messages != nil {
		return r.Messages[0].Content
	}
	return r.Prompt
}
