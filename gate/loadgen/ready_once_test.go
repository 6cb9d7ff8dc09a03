package loadgen

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/ready"
)

// TestReadyTimeoutSpentOnce: a server that never became ready costs the
// ready timeout once per Runner: the second Prepare (perfgate gate's run
// after its preflight) answers at once with the first wait's error; before,
// it waited the whole timeout again (a 3 s timeout exited after 6.1 s). A
// server that was ready once gets the full wait again: it may be
// restarting.
func TestReadyTimeoutSpentOnce(t *testing.T) {
	const timeout = 400 * time.Millisecond
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	r := newRunner(t, down, func(c *Config) { c.ReadyTimeout = timeout })
	m := manifest(2, 1, 0, 4)
	if _, err := r.Prepare(context.Background(), m); !errors.As(err, new(*ready.NotReadyError)) {
		t.Fatalf("first Prepare: %v, want not ready", err)
	}
	start := time.Now()
	_, err = r.Prepare(context.Background(), m)
	if !errors.As(err, new(*ready.NotReadyError)) || !strings.Contains(err.Error(), "spent once per run") {
		t.Fatalf("second Prepare: %v", err)
	}
	if took := time.Since(start); took >= timeout {
		t.Errorf("second Prepare waited %v, the whole timeout again", took)
	}

	// Ready once, then gone: the full wait again.
	ts := newFake(t, &fake{ttft: time.Millisecond, itl: time.Millisecond})
	r = newRunner(t, ts.URL, func(c *Config) { c.ReadyTimeout = timeout })
	if _, err := r.Prepare(context.Background(), m); err != nil {
		t.Fatalf("ready server: %v", err)
	}
	ts.Close()
	start = time.Now()
	_, err = r.Prepare(context.Background(), m)
	if err == nil || strings.Contains(err.Error(), "spent once per run") || time.Since(start) < timeout {
		t.Errorf("after a ready server went away: %v after %v, want a full wait", err, time.Since(start))
	}
}
