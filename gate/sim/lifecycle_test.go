package sim

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCloseLeavesNoGoroutines runs traffic, including a stream that is
// still open when the server closes, and checks every goroutine is gone.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := fastConfig(t)
	srv := New(cfg)
	ts := httptest.NewServer(srv)
	for range 3 {
		resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b c","max_tokens":3,"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = bufio.NewReader(resp.Body).WriteTo(new(strings.Builder))
		resp.Body.Close()
	}
	// A long stream, open while the engine shuts down: it must end with an
	// error event and [DONE] instead of hanging.
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":4000,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rest := new(strings.Builder)
	_, _ = r.WriteTo(rest)
	resp.Body.Close()
	if !strings.Contains(rest.String(), `"error"`) || !strings.HasSuffix(rest.String(), "data: [DONE]\n\n") {
		t.Errorf("stream open at Close ended with %q", tail([]byte(rest.String())))
	}
	if resp, _ := get(t, ts.URL, "/health"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/health after Close: %d", resp.StatusCode)
	}
	srv.Close() // idempotent
	ts.Close()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClientDisconnectFreesSequence checks that a client going away aborts
// its sequence: the batch empties and the abort is counted.
func TestClientDisconnectFreesSequence(t *testing.T) {
	srv, url := start(t, fastConfig(t))
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/completions", strings.NewReader(`{"prompt":"x","max_tokens":4000,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, "the abort", func() bool { st := srv.Stats(); return st.Aborted == 1 && st.Running == 0 })
	recs := srv.Records()
	if len(recs) != 1 || recs[0].FinishReason != "abort" || recs[0].CompletionTokens == 0 {
		t.Errorf("records %+v", recs)
	}
}

// TestUnschedulableRequestIsAborted: requests that no longer fit after
// the KV cache shrank at run time end with finish_reason "abort" instead of
// hanging the engine.
func TestUnschedulableRequestIsAborted(t *testing.T) {
	cfg := fastConfig(t)
	cfg.KVCacheTokens = 4096
	srv, url := start(t, cfg)
	ids := func(n int) string { return strings.TrimSuffix(strings.Repeat("3,", n), ",") }
	done := make(chan []byte, 2)
	// A runs and holds 2000+ KV tokens; B (2500 tokens) must wait for it.
	go func() {
		_, raw := post(t, url, "/v1/completions", `{"prompt":[`+ids(2000)+`],"max_tokens":2000,"stream":true}`)
		done <- raw
	}()
	waitFor(t, "A running", func() bool { return srv.Stats().Running == 1 })
	go func() {
		_, raw := post(t, url, "/v1/completions", `{"prompt":[`+ids(2500)+`,4],"max_tokens":4,"stream":true}`)
		done <- raw
	}()
	waitFor(t, "B waiting", func() bool { return srv.Stats().Waiting == 1 })
	if err := srv.Update(func(c *Config) { c.KVCacheTokens, c.MaxModelLen = 1024, 1024 }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		raw := <-done
		fs := frames(t, raw)
		last := fs[len(fs)-1].Choices
		if len(last) != 1 || last[0].FinishReason == nil || *last[0].FinishReason != "abort" {
			t.Fatalf("stream %s", tail(raw))
		}
	}
	if st := srv.Stats(); st.Aborted != 2 || st.Succeeded != 0 {
		t.Errorf("aborted %d succeeded %d", st.Aborted, st.Succeeded)
	}
	// The engine still serves requests that fit.
	if resp, _ := post(t, url, "/v1/completions", `{"prompt":"x","max_tokens":2}`); resp.StatusCode != 200 {
		t.Errorf("next request: %d", resp.StatusCode)
	}
}
