package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer counts every request; block, when set, holds each request
// until it is closed (or the request's context ends).
func countingServer(t *testing.T, block chan struct{}) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if block != nil {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}
		http.Error(w, "not ready", http.StatusServiceUnavailable)
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

// TestOutputUnwritable: an output directory that cannot be written (a
// regular file, a path below one, a path in /proc) fails `gate` and `run`
// at once with exit 2 naming the directory, before any request reaches the
// server, instead of after every trial.
func TestOutputUnwritable(t *testing.T) {
	t.Parallel()
	ts, requests := countingServer(t, nil)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{file, filepath.Join(file, "sub"), "/proc/perfgate-x"}
	for _, dir := range dirs {
		for _, args := range [][]string{
			{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", ts.URL, "--baselines", t.TempDir(), "-o", dir},
			{"run", "-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", dir},
		} {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr})
			if code != ExitInvalid || !strings.Contains(stderr.String(), dir) || time.Since(start) > 5*time.Second {
				t.Errorf("%s -o %s: exit %d after %v, stderr %q; want 2 at once naming the directory", args[0], dir, code, time.Since(start), stderr.String())
			}
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the server before the output directory was checked", n)
	}
}

// TestOutputLocked: while one perfgate writes an output directory, a
// second one into the same directory fails at once (exit 2) saying that
// another perfgate holds it, and sends nothing; once the first is done the
// directory is free again.
func TestOutputLocked(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	ts, requests := countingServer(t, block)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan ExitCode, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		first <- Main(ctx, []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", ts.URL,
			"--baselines", t.TempDir(), "-o", out}, Streams{Out: &stdout, Err: &stderr})
	}()
	for deadline := time.Now().Add(20 * time.Second); requests.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first gate never reached the server")
		}
	}
	before := requests.Load()
	for _, args := range [][]string{
		{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", ts.URL, "--baselines", t.TempDir(), "-o", out},
		{"run", "-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", out},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr})
		msg := stderr.String()
		if code != ExitInvalid || !strings.Contains(msg, out) || !strings.Contains(msg, "another perfgate") || !strings.Contains(msg, "pid ") {
			t.Errorf("second %s: exit %d, stderr %q; want 2 saying another perfgate holds %s", args[0], code, msg, out)
		}
	}
	if n := requests.Load(); n != before {
		t.Errorf("the refused runs sent %d requests", n-before)
	}
	cancel()
	close(block)
	select {
	case <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("the first gate did not stop")
	}
	release, err := outputDir("output", out)
	if err != nil {
		t.Fatalf("the lock outlived the first gate: %v", err)
	}
	release()
}
