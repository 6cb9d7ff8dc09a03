package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// failingServer is the simulator answering readiness (/health,
// /v1/models) but failing every generation request: with HTTP 500, or by
// closing the connection (a server that died after it was ready).
func failingServer(t *testing.T, hangUp bool) string {
	t.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "completions") {
			s.ServeHTTP(w, r)
			return
		}
		if hangUp {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"object":"error","message":"engine dead","type":"InternalServerError","code":500}`))
	}))
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// TestCapacityRunAgainstFailingServer is issue 20 item 5: a capacity run
// against a server that fails every request (HTTP 500, or gone after it
// was ready) exited 0 with "complete": true. It fails (exit 3), its result
// is incomplete, and the probe that ran is kept.
func TestCapacityRunAgainstFailingServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end run against the simulator (-short)")
	}
	for _, hangUp := range []bool{false, true} {
		out := t.TempDir()
		start := time.Now()
		code, stdout, stderr := runCLI("run", "-w", "testdata/capacity-e2e.yaml", "--url", failingServer(t, hangUp), "-o", out, "--max-dispatch-lag-ms", "1000")
		if code != ExitRunFailed {
			t.Errorf("hang up %v: exit %d, want 3\n%s%s", hangUp, code, stdout, stderr)
		}
		r, err := result.Read(filepath.Join(out, "capacity-e2e.json"))
		if err != nil {
			t.Fatalf("hang up %v: %v", hangUp, err)
		}
		if r.Complete || !strings.Contains(r.IncompleteReason, "completed no request") {
			t.Errorf("hang up %v: complete %v, reason %q", hangUp, r.Complete, r.IncompleteReason)
		}
		if len(r.Trials) != 1 || r.Trials[0].Valid || r.Trials[0].Capacity == nil || len(r.Trials[0].Capacity.Probes) != 1 {
			t.Errorf("hang up %v: trials %+v, want the one invalid search with its saturation probe", hangUp, r.Trials)
		}
		t.Logf("hang up %v: exit %d in %s: %s", hangUp, code, time.Since(start).Round(time.Millisecond), r.IncompleteReason)
	}
}

// TestCapacityRunInterruptedKeepsProbes is issue 20 item 5: an
// interrupted capacity search wrote `trials: []`, dropping the probes it
// ran. The search interrupted after its first probe is kept as an
// invalid trial with its probes, and the result is incomplete.
func TestCapacityRunInterruptedKeepsProbes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end run against the simulator (-short)")
	}
	url := capacityE2ESim(t, 4)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The interrupt comes once the first probe's line is on stderr.
	w := &cancelOn{marker: "probe saturation", cancel: cancel}
	code := Main(ctx, []string{"run", "-w", "testdata/capacity-e2e.yaml", "--url", url, "-o", out, "--max-dispatch-lag-ms", "1000"},
		Streams{Out: &strings.Builder{}, Err: w})
	if code == ExitPass {
		t.Errorf("an interrupted run exited 0")
	}
	r, err := result.Read(filepath.Join(out, "capacity-e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || len(r.Trials) == 0 || r.Trials[0].Capacity == nil || len(r.Trials[0].Capacity.Probes) == 0 || r.Trials[0].Valid {
		t.Fatalf("complete %v, trials %+v: want the interrupted search kept, invalid, with its probes", r.Complete, r.Trials)
	}
	t.Logf("kept %d probe(s): %s", len(r.Trials[0].Capacity.Probes), r.Trials[0].InvalidReason)
}

// cancelOn is a writer that calls cancel once marker is written to it.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	marker string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.marker) {
		c.cancel()
	}
	return len(p), nil
}
