package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

func newRunner(t *testing.T, url string, mod func(*Config)) *Runner {
	t.Helper()
	// The lag limit is generous: a loaded shared test machine under -race
	// is a saturated client, which is not what these tests are about.
	cfg := Config{URL: url, Warmups: -1, CacheSalt: true, ReadyTimeout: 3 * time.Second, Grace: time.Second, APIKey: "sk-secret",
		Limits: metrics.Limits{DispatchLagMs: 1000}}
	if mod != nil {
		mod(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

type hookLog struct {
	mu     sync.Mutex
	events []string
}

func (h *hookLog) BeforeTrial(_ context.Context, trial int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "before"+string(rune('0'+trial)))
	return nil
}

func (h *hookLog) AfterTrial(_ context.Context, trial int, t *result.Trial) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, "after"+string(rune('0'+trial)))
	t.Server = map[string]float64{"hooked": 1}
	return nil
}

func TestRunAndAppendTrials(t *testing.T) {
	f := &fake{ttft: 20 * time.Millisecond, itl: 5 * time.Millisecond, continuous: true}
	ts := newFake(t, f)
	hooks := &hookLog{}
	var detail bytes.Buffer
	r := newRunner(t, ts.URL+"/v1", func(c *Config) { c.Hooks = []TrialHook{hooks}; c.Detailed = &detail })
	m := manifest(8, 4, 0, 4)
	res, err := r.Run(context.Background(), m, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunTrials(context.Background(), m, res, 1); err != nil { // an adaptive extra trial
		t.Fatal(err)
	}
	if len(res.Trials) != 3 || !res.Complete || res.Server.Model != "fake-model" || res.Server.Version != "0.0.1-fake" || res.Server.MaxModelLen != 4096 {
		t.Fatalf("result: %d trials, complete %v, server %+v", len(res.Trials), res.Complete, res.Server)
	}
	if _, err := result.Marshal(res); err != nil {
		t.Fatalf("result does not validate: %v", err)
	}
	for i, tr := range res.Trials {
		if tr.Index != i || !tr.Valid || tr.Completed != 8 || tr.Server["hooked"] != 1 {
			t.Errorf("trial %d: index %d valid %v (%s) completed %d server %v", i, tr.Index, tr.Valid, tr.InvalidReason, tr.Completed, tr.Server)
		}
		v := tr.Values
		if v["ttft_ms.min"] < 20 || v["ttft_ms.max"] > 500 {
			t.Errorf("trial %d: ttft %v..%v ms, want >= 20", i, v["ttft_ms.min"], v["ttft_ms.max"])
		}
		// Gaps sum to e2el - ttft, so the mean cannot undercut the
		// server's 5 ms sleeps even when a busy test machine delivers two
		// events in one read (one gap near 0, the next one long).
		if v["itl_ms.mean"] < 4.9 || v["itl_ms.median"] > 100 {
			t.Errorf("trial %d: itl mean %v median %v", i, v["itl_ms.mean"], v["itl_ms.median"])
		}
		if v["total_output_tokens"] != 32 || v["total_input_tokens"] != 24 || v["max_concurrent_requests"] > 4 {
			t.Errorf("trial %d: tokens %v/%v peak concurrency %v", i, v["total_input_tokens"], v["total_output_tokens"], v["max_concurrent_requests"])
		}
	}
	if got := strings.Join(hooks.events, ","); got != "before0,after0,before1,after1,before2,after2" {
		t.Errorf("hooks = %s", got)
	}
	// 3 trials x (2 warmups + 8 requests); ids unique; key sent; salts per trial.
	if len(f.arrivals) != 30 {
		t.Errorf("%d distinct request ids, want 30", len(f.arrivals))
	}
	salts := map[any]bool{}
	for i, b := range f.bodies {
		if b["stream"] != true || b["model"] != "fake-model" || b["ignore_eos"] != true {
			t.Fatalf("body %d = %v", i, b)
		}
		salts[b["cache_salt"]] = true
		if f.auth[i] != "Bearer sk-secret" {
			t.Fatalf("authorization = %q", f.auth[i])
		}
	}
	if len(salts) != 6 { // per trial: one for measured, one for warmups
		t.Errorf("%d distinct cache salts, want 6", len(salts))
	}
	lines := 0
	sc := bufio.NewScanner(&detail)
	for sc.Scan() {
		var d Detail
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if !d.Success || d.Chunks != 4 || len(d.ITLMs) != 3 {
			t.Errorf("detail %+v", d)
		}
		lines++
	}
	if lines != 24 {
		t.Errorf("%d detailed records, want 24", lines)
	}
	if strings.Contains(detail.String(), "sk-secret") {
		t.Error("API key leaked into detailed records")
	}
}

// TestConcurrencyCap: the server never sees more requests in flight than
// the cap, and the wait shows as client queue time.
func TestConcurrencyCap(t *testing.T) {
	f := &fake{ttft: 30 * time.Millisecond, itl: time.Millisecond}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(15, 3, 0, 2), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.peak.Load(); p > 3 || p < 2 {
		t.Errorf("server saw %d concurrent requests, cap 3", p)
	}
	v := res.Trials[0].Values
	if v["max_concurrent_requests"] > 3 || v["client_queue_ms.max"] < 30 {
		t.Errorf("peak %v, client queue max %v ms", v["max_concurrent_requests"], v["client_queue_ms.max"])
	}
	if v["e2el_from_intended_ms.max"] < v["e2el_ms.max"]+30 {
		t.Errorf("e2el from intended %v should include queueing beyond e2el %v", v["e2el_from_intended_ms.max"], v["e2el_ms.max"])
	}
}

// TestOpenLoopKeepsSchedule: slow responses do not delay later arrivals.
// The fake holds every response until all ten requests (20 ms apart) have
// arrived, so only an open loop completes the trial: a client that waited
// for a response before sending the next request would get ten 503s after
// the fake's 10 s. That holds on a loaded machine, which can delay sends
// but never make a closed loop look open; a wall-clock tolerance on each
// arrival did not (-185 ms under load).
func TestOpenLoopKeepsSchedule(t *testing.T) {
	f := &fake{ttft: 50 * time.Millisecond, itl: time.Millisecond, barrier: 10}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	const gap = 20 * time.Millisecond
	res, err := r.Run(context.Background(), manifest(10, 0, gap, 2), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	if tr.Completed != 10 || tr.Failed != 0 {
		t.Fatalf("%d completed, %d failed (%v): the requests waited for responses", tr.Completed, tr.Failed, tr.Errors)
	}
	if v := tr.Values; v["max_concurrent_requests"] != 10 {
		t.Errorf("open loop: peak %v in flight, want all 10", v["max_concurrent_requests"])
	}
}

// TestMultiTokenChunks: 3 tokens per chunk with continuous usage gives a
// per-token ITL a third of the chunk ITL.
func TestMultiTokenChunks(t *testing.T) {
	f := &fake{ttft: 5 * time.Millisecond, itl: 15 * time.Millisecond, perChunk: 3, continuous: true, crlf: true}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(4, 0, 0, 9), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	v := tr.Values
	if !tr.Valid {
		t.Fatalf("invalid: %s", tr.InvalidReason)
	}
	ratio := v["itl_ms.mean"] / v["itl_token_ms.mean"]
	if ratio < 2.99 || ratio > 3.01 || v["itl_ms.mean"] < 10 {
		t.Errorf("itl mean %v, per token %v (ratio %v, want 3)", v["itl_ms.mean"], v["itl_token_ms.mean"], ratio)
	}
	// TPOT spreads e2el - ttft over 8 later tokens; chunk ITL over 2 gaps.
	if tp := v["tpot_ms.mean"]; tp < 3.3 || tp > v["itl_ms.mean"]/3*1.01+0.1 {
		t.Errorf("tpot %v vs itl %v", tp, v["itl_ms.mean"])
	}
}

func TestFailuresByType(t *testing.T) {
	kinds := []string{"", "503", "stream_error", "truncate", "reset", "empty", ""}
	f := &fake{ttft: time.Millisecond, itl: time.Millisecond, behave: func(i int) string { return kinds[i%len(kinds)] }}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(14, 0, 0, 3), 1)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trials[0]
	want := map[string]int{"http_503": 2, "stream_error": 2, "truncated": 4, "empty_stream": 2}
	for k, n := range want {
		if tr.Errors[k] != n {
			t.Errorf("errors[%s] = %d, want %d (all: %v)", k, tr.Errors[k], n, tr.Errors)
		}
	}
	if tr.Completed != 4 || tr.Failed != 10 || tr.Valid || !strings.Contains(tr.InvalidReason, "10 of 14 requests failed") {
		t.Errorf("completed %d failed %d valid %v: %s", tr.Completed, tr.Failed, tr.Valid, tr.InvalidReason)
	}
	if !strings.Contains(tr.ErrorSamples["http_503"], "overloaded") || !strings.Contains(tr.ErrorSamples["stream_error"], "engine died") {
		t.Errorf("samples %v", tr.ErrorSamples)
	}
}

func TestAllFailing(t *testing.T) {
	f := &fake{behave: func(int) string { return "503" }}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(5, 0, 0, 3), 3)
	if err == nil || !strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "http_503: 5") {
		t.Fatalf("err = %v", err)
	}
	if res.Complete || len(res.Trials) != 1 {
		t.Errorf("complete %v with %d trials", res.Complete, len(res.Trials))
	}
}

func TestInterruptKeepsFinished(t *testing.T) {
	f := &fake{ttft: 10 * time.Millisecond, itl: time.Millisecond}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0; c.Grace = 200 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	begin := time.Now()
	res, err := r.Run(ctx, manifest(100, 0, 20*time.Millisecond, 2), 2)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if el := time.Since(begin); el > 2*time.Second {
		t.Errorf("interrupt took %v", el)
	}
	if res.Complete || len(res.Trials) != 1 {
		t.Fatalf("complete %v, %d trials", res.Complete, len(res.Trials))
	}
	tr := res.Trials[0]
	if tr.Valid || !strings.Contains(tr.InvalidReason, "interrupted") || tr.Completed < 5 || tr.Completed > 30 || tr.Failed != 0 {
		t.Errorf("trial: valid %v (%s), completed %d failed %d", tr.Valid, tr.InvalidReason, tr.Completed, tr.Failed)
	}
	if _, err := result.Marshal(res); err != nil {
		t.Errorf("partial result does not validate: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	r := newRunner(t, url, func(c *Config) { c.ReadyTimeout = 700 * time.Millisecond })
	begin := time.Now()
	_, err = r.Run(context.Background(), manifest(1, 0, 0, 1), 1)
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(begin) > 3*time.Second {
		t.Errorf("took %v", time.Since(begin))
	}
}

func TestNeverReady(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer ts.Close()
	r := newRunner(t, ts.URL, func(c *Config) { c.ReadyTimeout = 600 * time.Millisecond })
	_, err := r.Run(context.Background(), manifest(1, 0, 0, 1), 1)
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), ts.URL) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownModel(t *testing.T) {
	ts := newFake(t, &fake{})
	r := newRunner(t, ts.URL, nil)
	m := manifest(1, 0, 0, 1)
	m.Model = "other"
	_, err := r.Run(context.Background(), m, 1)
	if err == nil || !strings.Contains(err.Error(), `"other"`) || !strings.Contains(err.Error(), "fake-model") {
		t.Fatalf("err = %v", err)
	}
}

func TestProgressLines(t *testing.T) {
	ts := newFake(t, &fake{ttft: 20 * time.Millisecond, itl: time.Millisecond})
	var out syncBuffer
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0; c.Progress = &out; c.ProgressInterval = 30 * time.Millisecond })
	if _, err := r.Run(context.Background(), manifest(10, 0, 10*time.Millisecond, 2), 1); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "t@c0 trial 1/1:") || !strings.Contains(s, "in flight") || !strings.Contains(s, "10 ok, 0 failed") || strings.Contains(s, "\r") {
		t.Errorf("progress output:\n%s", s)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressBarOnTerminal(t *testing.T) {
	ts := newFake(t, &fake{ttft: 30 * time.Millisecond, itl: time.Millisecond})
	var out syncBuffer
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0; c.Progress = &out; c.Terminal = true })
	if _, err := r.Run(context.Background(), manifest(20, 0, 15*time.Millisecond, 2), 1); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "\r\x1b[K[") || !strings.Contains(s, "in flight") || !strings.Contains(s, "20 ok, 0 failed") {
		t.Errorf("terminal progress:\n%q", s)
	}
}

func TestResetPrefixCache(t *testing.T) {
	f := &fake{}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, func(c *Config) { c.ResetPrefixCache = true; c.Warmups = 0 })
	if _, err := r.Run(context.Background(), manifest(2, 0, 0, 2), 2); err != nil {
		t.Fatalf("reset against a server that supports it: %v", err)
	}
	// A server without the endpoint (vLLM outside dev mode): a clear error.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			_, _ = w.Write([]byte(`{"version":"0.11.0"}`))
			return
		}
		if r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
			return
		}
		if r.URL.Path == "/reset_prefix_cache" {
			http.NotFound(w, r)
		}
	}))
	defer plain.Close()
	r = newRunner(t, plain.URL, func(c *Config) { c.ResetPrefixCache = true; c.Warmups = 0 })
	res, err := r.Run(context.Background(), manifest(2, 0, 0, 2), 1)
	if err == nil || !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), "VLLM_SERVER_DEV_MODE") || res.Complete {
		t.Errorf("err = %v", err)
	}
}

// TestInterruptWhileWaiting: Ctrl-C during the readiness wait is an
// interrupt, not "server not ready".
func TestInterruptWhileWaiting(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer ts.Close()
	r := newRunner(t, ts.URL, func(c *Config) { c.ReadyTimeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	begin := time.Now()
	_, err := r.Run(ctx, manifest(1, 0, 0, 1), 1)
	if !errors.Is(err, ErrInterrupted) || time.Since(begin) > 5*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(begin))
	}
}

// One Runner measuring two arms (as the demo does) must not let the second
// arm's trials reuse the first arm's cache salts or request ids: trial
// indices restart at 0 for every result, the salts must not.
func TestSaltsAndIDsUniqueAcrossResults(t *testing.T) {
	f := &fake{ttft: time.Millisecond, itl: time.Millisecond}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, nil)
	m := manifest(4, 2, 0, 2)
	for arm := 0; arm < 2; arm++ {
		if _, err := r.Run(context.Background(), m, 1); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	salts := map[any]bool{}
	for _, b := range f.bodies {
		salts[b["cache_salt"]] = true
	}
	if len(salts) != 4 { // per arm: one for the measured trial, one for its warmups
		t.Errorf("%d distinct cache salts over two results, want 4", len(salts))
	}
	if len(f.arrivals) != len(f.bodies) {
		t.Errorf("%d distinct request ids for %d requests", len(f.arrivals), len(f.bodies))
	}
}
