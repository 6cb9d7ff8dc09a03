package scrape

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/background"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// Keys Hook writes into result.Trial.Server (see docs/vllm.md):
//
//	"<counter>.delta"        counter increase over the trial, e.g.
//	                         "vllm:num_preemptions_total.delta"
//	"prefix_cache_hit_rate"  hits delta / queries delta (0..1); for an
//	                         engine that reports the rate as a gauge
//	                         (SGLang), the gauge's mean over the trial
//	"<gauge>.mean", ".max"   over the samples taken during the trial:
//	                         num_requests_running, num_requests_waiting,
//	                         kv_cache_usage_perc (a 0..1 fraction)
//	"gauge_samples"          how many samples the means are over
//	"<hist>.server_mean"     histogram sum delta / count delta, seconds:
//	                         ttft_s, itl_s, tpot_s, e2el_s, queue_time_s,
//	                         prefill_time_s, decode_time_s; and tokens per
//	                         engine step: iteration_tokens
//	"spec_decode_acceptance_rate"  accepted / drafted tokens delta (0..1);
//	                         for an engine with a gauge (SGLang), its mean
const (
	keyHitRate = "prefix_cache_hit_rate"
	keySamples = "gauge_samples"
	keySpecAcc = "spec_decode_acceptance_rate"
)

// histKeys names the server-side means.
var histKeys = map[string]string{
	"vllm:time_to_first_token_seconds":           "ttft_s.server_mean",
	"vllm:inter_token_latency_seconds":           "itl_s.server_mean",
	"vllm:request_time_per_output_token_seconds": "tpot_s.server_mean",
	"vllm:e2e_request_latency_seconds":           "e2el_s.server_mean",
	"vllm:request_queue_time_seconds":            "queue_time_s.server_mean",
	"vllm:request_prefill_time_seconds":          "prefill_time_s.server_mean",
	"vllm:request_decode_time_seconds":           "decode_time_s.server_mean",
	"vllm:iteration_tokens_total":                "iteration_tokens.server_mean",
}

// Hook scrapes GET <URL>/metrics around every trial. It satisfies loadgen's
// TrialHook: BeforeTrial reads the counters and starts sampling gauges
// about once a second; AfterTrial stops sampling, reads the counters again
// and writes the deltas, gauge means and maxima and histogram means into
// the trial's Server map. A server without /metrics (or with a broken one)
// costs the trial a warning, never the run: the numbers are context, not
// measurements.
type Hook struct {
	// URL is the server's base URL.
	URL    string
	Client *http.Client
	// Interval between gauge samples; 1 s when zero.
	Interval time.Duration
	// MaxSamples bounds the gauge samples kept per trial; 3600 when zero.
	MaxSamples int
	// TTFTMargin decides the client-versus-server TTFT warning;
	// DefaultTTFTMargin when zero.
	TTFTMargin Margin

	mu      sync.Mutex
	before  *Snapshot
	err     error // the BeforeTrial scrape's failure
	samples []Snapshot
	sampErr error
	loop    background.Loop // the gauge sampler of the current trial
}

// BeforeTrial scrapes the counters and starts sampling gauges in the
// background until AfterTrial.
func (h *Hook) BeforeTrial(ctx context.Context, trial int) error {
	h.loop.Halt()
	snap, err := h.scrape(ctx)
	h.mu.Lock()
	h.before, h.err, h.samples, h.sampErr = nil, err, nil, nil
	if err == nil {
		h.before = &snap
	}
	h.mu.Unlock()
	h.loop.Start(ctx, h.sample)
	return nil
}

// sample scrapes gauges every Interval until ctx ends or MaxSamples.
func (h *Hook) sample(ctx context.Context) {
	interval := h.Interval
	if interval <= 0 {
		interval = time.Second
	}
	limit := h.MaxSamples
	if limit <= 0 {
		limit = 3600
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		snap, err := h.scrape(ctx)
		if ctx.Err() != nil {
			return // cancelled mid-scrape: not a server failure
		}
		h.mu.Lock()
		if err != nil {
			h.sampErr = err
		} else {
			h.samples = append(h.samples, snap)
		}
		n := len(h.samples)
		h.mu.Unlock()
		if n >= limit {
			return
		}
	}
}

// AfterTrial stops sampling, scrapes the counters again and records the
// trial's server-side figures in t.Server, adding warnings to t.Warnings.
func (h *Hook) AfterTrial(ctx context.Context, trial int, t *result.Trial) error {
	h.loop.Halt()
	after, err := h.scrape(ctx)
	h.mu.Lock()
	before, beforeErr, samples, sampErr := h.before, h.err, h.samples, h.sampErr
	h.mu.Unlock()
	switch {
	case beforeErr != nil:
		t.Warnings = append(t.Warnings, fmt.Sprintf("server metrics not recorded: %v", beforeErr))
		return nil
	case err != nil:
		t.Warnings = append(t.Warnings, fmt.Sprintf("server metrics not recorded: %v", err))
		return nil
	}
	if sampErr != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("some server gauge samples failed: %v", sampErr))
	}
	server, warnings := Summarize(*before, after, samples)
	t.Warnings = append(t.Warnings, warnings...)
	if len(server) == 0 {
		return nil
	}
	if t.Server == nil {
		t.Server = map[string]float64{}
	}
	for k, v := range server {
		t.Server[k] = v
	}
	if c, ok := t.Values["ttft_ms.mean"]; ok {
		if s, ok := server["ttft_s.server_mean"]; ok {
			if w := TTFTWarning(c, s*1000, h.TTFTMargin); w != "" {
				t.Warnings = append(t.Warnings, w)
			}
		}
	}
	return nil
}

// Summarize computes a trial's server figures from the scrapes before and
// after it and the gauge samples taken during it. A counter that went down
// (the server restarted) yields a warning instead of a delta.
func Summarize(before, after Snapshot, samples []Snapshot) (map[string]float64, []string) {
	out := map[string]float64{}
	var warnings []string
	for _, sr := range counterSeries {
		b, okb := before.Counters[sr.canonical]
		a, oka := after.Counters[sr.canonical]
		if !okb || !oka {
			continue
		}
		if a < b {
			warnings = append(warnings, fmt.Sprintf("server counter %s went down during the trial (%g -> %g): was the server restarted?", sr.canonical, b, a))
			continue
		}
		out[sr.canonical+".delta"] = a - b
	}
	q, okq := out["vllm:prefix_cache_queries_total.delta"]
	hits, okh := out["vllm:prefix_cache_hits_total.delta"]
	if okq && okh && q > 0 {
		out[keyHitRate] = hits / q
	}
	drafted, okd := out["vllm:spec_decode_num_draft_tokens_total.delta"]
	accepted, oka := out["vllm:spec_decode_num_accepted_tokens_total.delta"]
	if okd && oka && drafted > 0 {
		out[keySpecAcc] = accepted / drafted
	}
	for _, sr := range gaugeSeries {
		var sum, maxv float64
		n := 0
		for _, s := range samples {
			v, ok := s.Gauges[sr.canonical]
			if !ok {
				continue
			}
			sum += v
			if n == 0 || v > maxv {
				maxv = v
			}
			n++
		}
		if n > 0 {
			name := strings.TrimPrefix(sr.canonical, "vllm:")
			out[name+".mean"] = sum / float64(n)
			out[name+".max"] = maxv
		}
	}
	if _, ok := out[keyHitRate]; !ok {
		if v, ok := out[gaugeHitRate+".mean"]; ok {
			out[keyHitRate] = v
		}
	}
	if _, ok := out[keySpecAcc]; !ok {
		if v, ok := out[gaugeSpecRate+".mean"]; ok {
			out[keySpecAcc] = v
		}
	}
	if len(samples) > 0 {
		out[keySamples] = float64(len(samples))
	}
	for _, sr := range histSeries {
		b, okb := before.Histograms[sr.canonical]
		a, oka := after.Histograms[sr.canonical]
		if !okb || !oka {
			continue
		}
		dc, ds := a.Count-b.Count, a.Sum-b.Sum
		if dc < 0 || ds < 0 {
			warnings = append(warnings, fmt.Sprintf("server histogram %s went down during the trial: was the server restarted?", sr.canonical))
			continue
		}
		if dc > 0 {
			out[histKeys[sr.canonical]] = ds / dc
		}
	}
	for k, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			delete(out, k)
		}
	}
	return out, warnings
}

// scrape GETs and parses /metrics, bounded to 10 s.
func (h *Hook) scrape(ctx context.Context) (Snapshot, error) {
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := strings.TrimRight(h.URL, "/") + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Snapshot{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Snapshot{}, fmt.Errorf("GET %s: %w", redact.URL(url), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Snapshot{}, fmt.Errorf("GET %s: %s", redact.URL(url), resp.Status)
	}
	return Parse(io.LimitReader(resp.Body, 64<<20))
}
