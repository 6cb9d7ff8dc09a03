package loadgen

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/workload"
)

// fake is a small OpenAI-compatible streaming server for edge cases the
// simulator does not produce on purpose (truncation, resets, odd chunks).
type fake struct {
	ttft, itl  time.Duration
	perChunk   int                  // tokens per chunk (default 1)
	continuous bool                 // honour continuous_usage_stats
	crlf       bool                 // CRLF line ends
	behave     func(idx int) string // "" ok, or "503", "stream_error", "truncate", "reset", "empty", "html", "huge"
	onConn     func(net.Conn, http.ConnState)
	// barrier, when set, holds every measured request's response until
	// that many measured requests have arrived (at most 10 s): only a
	// client that sends without waiting for responses gets past it.
	barrier int

	arrived     atomic.Int64
	barrierOnce sync.Once
	allArrived  chan struct{}

	mu       sync.Mutex
	arrivals map[string]time.Time // x-request-id -> arrival
	bodies   []map[string]any
	auth     []string
	inflight atomic.Int64
	peak     atomic.Int64
	start    time.Time
}

func newFake(t testing.TB, f *fake) *httptest.Server {
	f.arrivals = map[string]time.Time{}
	f.allArrived = make(chan struct{})
	f.start = time.Now()
	if f.perChunk == 0 {
		f.perChunk = 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"version":"0.0.1-fake"}`) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","max_model_len":4096}]}`)
	})
	mux.HandleFunc("POST /reset_prefix_cache", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("POST /v1/completions", f.complete)
	mux.HandleFunc("POST /v1/chat/completions", f.complete)
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ConnState = f.onConn
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func (f *fake) complete(w http.ResponseWriter, r *http.Request) {
	n := f.inflight.Add(1)
	// The request stops counting as in flight before its last byte is
	// written: the client may start the next one as soon as it reads it.
	var once sync.Once
	release := func() { once.Do(func() { f.inflight.Add(-1) }) }
	defer release()
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	id := r.Header.Get("x-request-id")
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.arrivals[id] = time.Now()
	f.bodies = append(f.bodies, body)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	idx, _ := strconv.Atoi(id[strings.LastIndex(id, "-r")+2:])
	if f.barrier > 0 && strings.Contains(id, "-t") {
		if f.arrived.Add(1) >= int64(f.barrier) {
			f.barrierOnce.Do(func() { close(f.allArrived) })
		}
		select {
		case <-f.allArrived:
		case <-time.After(10 * time.Second):
			http.Error(w, `{"error":{"message":"not every request arrived before the first response"}}`, http.StatusServiceUnavailable)
			return
		}
	}
	behave := ""
	if f.behave != nil && strings.Contains(id, "-t") {
		behave = f.behave(idx)
	}
	maxTok := 4
	if v, ok := body["max_tokens"].(float64); ok {
		maxTok = int(v)
	} else if v, ok := body["max_completion_tokens"].(float64); ok {
		maxTok = int(v)
	}
	if behave == "503" {
		http.Error(w, `{"error":{"message":"overloaded","code":503}}`, http.StatusServiceUnavailable)
		return
	}
	if behave == "html" { // a proxy's error page, with status 200
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body><h1>Gateway Timeout</h1></body></html>")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	if behave == "huge" { // one 20 MiB event, over the decoder's 16 MiB limit
		fmt.Fprintf(w, "data: {\"pad\":\"%s\"}\n\n", strings.Repeat("a", 20<<20))
		return
	}
	nl := "\n"
	if f.crlf {
		nl = "\r\n"
	}
	send := func(s string) {
		fmt.Fprintf(w, "data: %s%s%s", s, nl, nl)
		fl.Flush()
	}
	if behave == "empty" {
		send("[DONE]")
		return
	}
	time.Sleep(f.ttft)
	cont := f.continuous
	if so, ok := body["stream_options"].(map[string]any); !ok || so["continuous_usage_stats"] != true {
		cont = false
	}
	sent := 0
	for sent < maxTok {
		if sent > 0 {
			time.Sleep(f.itl)
		}
		k := min(f.perChunk, maxTok-sent)
		sent += k
		if behave == "stream_error" && sent > 1 {
			send(`{"error":{"message":"engine died","type":"InternalServerError","param":null,"code":500}}`)
			send("[DONE]")
			return
		}
		if behave == "truncate" && sent > 1 {
			return // ends the chunked body cleanly, without [DONE]
		}
		if behave == "reset" && sent > 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // mid-chunk close: unexpected EOF on the client
			}
			return
		}
		fin := "null"
		if sent == maxTok {
			fin = `"length"`
		}
		usage := ""
		if cont {
			usage = fmt.Sprintf(`,"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}`, sent, sent+3)
		}
		send(fmt.Sprintf(`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"%s","finish_reason":%s}]%s}`, strings.Repeat("a", k), fin, usage))
	}
	send(fmt.Sprintf(`{"id":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}}`, sent, sent+3))
	release()
	send("[DONE]")
}

// manifest builds a completions manifest of n requests sent every gap
// (0: all at once), capped at conc, with maxTok output tokens each.
func manifest(n, conc int, gap time.Duration, maxTok int) *workload.Manifest {
	m := &workload.Manifest{
		Name: "t", Cell: "t@c" + strconv.Itoa(conc), Hash: "abc123", API: workload.Completions,
		Concurrency: conc, Timeout: 10 * time.Second, Sampling: workload.Sampling{IgnoreEOS: true},
	}
	for i := 0; i < n; i++ {
		m.Requests = append(m.Requests, workload.Request{Index: i, Arrival: time.Duration(i) * gap, PromptIDs: []int{1, 2, 3}, InputTokens: 3, MaxTokens: maxTok})
	}
	for i := 0; i < 2; i++ {
		m.Warmups = append(m.Warmups, workload.Request{Index: i, PromptIDs: []int{9, 9, 9}, InputTokens: 3, MaxTokens: maxTok})
	}
	return m
}
