package ready

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fake is a server whose /health and /v1/models answer fixed statuses (or
// a status for the first few probes, then another), counting probes. Every
// error body echoes the credential it got, as a careless server might.
type fake struct {
	health, models int
	// healthAfter: /health answers `health` for the first n probes, then 200.
	healthAfter int
	noModels    bool // /v1/models answers 200 with an empty list
	healthHits  atomic.Int64
	modelHits   atomic.Int64
	mu          sync.Mutex
	auth        []string // Authorization headers seen
}

func (f *fake) handler() http.Handler {
	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"bad credential %q"}`, r.Header.Get("Authorization"))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		n := f.healthHits.Add(1)
		status := f.health
		if f.healthAfter > 0 && n > int64(f.healthAfter) {
			status = http.StatusOK
		}
		if status != http.StatusOK {
			echo(w, r, status)
		}
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		f.modelHits.Add(1)
		switch {
		case f.models != http.StatusOK:
			echo(w, r, f.models)
		case f.noModels:
			fmt.Fprint(w, `{"data":[]}`)
		default:
			fmt.Fprint(w, `{"data":[{"id":"m1","max_model_len":4096},{"id":"m2"}]}`)
		}
	})
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version":"1.2.3"}`)
	})
	return mux
}

func TestWait(t *testing.T) {
	const key = "sk-test-secret-key"
	cases := []struct {
		name string
		f    *fake
		key  string
		// ready: Wait succeeds, with Info.Health == health.
		ready, health bool
		// final: the first answer ends the wait (one /v1/models or
		// /health probe, no timeout).
		final bool
		want  []string // substrings of the error
	}{
		{name: "healthy", f: &fake{health: 200, models: 200}, ready: true, health: true},
		// Defect 10: a server without /health is ready when /v1/models
		// lists a model, whether perfgate launched it or not.
		{name: "no /health", f: &fake{health: 404, models: 200}, ready: true, health: false},
		{name: "503 while loading, then healthy", f: &fake{health: 503, healthAfter: 3, models: 200}, ready: true, health: true},
		{name: "health 401 without key", f: &fake{health: 401, models: 200}, final: true,
			want: []string{"GET /health: HTTP 401", "none was sent", "PERFGATE_API_KEY"}},
		{name: "health 403 with key", f: &fake{health: 403, models: 200}, key: key, final: true,
			want: []string{"GET /health: HTTP 403", "rejected the API key"}},
		{name: "models 401 with key", f: &fake{health: 200, models: 401}, key: key, final: true,
			want: []string{"GET /v1/models: HTTP 401", "rejected the API key", "OPENAI_API_KEY"}},
		{name: "models 403 without /health", f: &fake{health: 404, models: 403}, final: true,
			want: []string{"GET /v1/models: HTTP 403", "none was sent"}},
		{name: "healthy but no /v1/models", f: &fake{health: 200, models: 404}, final: true,
			want: []string{"HTTP 404", "does not look like an OpenAI-compatible server"}},
		// A 404 everywhere may be a proxy whose backend still starts.
		{name: "404 everywhere is waited out", f: &fake{health: 404, models: 404},
			want: []string{"not ready after", "does not look like an OpenAI-compatible server"}},
		{name: "500 is waited out, key scrubbed", f: &fake{health: 200, models: 500}, key: key,
			want: []string{"not ready after", "HTTP 500", "[redacted]"}},
		{name: "no models listed is waited out", f: &fake{health: 200, models: 200, noModels: true},
			want: []string{"not ready after", "no models listed"}},
		{name: "health 503 is waited out", f: &fake{health: 503, models: 200},
			want: []string{"not ready after", "GET /health: HTTP 503"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.f
			ts := httptest.NewServer(f.handler())
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// A final answer gets a time-out far above what a loaded
			// machine adds to two local probes: ending within 10 s (not
			// at the context's 20 s) after one /health probe is the point,
			// and the margin no longer hangs on 700 ms.
			timeout := 700 * time.Millisecond
			if tc.final {
				timeout = time.Minute
			}
			start := time.Now()
			info, err := Wait(ctx, Options{URL: ts.URL + "/v1/", APIKey: tc.key, Timeout: timeout, Interval: 20 * time.Millisecond})
			if tc.ready {
				if err != nil {
					t.Fatalf("Wait: %v", err)
				}
				if info.URL != ts.URL || info.Version != "1.2.3" || len(info.Models) != 2 || info.Models[0].ID != "m1" || info.Models[0].MaxModelLen != 4096 || info.Health != tc.health {
					t.Errorf("info = %+v", info)
				}
				return
			}
			if err == nil {
				t.Fatal("Wait succeeded")
			}
			msg := err.Error()
			for _, w := range append(tc.want, ts.URL) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
			if strings.Contains(msg, key) {
				t.Errorf("error %q contains the API key", msg)
			}
			var nr *NotReadyError
			if got := errors.As(err, &nr); got == tc.final {
				t.Errorf("final %v, but NotReadyError %v (%v)", tc.final, got, err)
			}
			if tc.final && (time.Since(start) > 10*time.Second || f.healthHits.Load() != 1) {
				t.Errorf("a final answer was retried: %d /health probes in %v", f.healthHits.Load(), time.Since(start))
			}
			if !tc.final && f.healthHits.Load() < 3 {
				t.Errorf("%d /health probes; a transient answer must be retried", f.healthHits.Load())
			}
		})
	}
}

// The key goes on every probe as a bearer token.
func TestWaitSendsKey(t *testing.T) {
	f := &fake{health: 200, models: 200}
	ts := httptest.NewServer(f.handler())
	defer ts.Close()
	if _, err := Wait(context.Background(), Options{URL: ts.URL, APIKey: "k1"}); err != nil {
		t.Fatal(err)
	}
	if len(f.auth) != 1 || f.auth[0] != "Bearer k1" {
		t.Errorf("Authorization headers %q", f.auth)
	}
}

// A launched server that exits ends the wait at once; Ctrl-C ends it as
// an interruption, not as "not ready".
func TestWaitDiedAndInterrupted(t *testing.T) {
	f := &fake{health: 503, models: 200}
	ts := httptest.NewServer(f.handler())
	defer ts.Close()
	died := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(died) })
	start := time.Now()
	if _, err := Wait(context.Background(), Options{URL: ts.URL, Died: died, Timeout: time.Minute}); !errors.Is(err, ErrDied) || time.Since(start) > 10*time.Second {
		t.Errorf("died: err %v after %v, want ErrDied at once", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Wait(ctx, Options{URL: ts.URL, Timeout: time.Minute})
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("interrupted: err %v", err)
	}
}

// A long wait says what it waits for, naming the address and last answer.
func TestWaitHints(t *testing.T) {
	f := &fake{health: 503, models: 200}
	ts := httptest.NewServer(f.handler())
	defer ts.Close()
	var hints bytes.Buffer
	Wait(context.Background(), Options{URL: ts.URL, Timeout: 300 * time.Millisecond, Interval: 10 * time.Millisecond, Hints: &hints, HintEvery: 100 * time.Millisecond})
	if n := strings.Count(hints.String(), "waiting for the server at "+ts.URL); n < 1 || !strings.Contains(hints.String(), "HTTP 503") {
		t.Errorf("hints %q", hints.String())
	}
}

// Alive probes /health on a server that has it and /v1/models on one that
// has none, so a run does not declare a server without /health dead.
func TestAlive(t *testing.T) {
	for _, tc := range []struct {
		health int
		ok     bool
	}{{200, true}, {404, true}, {503, false}} {
		f := &fake{health: tc.health, models: 200}
		ts := httptest.NewServer(f.handler())
		info := Info{URL: ts.URL, Health: tc.health != 404}
		err := Alive(context.Background(), nil, "", info)
		ts.Close()
		if (err == nil) != tc.ok {
			t.Errorf("health %d: Alive = %v", tc.health, err)
		}
	}
}

// TestWaitProfileHealth: an engine profile without a health endpoint
// (ollama) is never probed on /health, even one that would answer 503;
// a profile's own health path is probed in its place and becomes the
// liveness path.
func TestWaitProfileHealth(t *testing.T) {
	f := &fake{health: 503, models: 200} // /health would hold the wait
	ts := httptest.NewServer(f.handler())
	defer ts.Close()
	info, err := Wait(context.Background(), Options{URL: ts.URL, NoHealth: true, Timeout: 2 * time.Second, Interval: 20 * time.Millisecond})
	if err != nil || info.Health || info.LivenessPath() != "/v1/models" || f.healthHits.Load() != 0 {
		t.Errorf("NoHealth: %+v, %v, %d /health probes", info, err, f.healthHits.Load())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) {})
	mux.Handle("/", f.handler())
	ts2 := httptest.NewServer(mux)
	defer ts2.Close()
	info, err = Wait(context.Background(), Options{URL: ts2.URL, HealthPath: "/ping", Timeout: 2 * time.Second, Interval: 20 * time.Millisecond})
	if err != nil || !info.Health || info.LivenessPath() != "/ping" {
		t.Errorf("HealthPath /ping: %+v, %v", info, err)
	}
}

// TestWaitNoModelsHint: a server that lists no model says, in the error
// after the timeout, how the engine comes to list one.
func TestWaitNoModelsHint(t *testing.T) {
	f := &fake{health: 404, models: 200, noModels: true}
	ts := httptest.NewServer(f.handler())
	defer ts.Close()
	_, err := Wait(context.Background(), Options{URL: ts.URL, NoHealth: true, NoModelsHint: "pull it first",
		Timeout: 300 * time.Millisecond, Interval: 20 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "GET /v1/models: no models listed (pull it first)") {
		t.Errorf("err = %v", err)
	}
}
