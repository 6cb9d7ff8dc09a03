package workload

import (
	"testing"
	"time"
)

// TestHashCoverage changes one thing at a time: what is sent (prompts,
// lengths, arrivals, load, sampling, SLO) must change the hash; policy and
// reporting (trials, gate, timeout, gpus) must not.
func TestHashCoverage(t *testing.T) {
	base := func() *Manifest {
		temp := 0.0
		return &Manifest{
			API: Completions, Concurrency: 4, Rate: 2, Burstiness: 1,
			Sampling: Sampling{Temperature: &temp, IgnoreEOS: true},
			Trials:   TrialBudget{Min: 5, Max: 10}, Timeout: time.Minute,
			Requests: []Request{{PromptIDs: []int{1, 2, 3}, InputTokens: 3, MaxTokens: 8, Arrival: time.Second}},
			Warmups:  []Request{{Prompt: "warm", InputTokens: 1, MaxTokens: 8}},
		}
	}
	ref := Hash(base())
	for _, c := range []struct {
		name    string
		edit    func(*Manifest)
		changes bool
	}{
		{"token id", func(m *Manifest) { m.Requests[0].PromptIDs = []int{1, 2, 4} }, true},
		{"ids split differently", func(m *Manifest) { m.Requests[0].PromptIDs = []int{1, 2} }, true},
		{"prompt form", func(m *Manifest) { m.Requests[0].PromptIDs, m.Requests[0].Prompt = nil, "1 2 3" }, true},
		{"warmup text", func(m *Manifest) { m.Warmups[0].Prompt = "warn" }, true},
		{"chat messages", func(m *Manifest) { m.Warmups[0].Prompt, m.Warmups[0].Messages = "", []Message{{"user", "warm"}} }, true},
		{"max_tokens", func(m *Manifest) { m.Requests[0].MaxTokens = 9 }, true},
		{"input_tokens", func(m *Manifest) { m.Requests[0].InputTokens = 4 }, true},
		{"arrival by 1ns", func(m *Manifest) { m.Requests[0].Arrival++ }, true},
		{"warmup becomes measured", func(m *Manifest) { m.Requests = append(m.Requests, m.Warmups...); m.Warmups = nil }, true},
		{"concurrency", func(m *Manifest) { m.Concurrency = 8 }, true},
		{"rate", func(m *Manifest) { m.Rate = 2.5 }, true},
		{"burstiness", func(m *Manifest) { m.Burstiness = 0.5 }, true},
		{"temperature", func(m *Manifest) { v := 0.1; m.Sampling.Temperature = &v }, true},
		{"ignore_eos", func(m *Manifest) { m.Sampling.IgnoreEOS = false }, true},
		{"slo", func(m *Manifest) { m.SLO.TTFTms = 500 }, true},
		{"model", func(m *Manifest) { m.Model = "m" }, true},
		{"api", func(m *Manifest) { m.API = Chat }, true},
		{"top_k", func(m *Manifest) { k := 5; m.Sampling.TopK = &k }, true},
		{"repetition_penalty", func(m *Manifest) { v := 1.1; m.Sampling.RepetitionPenalty = &v }, true},
		{"extra_body", func(m *Manifest) { m.ExtraBody = []byte(`{"priority":1}`) }, true},
		{"literal header", func(m *Manifest) { m.Headers = []Header{{Name: "X-Route", Value: "a"}} }, true},
		{"header variable", func(m *Manifest) { m.Headers = []Header{{Name: "X-Key", Env: "K"}} }, true},
		{"ramp_up", func(m *Manifest) { m.RampUp = &RampUp{Strategy: RampLinear, StartRPS: 1, EndRPS: 2} }, true},
		{"metric_percentiles", func(m *Manifest) { m.MetricPercentiles = []float64{75} }, false},
		{"warnings", func(m *Manifest) { m.Warnings = []string{"x"} }, false},
		{"trace note", func(m *Manifest) { m.Trace = "t.jsonl" }, false},
		{"trials", func(m *Manifest) { m.Trials.Max = 20 }, false},
		{"trials.restarts (how the candidate is measured, not what)", func(m *Manifest) { m.Trials.Restarts = 4 }, false},
		{"gate", func(m *Manifest) { m.Gate = []GateRule{{Metric: "ttft_ms.p99", Tolerance: 0.1}} }, false},
		{"timeout", func(m *Manifest) { m.Timeout = time.Hour }, false},
		{"gpus", func(m *Manifest) { m.GPUs = 8 }, false},
		{"names", func(m *Manifest) { m.Name, m.Cell = "x", "x@c4" }, false},
	} {
		m := base()
		c.edit(m)
		if got := Hash(m) != ref; got != c.changes {
			t.Errorf("%s: hash changed = %v, want %v", c.name, got, c.changes)
		}
	}
}
