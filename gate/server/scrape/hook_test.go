package scrape

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

func TestSummarize(t *testing.T) {
	before := Snapshot{
		Counters:   map[string]float64{"vllm:num_preemptions_total": 5, "vllm:prefix_cache_queries_total": 1000, "vllm:prefix_cache_hits_total": 100, "vllm:prompt_tokens_total": 50},
		Histograms: map[string]Hist{"vllm:time_to_first_token_seconds": {10, 100}, "vllm:e2e_request_latency_seconds": {50, 100}},
	}
	after := Snapshot{
		Counters:   map[string]float64{"vllm:num_preemptions_total": 8, "vllm:prefix_cache_queries_total": 3000, "vllm:prefix_cache_hits_total": 1100, "vllm:prompt_tokens_total": 10},
		Histograms: map[string]Hist{"vllm:time_to_first_token_seconds": {13, 110}, "vllm:e2e_request_latency_seconds": {50, 100}},
	}
	samples := []Snapshot{
		{Gauges: map[string]float64{"vllm:num_requests_running": 4, "vllm:kv_cache_usage_perc": 0.2}},
		{Gauges: map[string]float64{"vllm:num_requests_running": 8, "vllm:kv_cache_usage_perc": 0.6}},
		{Gauges: map[string]float64{"vllm:num_requests_running": 6}}, // a sample without KV usage
	}
	got, warnings := Summarize(before, after, samples)
	want := map[string]float64{
		"vllm:num_preemptions_total.delta":      3,
		"vllm:prefix_cache_queries_total.delta": 2000,
		"vllm:prefix_cache_hits_total.delta":    1000,
		"prefix_cache_hit_rate":                 0.5,
		"num_requests_running.mean":             6,
		"num_requests_running.max":              8,
		"kv_cache_usage_perc.mean":              0.4,
		"kv_cache_usage_perc.max":               0.6,
		"gauge_samples":                         3,
		"ttft_s.server_mean":                    0.3, // 3 s over 10 requests
		// e2el: no request finished during the trial, so no mean.
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys, want %d: %v", len(got), len(want), got)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g-w > 1e-9 || w-g > 1e-9 {
			t.Errorf("%s = %v, want %v", k, g, w)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "vllm:prompt_tokens_total went down") {
		t.Errorf("warnings = %q", warnings)
	}
}

func TestTTFTWarning(t *testing.T) {
	tests := []struct {
		client, server float64
		m              Margin
		warn           bool
	}{
		{105, 100, Margin{}, false},   // 5 ms of HTTP: normal
		{180, 100, Margin{}, true},    // 80 ms and 80 %: client-side
		{1100, 1000, Margin{}, false}, // 100 ms but only 10 % of a long prefill
		{1300, 1000, Margin{}, true},  // 300 ms and 30 %
		{40, 1, Margin{}, false},      // 40x but under 50 ms
		{40, 1, Margin{AbsMs: 10, Relative: 1}, true},
		{0, 100, Margin{}, false}, // no client measurement
	}
	for _, tt := range tests {
		got := TTFTWarning(tt.client, tt.server, tt.m)
		if (got != "") != tt.warn {
			t.Errorf("TTFTWarning(%v, %v, %+v) = %q, want warning %v", tt.client, tt.server, tt.m, got, tt.warn)
		}
	}
	if w := TTFTWarning(180, 100, Margin{}); !strings.Contains(w, "180.0 ms exceeds the server's 100.0 ms by 80.0 ms") {
		t.Errorf("warning text = %q", w)
	}
}

// fakeMetrics serves an exposition whose values the test changes.
type fakeMetrics struct {
	mu                 sync.Mutex
	preempt, ttftSum   float64
	ttftCount, running float64
	scrapes            int
	status             int
}

func (f *fakeMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scrapes++
	if f.status != 0 {
		w.WriteHeader(f.status)
		return
	}
	fmt.Fprintf(w, "# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{engine=\"0\"} %g\n", f.preempt)
	fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running %g\n", f.running)
	fmt.Fprintf(w, "# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} %g\nvllm:time_to_first_token_seconds_sum %g\nvllm:time_to_first_token_seconds_count %g\n", f.ttftCount, f.ttftSum, f.ttftCount)
}

func (f *fakeMetrics) set(fn func(*fakeMetrics)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

func TestHook(t *testing.T) {
	fake := &fakeMetrics{preempt: 2, ttftSum: 1, ttftCount: 10}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := &Hook{URL: srv.URL + "/", Interval: 5 * time.Millisecond, MaxSamples: 1000}
	ctx := context.Background()
	if err := h.BeforeTrial(ctx, 0); err != nil {
		t.Fatal(err)
	}
	fake.set(func(f *fakeMetrics) { f.running = 7 })
	waitScrapes(t, fake, 4)
	fake.set(func(f *fakeMetrics) { f.preempt, f.ttftSum, f.ttftCount, f.running = 5, 3, 20, 0 })
	tr := &result.Trial{Values: map[string]float64{"ttft_ms.mean": 400}}
	if err := h.AfterTrial(ctx, 0, tr); err != nil {
		t.Fatal(err)
	}
	if tr.Server["vllm:num_preemptions_total.delta"] != 3 || tr.Server["ttft_s.server_mean"] != 0.2 {
		t.Errorf("server = %v", tr.Server)
	}
	if tr.Server["num_requests_running.max"] != 7 || tr.Server["gauge_samples"] < 1 {
		t.Errorf("gauges = %v", tr.Server)
	}
	// Client 400 ms against the server's 200 ms: a client-side bottleneck.
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "client TTFT mean 400.0 ms") {
		t.Errorf("warnings = %q", tr.Warnings)
	}
	// Sampling stopped with the trial.
	fake.mu.Lock()
	n := fake.scrapes
	fake.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	fake.mu.Lock()
	if fake.scrapes != n {
		t.Errorf("sampling went on after AfterTrial: %d -> %d scrapes", n, fake.scrapes)
	}
	fake.mu.Unlock()

	// A server without /metrics costs a warning, not the run.
	fake.set(func(f *fakeMetrics) { f.status = http.StatusNotFound })
	if err := h.BeforeTrial(ctx, 1); err != nil {
		t.Fatal(err)
	}
	tr2 := &result.Trial{}
	if err := h.AfterTrial(ctx, 1, tr2); err != nil {
		t.Fatal(err)
	}
	if tr2.Server != nil || len(tr2.Warnings) != 1 || !strings.Contains(tr2.Warnings[0], "404") {
		t.Errorf("trial without /metrics: server %v warnings %q", tr2.Server, tr2.Warnings)
	}
}

func TestHookSampleBound(t *testing.T) {
	fake := &fakeMetrics{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := &Hook{URL: srv.URL, Interval: time.Millisecond, MaxSamples: 3}
	h.BeforeTrial(context.Background(), 0)
	waitScrapes(t, fake, 4) // the BeforeTrial scrape and 3 samples
	time.Sleep(20 * time.Millisecond)
	tr := &result.Trial{}
	h.AfterTrial(context.Background(), 0, tr)
	if tr.Server["gauge_samples"] != 3 {
		t.Errorf("gauge_samples = %v, want 3", tr.Server["gauge_samples"])
	}
}

func waitScrapes(t *testing.T, f *fakeMetrics, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		done := f.scrapes >= n
		f.mu.Unlock()
		if done {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("fewer than %d scrapes", n)
}
