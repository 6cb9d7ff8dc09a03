package loadgen

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
)

// closingServer is an OpenAI-compatible streaming server that behaves as
// llama.cpp's llama-server was seen to: it answers every stream with
// "Keep-Alive: timeout=5, max=100" and no "Connection: close", then closes
// the connection once the stream has ended (after closeAfter). A client
// that trusts the header puts the connection back in its pool, and the
// next request that picks it finds it closed.
type closingServer struct {
	closeAfter time.Duration
	// awaitNext, instead of closeAfter, keeps the connection until the
	// client sends its next request on it (at most a second) and closes it
	// unanswered: every reuse then meets a closed connection, whatever the
	// machine's timing.
	awaitNext bool
	tokens    int
	conns     atomic.Int64 // connections accepted
	streams   atomic.Int64 // completions answered
}

func newClosingServer(t testing.TB, s *closingServer) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","max_model_len":4096}]}`)
	})
	mux.HandleFunc("POST /v1/completions", s.complete)
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func (s *closingServer) complete(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	n := s.tokens
	if v, ok := body["max_tokens"].(float64); ok {
		n = int(v)
	}
	conn, bw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	s.streams.Add(1)
	bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n")
	chunk := func(data string) {
		ev := "data: " + data + "\n\n"
		fmt.Fprintf(bw, "%x\r\n%s\r\n", len(ev), ev)
		bw.Flush()
	}
	for i := 1; i <= n; i++ {
		fin := "null"
		if i == n {
			fin = `"length"`
		}
		chunk(fmt.Sprintf(`{"id":"x","object":"text_completion","choices":[{"index":0,"text":"a","finish_reason":%s}]}`, fin))
	}
	chunk(fmt.Sprintf(`{"id":"x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":%d,"total_tokens":%d}}`, n, n+3))
	chunk("[DONE]")
	bw.WriteString("0\r\n\r\n")
	bw.Flush()
	if s.awaitNext {
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = bw.Reader.Peek(1)
		return
	}
	// The connection closes without a word, after closeAfter.
	time.Sleep(s.closeAfter)
}

// TestServerClosingConnections: a server that closes every connection
// after a stream fails no request, under either remedy: the generic
// profile reuses connections and sends a request whose picked connection
// turned out closed again (counted in the trial, with a warning), the
// llamacpp profile opens a fresh connection per request. Before either,
// 11-49 % of these requests failed (connection_reset, truncated: EOF,
// server closed idle connection), depending on how soon the server closed.
func TestServerClosingConnections(t *testing.T) {
	const n = 1000
	for _, tc := range []struct {
		engine engine.Name
		reuse  bool
	}{{engine.OpenAI, true}, {engine.LlamaCpp, false}} {
		for _, mode := range []string{"0s", "200µs", "await-next"} {
			t.Run(fmt.Sprintf("%s/close-after-%s", tc.engine, mode), func(t *testing.T) {
				s := &closingServer{tokens: 4}
				switch mode {
				case "200µs":
					s.closeAfter = 200 * time.Microsecond
				case "await-next":
					s.awaitNext = true
				}
				ts := newClosingServer(t, s)
				r := newRunner(t, ts.URL, func(c *Config) { c.Engine = tc.engine })
				res, err := r.Run(t.Context(), manifest(n, 8, 0, 4), 1)
				if err != nil {
					t.Fatal(err)
				}
				tr := res.Trials[0]
				if tr.Failed != 0 || tr.Completed != n {
					t.Fatalf("completed %d, failed %d (%v, %v) of %d", tr.Completed, tr.Failed, tr.Errors, tr.ErrorSamples, n)
				}
				// Each answered stream cost the server its connection.
				if got := s.conns.Load(); got < s.streams.Load() {
					t.Errorf("%d connections for %d streams", got, s.streams.Load())
				}
				hasWarning := slices.ContainsFunc(tr.Warnings, func(w string) bool { return strings.Contains(w, "sent again on a fresh connection") })
				switch {
				case !tc.reuse && (tr.Resent != 0 || hasWarning):
					t.Errorf("resent %d (warnings %q) without connection reuse", tr.Resent, tr.Warnings)
				case tc.reuse && (tr.Resent > 0) != hasWarning:
					t.Errorf("resent %d but warnings %q: every resend is counted and said", tr.Resent, tr.Warnings)
				case tc.reuse && mode == "await-next" && tr.Resent == 0:
					// Every reused connection was closed on the request:
					// resending is what saved them.
					t.Errorf("resent 0: the server closed every reused connection, so requests must have been sent again")
				}
			})
		}
	}
}

// TestKeptAliveNotResent: a server that keeps its connections has no
// request sent twice (the Idempotency-Key marker changes nothing there) and
// never sees the marker header.
func TestKeptAliveNotResent(t *testing.T) {
	f := &fake{ttft: time.Millisecond, itl: time.Millisecond}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, nil)
	res, err := r.Run(t.Context(), manifest(50, 4, 0, 4), 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.Trials[0]; tr.Resent != 0 || tr.Failed != 0 {
		t.Errorf("resent %d, failed %d against a keep-alive server", tr.Resent, tr.Failed)
	}
}

// BenchmarkClosingServer measures what each remedy costs a request against
// a server that closes after every stream, next to reuse against a server
// that keeps connections: ns/op is per request at concurrency 8, and
// ttft_us the median TTFT.
func BenchmarkClosingServer(b *testing.B) {
	for _, tc := range []struct {
		name   string
		engine engine.Name
		closes bool
	}{{"keepalive-server/reuse", engine.OpenAI, false}, {"closing-server/reuse+resend", engine.OpenAI, true}, {"closing-server/no-reuse", engine.LlamaCpp, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var url string
			if tc.closes {
				url = newClosingServer(b, &closingServer{closeAfter: 200 * time.Microsecond, tokens: 4}).URL
			} else {
				url = newFake(b, &fake{}).URL
			}
			r, err := New(Config{URL: url, Engine: tc.engine, Warmups: -1, ReadyTimeout: 3 * time.Second, Limits: metrics.Limits{DispatchLagMs: 1000}})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(r.Close)
			m := manifest(b.N, 8, 0, 4)
			b.ResetTimer()
			res, err := r.Run(b.Context(), m, 1)
			if err != nil {
				b.Fatal(err)
			}
			tr := res.Trials[0]
			if tr.Failed != 0 {
				b.Fatalf("%d failed: %v", tr.Failed, tr.Errors)
			}
			b.ReportMetric(tr.Values["ttft_ms.median"]*1000, "ttft_us")
			b.ReportMetric(tr.Values["ttft_ms.p99"]*1000, "ttft_p99_us")
			b.ReportMetric(float64(tr.Resent)/float64(b.N), "resent/op")
		})
	}
}
