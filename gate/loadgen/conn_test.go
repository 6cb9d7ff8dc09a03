package loadgen

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestConnectionsReused: a trial reuses its keep-alive connections, so TTFT
// never includes a TCP handshake after the warmups (the Python clients open
// one connection per request).
func TestConnectionsReused(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	f := &fake{ttft: time.Millisecond, itl: time.Millisecond, onConn: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}}
	ts := newFake(t, f)
	r := newRunner(t, ts.URL, nil)
	if _, err := r.Run(context.Background(), manifest(30, 3, 0, 4), 3); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// 3 for the cap (the readiness probes' connection is one of them),
	// one spare.
	if conns > 4 {
		t.Errorf("%d connections opened for 96 requests at concurrency 3", conns)
	}
}
