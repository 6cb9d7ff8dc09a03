package scrape

import (
	"strconv"
	"strings"
	"testing"
)

// TestSpecDecodeAndIterationTokens: the speculative-decoding counters give
// the trial's acceptance rate, and vLLM's iteration_tokens_total, a
// histogram despite its suffix, gives the mean tokens per engine step.
func TestSpecDecodeAndIterationTokens(t *testing.T) {
	expo := func(drafted, accepted, steps, tokens int) Snapshot {
		t.Helper()
		s, err := Parse(strings.NewReader(strings.NewReplacer("{D}", itoa(drafted), "{A}", itoa(accepted), "{N}", itoa(steps), "{T}", itoa(tokens)).Replace(`# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} {D}
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} {A}
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{engine="0",le="+Inf",model_name="m"} {N}
vllm:iteration_tokens_total_sum{engine="0",model_name="m"} {T}
vllm:iteration_tokens_total_count{engine="0",model_name="m"} {N}
`)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// 400 drafted, 300 accepted; 50 steps of 6,400 tokens.
	out, warns := Summarize(expo(100, 90, 10, 1000), expo(500, 390, 60, 7400), nil)
	if len(warns) != 0 || out["spec_decode_acceptance_rate"] != 0.75 || out["iteration_tokens.server_mean"] != 128 ||
		out["vllm:spec_decode_num_draft_tokens_total.delta"] != 400 {
		t.Errorf("summary %v, warnings %v", out, warns)
	}
	// Nothing drafted: no rate (not 0/0).
	out, _ = Summarize(expo(100, 90, 10, 1000), expo(100, 90, 10, 1000), nil)
	if _, ok := out["spec_decode_acceptance_rate"]; ok {
		t.Errorf("a rate without drafts: %v", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
