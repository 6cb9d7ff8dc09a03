package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
)

// TestRunNoValidTrialFails: a workload whose every trial is invalid (half
// the simulator's answers are HTTP 500, far above the 1 % failure share)
// makes `perfgate run` exit 3 naming the cell and the reason, with its
// result file written; it exited 0 before (#21).
func TestRunNoValidTrialFails(t *testing.T) {
	t.Parallel()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults.HTTP500Rate = 0.5
	srv := sim.New(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", runSmoke+"smoke-chat-c4.yaml", "--url", ts.URL, "-o", dir, "--trials", "2", "--warmups", "0")...)
	if code != ExitRunFailed {
		t.Fatalf("exit %v, want %v\nstdout:\n%s\nstderr:\n%s", code, ExitRunFailed, out, errs)
	}
	if !strings.Contains(errs, "smoke-chat-c4: none of its 2 trial(s) is valid") || !strings.Contains(errs, "failed") {
		t.Errorf("stderr does not name the cell and its reason:\n%s", errs)
	}
	rs, err := result.ReadDir(dir)
	if err != nil || len(rs) != 1 || len(rs[0].Trials) != 2 {
		t.Fatalf("result files: %v, %d", err, len(rs))
	}
}
