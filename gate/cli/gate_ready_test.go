package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGateURLReadyTimeout: `gate --url` waits for the server as long as
// server.ready_timeout says (here 700 ms), not a fixed two minutes.
func TestGateURLReadyTimeout(t *testing.T) {
	t.Parallel()
	ts, requests := countingServer(t, nil)                                   // answers 503 to everything
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a broken gate
	defer cancel()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := Main(ctx, []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", ts.URL,
		"--baselines", filepath.Join(out, "none"), "-o", out}, Streams{Out: &stdout, Err: &stderr, Environ: testEnviron("PERFGATE_SERVER_READY_TIMEOUT=700ms")})
	took := time.Since(start)
	if code != ExitRunFailed || took > 10*time.Second || !strings.Contains(stderr.String(), "not ready after 7") {
		t.Errorf("exit %d after %v, stderr:\n%s\nwant 3 after about 700ms", code, took, stderr.String())
	}
	if requests.Load() < 2 {
		t.Errorf("%d probes; the 503 should have been retried", requests.Load())
	}
}
