package scrape

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// Hook is plugged into the load generator as one of its trial hooks.
var _ loadgen.TrialHook = (*Hook)(nil)

// TestHookInLoadgenRun runs real trials through the load generator against
// the simulator with the hook installed: every trial gets the server's
// figures, the server's generation-token delta equals what the client
// counted, and the client and server TTFT agree (no spurious warning).
func TestHookInLoadgenRun(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(cfg)
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()

	m := &workload.Manifest{
		Name: "scrape", Cell: "scrape@c8", Hash: "h", API: workload.Completions,
		Concurrency: 8, Timeout: 10 * time.Second, Sampling: workload.Sampling{IgnoreEOS: true},
	}
	for i := 0; i < 32; i++ {
		ids := make([]int, 64)
		for j := range ids {
			ids[j] = 1 + (i*131+j*7)%20000
		}
		m.Requests = append(m.Requests, workload.Request{Index: i, PromptIDs: ids, InputTokens: 64, MaxTokens: 24})
	}
	// Warmups open the connections, which would otherwise land in the
	// first trial's client TTFT and nowhere in the server's.
	for i := 0; i < 8; i++ {
		m.Warmups = append(m.Warmups, workload.Request{Index: i, PromptIDs: []int{7, 7, i + 1}, InputTokens: 3, MaxTokens: 2})
	}
	// The race detector's first-touch costs land in trial 0's client TTFT
	// (measured ~70 ms under -race on a loaded 2-core machine, under 5 ms
	// without), so the margin here only catches a gross disagreement; the
	// warning's threshold logic is tested in TestTTFTWarning.
	hook := &Hook{URL: srv.URL, Interval: 20 * time.Millisecond, TTFTMargin: Margin{AbsMs: 500, Relative: 1}}
	r, err := loadgen.New(loadgen.Config{URL: srv.URL, Warmups: -1, Hooks: []loadgen.TrialHook{hook},
		ReadyTimeout: 5 * time.Second, Limits: metrics.Limits{DispatchLagMs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Run(context.Background(), m, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trials {
		if !tr.Valid {
			t.Fatalf("trial %d invalid: %s", tr.Index, tr.InvalidReason)
		}
		if got, want := tr.Server["vllm:generation_tokens_total.delta"], tr.Values["total_output_tokens"]; got != want || got != 32*24 {
			t.Errorf("trial %d: server generated %v tokens, client counted %v", tr.Index, got, want)
		}
		if got := tr.Server["vllm:prompt_tokens_total.delta"]; got != 32*64 {
			t.Errorf("trial %d: server prompt tokens %v", tr.Index, got)
		}
		client, server := tr.Values["ttft_ms.mean"], tr.Server["ttft_s.server_mean"]*1000
		t.Logf("trial %d: client TTFT %.2f ms, server %.2f ms", tr.Index, client, server)
		if server <= 0 || math.Abs(client-server) > 500 {
			t.Errorf("trial %d: client TTFT %.2f ms vs server %.2f ms", tr.Index, client, server)
		}
		for _, w := range tr.Warnings {
			t.Errorf("trial %d warning: %s", tr.Index, w)
		}
	}
}
