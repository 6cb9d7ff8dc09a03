package scrape

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// TestHookAgainstSimulator checks every delta and mean the hook records
// against the simulator's own ground truth (sim.Stats) over one trial.
func TestHookAgainstSimulator(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(cfg)
	defer s.Close()
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			scrapes.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()

	// Traffic before the trial must not count.
	send(t, srv.URL, cfg.Model, 4, 0)
	before := s.Stats()

	h := &Hook{URL: srv.URL, Interval: 10 * time.Millisecond}
	ctx := context.Background()
	if err := h.BeforeTrial(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// 25 requests, 9 sharing a prompt (prefix-cache hits), >= 130 ms
	// long. The trial ends only once the sampler has scraped twice, so a
	// loaded machine slows the test instead of starving the sampler.
	first := scrapes.Load()
	// One request with the shared prompt first, so the eight that share
	// it find it cached however the machine schedules their arrivals: sent
	// together alone, all eight could prefill in one step on a loaded
	// machine and none hit (hog run 5 of issue 19).
	send(t, srv.URL, cfg.Model, 1, 1)
	send(t, srv.URL, cfg.Model, 24, 8)
	for deadline := time.Now().Add(10 * time.Second); scrapes.Load() < first+2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	after := s.Stats()
	tr := &result.Trial{Values: map[string]float64{}}
	if err := h.AfterTrial(ctx, 0, tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 0 {
		t.Errorf("warnings: %q", tr.Warnings)
	}
	got := tr.Server
	checks := map[string]float64{
		"vllm:num_preemptions_total.delta":      float64(after.Preemptions - before.Preemptions),
		"vllm:prompt_tokens_total.delta":        float64(after.PromptTokens - before.PromptTokens),
		"vllm:generation_tokens_total.delta":    float64(after.GenerationTokens - before.GenerationTokens),
		"vllm:prefix_cache_queries_total.delta": float64(after.PrefixQueries - before.PrefixQueries),
		"vllm:prefix_cache_hits_total.delta":    float64(after.PrefixHits - before.PrefixHits),
		"vllm:request_success_total.delta":      float64(after.Succeeded - before.Succeeded),
		"prefix_cache_hit_rate":                 float64(after.PrefixHits-before.PrefixHits) / float64(after.PrefixQueries-before.PrefixQueries),
		"ttft_s.server_mean":                    meanDelta(before.TTFT, after.TTFT),
		"itl_s.server_mean":                     meanDelta(before.ITL, after.ITL),
		"e2el_s.server_mean":                    meanDelta(before.E2E, after.E2E),
		"queue_time_s.server_mean":              meanDelta(before.Queue, after.Queue),
		"tpot_s.server_mean":                    meanDelta(before.TPOT, after.TPOT),
	}
	for k, want := range checks {
		v, ok := got[k]
		// Sums travel as decimal text and Durations: allow 1 us of rounding.
		if !ok || math.Abs(v-want) > 1e-6*math.Max(1, want) {
			t.Errorf("%s = %v (present %v), simulator says %v", k, v, ok, want)
		}
	}
	if got["vllm:generation_tokens_total.delta"] != 25*128 || got["vllm:prefix_cache_hits_total.delta"] < 8*256/2 {
		t.Errorf("the trial's traffic is not what was sent: %v", got)
	}
	if got["gauge_samples"] < 1 || got["num_requests_running.max"] < 1 || got["kv_cache_usage_perc.max"] <= 0 {
		t.Errorf("gauges not sampled while requests ran: %v", got)
	}
}

func meanDelta(b, a sim.Summary) float64 {
	return (a.Sum - b.Sum).Seconds() / float64(a.Count-b.Count)
}

// send issues n concurrent streamed completions of 128 tokens; the first
// shared of them use one 256-token prompt, the others distinct prompts.
func send(t *testing.T, url, model string, n, shared int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			seed := i + 1000
			if i < shared {
				seed = 7
			}
			ids := make([]string, 256)
			for j := range ids {
				ids[j] = fmt.Sprint((seed*7919 + j*31) % 30000)
			}
			body := fmt.Sprintf(`{"model":%q,"prompt":[%s],"max_tokens":128,"stream":true,"ignore_eos":true}`, model, strings.Join(ids, ","))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				errs <- err
			} else if resp.StatusCode != 200 {
				errs <- fmt.Errorf("status %s", resp.Status)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
