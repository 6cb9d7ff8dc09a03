package report

import (
	"strings"
	"testing"
)

// A regressed workload's table is followed by the server's own view of
// the two arms and the candidate's trial warnings, escaped.
func TestServerContextBesideRegression(t *testing.T) {
	d := loadFixture(t, "regression")
	cell := "cx8-4000-1000-c16"
	for i := range d.Baselines[cell].Trials {
		d.Baselines[cell].Trials[i].Server = map[string]float64{"vllm:num_preemptions_total.delta": 0, "kv_cache_usage_perc.max": 0.41, "ttft_s.server_mean": 0.120}
	}
	for i := range d.Candidates[cell].Trials {
		tr := &d.Candidates[cell].Trials[i]
		tr.Server = map[string]float64{"vllm:num_preemptions_total.delta": 12, "kv_cache_usage_perc.max": 0.98, "ttft_s.server_mean": 0.125}
		tr.Warnings = []string{"client TTFT mean 850.0 ms exceeds the server's 420.0 ms | <b>"}
	}
	var b strings.Builder
	if err := Markdown(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"Server `/metrics`, baseline → candidate: preemptions per trial 0 → 12 · KV cache max 41.0 % → 98.0 % · server TTFT mean 120.0 ms → 125.0 ms.",
		"Candidate trial warnings:",
		`client TTFT mean 850.0 ms exceeds the server's 420.0 ms \| &lt;b&gt; (`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "| <b>") {
		t.Error("a trial warning reached the markdown unescaped")
	}
	// The context belongs to the regressed workload, before the next one.
	if i, j := strings.Index(md, "Server `/metrics`"), strings.Index(md, "#### ❌ "+cell); j < 0 || i < j {
		t.Errorf("context at %d, regressed workload's heading at %d", i, j)
	}
}

// Without server metrics or warnings nothing is added.
func TestServerContextEmpty(t *testing.T) {
	d := loadFixture(t, "regression")
	if got := serverContext(d, "cx8-4000-1000-c16"); got != "" {
		t.Errorf("serverContext = %q, want empty", got)
	}
}
