package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A server that refuses the probe's credentials will not accept them by
// waiting: WaitReady gives up at the first 401 or 403, with an error that
// says what to set, while a 503 is still waited out.
func TestWaitReadyRefusedCredentials(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		var models atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/models" {
				models.Add(1)
				w.WriteHeader(status)
				return
			}
		}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := WaitReady(ctx, nil, ts.URL, nil)
		cancel()
		ts.Close()
		var auth *AuthError
		if !errors.As(err, &auth) || !strings.Contains(err.Error(), "PERFGATE_API_KEY") {
			t.Errorf("HTTP %d: err = %v, want an *AuthError naming PERFGATE_API_KEY", status, err)
		}
		if n := models.Load(); n != 1 {
			t.Errorf("HTTP %d: /v1/models probed %d times, want 1", status, n)
		}
	}

	var health atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" && health.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"data": [{"id": "m", "max_model_len": 8}]}`))
		}
	}))
	defer ts.Close()
	info, err := WaitReady(context.Background(), nil, ts.URL, nil)
	if err != nil || len(info.Models) != 1 || health.Load() < 3 {
		t.Errorf("a 503 while starting: info %+v, err %v, %d health probes", info, err, health.Load())
	}
}
