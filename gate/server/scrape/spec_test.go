package scrape

import (
	"math"
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

// TestSGLangRetractionsAndAcceptance: SGLang's retracted requests count
// as preemptions, its queue-time histogram as the server queue, and its
// acceptance-rate gauge's mean as the acceptance rate.
func TestSGLangRetractionsAndAcceptance(t *testing.T) {
	snap := func(retracted, rate float64, n, sum float64) Snapshot {
		t.Helper()
		s, err := Parse(strings.NewReader("# TYPE sglang:num_retracted_requests_total counter\nsglang:num_retracted_requests_total{model_name=\"m\"} " + strconv.FormatFloat(retracted, 'g', -1, 64) +
			"\n# TYPE sglang:spec_accept_rate gauge\nsglang:spec_accept_rate{model_name=\"m\"} " + strconv.FormatFloat(rate, 'g', -1, 64) +
			"\n# TYPE sglang:queue_time_seconds histogram\nsglang:queue_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + strconv.FormatFloat(n, 'g', -1, 64) +
			"\nsglang:queue_time_seconds_sum{model_name=\"m\"} " + strconv.FormatFloat(sum, 'g', -1, 64) +
			"\nsglang:queue_time_seconds_count{model_name=\"m\"} " + strconv.FormatFloat(n, 'g', -1, 64) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	out, warns := Summarize(snap(3, 0.5, 10, 1), snap(40, 0.7, 30, 3), []Snapshot{snap(10, 0.6, 12, 1), snap(20, 0.8, 20, 2)})
	if len(warns) != 0 || out["vllm:num_preemptions_total.delta"] != 37 || math.Abs(out["spec_decode_acceptance_rate"]-0.7) > 1e-12 ||
		math.Abs(out["queue_time_s.server_mean"]-0.1) > 1e-12 {
		t.Errorf("summary %v, warnings %v", out, warns)
	}
}
