package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPrepareFinalAnswers: answers that waiting cannot change (a missing
// or rejected API key, a server without /v1/models) end the readiness
// wait at the first answer instead of after the ready timeout, and the key
// never appears in the error, even when the server echoes it.
func TestPrepareFinalAnswers(t *testing.T) {
	cases := []struct {
		name           string
		health, models int
		key            string
		readyTimeout   time.Duration
		want           []string // substrings of the error
		final          bool     // one /v1/models request, no wait
	}{
		{name: "wrong key 401", health: 200, models: 401, key: "sk-secret", readyTimeout: time.Minute, final: true,
			want: []string{"HTTP 401", "/v1/models", "rejected the API key", "PERFGATE_API_KEY", "OPENAI_API_KEY"}},
		{name: "wrong key 403", health: 200, models: 403, key: "sk-secret", readyTimeout: time.Minute, final: true,
			want: []string{"HTTP 403", "rejected the API key"}},
		{name: "no key 401", health: 200, models: 401, readyTimeout: time.Minute, final: true,
			want: []string{"HTTP 401", "requires an API key and none was sent", "PERFGATE_API_KEY"}},
		{name: "health needs the key too", health: 401, models: 200, key: "sk-secret", readyTimeout: time.Minute, final: true,
			want: []string{"GET /health: HTTP 401", "rejected the API key"}},
		{name: "healthy but no /v1/models", health: 200, models: 404, key: "sk-secret", readyTimeout: time.Minute, final: true,
			want: []string{"HTTP 404", "does not look like an OpenAI-compatible server"}},
		// A 404 everywhere may be a proxy whose backend is still starting:
		// waited out, with the same explanation at the end.
		{name: "404 everywhere is waited out", health: 404, models: 404, key: "sk-secret", readyTimeout: 600 * time.Millisecond,
			want: []string{"not ready after", "does not look like an OpenAI-compatible server"}},
		{name: "server error is waited out, key redacted", health: 200, models: 500, key: "sk-secret", readyTimeout: 600 * time.Millisecond,
			want: []string{"not ready after", "HTTP 500", "[redacted]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var modelHits atomic.Int64
			// Both endpoints echo the credential they got, as a careless
			// server might.
			echo := func(status int) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(status)
					fmt.Fprintf(w, `{"error":"bad credential %q"}`, r.Header.Get("Authorization"))
				}
			}
			mux := http.NewServeMux()
			mux.Handle("GET /health", echo(tc.health))
			mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
				modelHits.Add(1)
				if tc.models == 200 {
					fmt.Fprint(w, `{"data":[{"id":"fake-model"}]}`)
					return
				}
				echo(tc.models)(w, r)
			})
			ts := httptest.NewServer(mux)
			defer ts.Close()
			r := newRunner(t, ts.URL, func(c *Config) { c.APIKey, c.ReadyTimeout = tc.key, tc.readyTimeout })
			// The context only keeps a broken implementation from
			// hanging for the full minute; a final answer never reaches it.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := r.Prepare(ctx, manifest(1, 0, 0, 1))
			if err == nil {
				t.Fatal("Prepare succeeded")
			}
			msg := err.Error()
			for _, w := range append(tc.want, ts.URL) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			if strings.Contains(msg, "sk-secret") {
				t.Errorf("error %q contains the API key", msg)
			}
			if tc.final {
				if errors.Is(err, ErrInterrupted) || strings.Contains(msg, "not ready after") {
					t.Errorf("final answer was waited out: %v", err)
				}
				if n := modelHits.Load(); tc.health == 200 && n != 1 {
					t.Errorf("/v1/models asked %d times, want 1", n)
				}
			} else if n := modelHits.Load(); n < 2 {
				t.Errorf("/v1/models asked %d times; a transient answer should be retried", n)
			}
		})
	}
}
