package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/redact"
)

// knownSecret is a value the caller's Scrubber knows (too short for a
// GitHub token's shape, so only the Scrubber can catch it).
const knownSecret = "ghs_runner1"

// TestErrorSampleCutKeepsNoPrefixOfTheKey: a key that straddles the
// sample's size limit is scrubbed whole, not cut first and left half there.
func TestErrorSampleCutKeepsNoPrefixOfTheKey(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","max_model_len":4096}]}`)
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, strings.Repeat("x", metrics.ErrorSampleBytes-5)+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0 }) // APIKey "sk-secret"
	res, _ := r.Run(context.Background(), manifest(2, 0, 0, 1), 1)
	if res == nil || len(res.Trials) != 1 {
		t.Fatalf("no trial recorded: %+v", res)
	}
	sample := res.Trials[0].ErrorSamples["http_500"]
	if len(sample) != metrics.ErrorSampleBytes || strings.Contains(sample, "sk-") {
		t.Errorf("sample of %d bytes ends %q", len(sample), sample[max(0, len(sample)-20):])
	}
}

// A server that echoes the Authorization header into its errors (some
// proxies do) must not get the API key into the result file, nor any other
// secret the caller knows (a server that dumps its environment into an
// error page shows GITHUB_TOKEN).
func TestErrorBodiesNeverCarryTheKey(t *testing.T) {
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","max_model_len":4096}]}`)
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":{"message":"bad header %s, runner %s","type":"x","code":500}}`, auth, knownSecret)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"error\":{\"message\":\"engine saw %s\",\"code\":500}}\n\ndata: [DONE]\n\n", auth)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	r := newRunner(t, ts.URL, func(c *Config) { // APIKey "sk-secret"
		c.Warmups = 0
		c.Scrubber = redact.NewScrubber(knownSecret)
	})
	res, _ := r.Run(context.Background(), manifest(6, 0, 0, 3), 1)
	if res == nil || len(res.Trials) != 1 {
		t.Fatalf("no trial recorded: %+v", res)
	}
	tr := res.Trials[0]
	if tr.Errors["http_500"] == 0 || tr.Errors["stream_error"] == 0 {
		t.Fatalf("both failure kinds should be recorded: %v", tr.Errors)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sk-secret") || strings.Contains(string(data), knownSecret) {
		t.Fatalf("the API key reached the result: %s", tr.ErrorSamples)
	}
	if !strings.Contains(tr.ErrorSamples["http_500"], "[redacted]") {
		t.Errorf("error sample lost its context: %q", tr.ErrorSamples["http_500"])
	}
}
