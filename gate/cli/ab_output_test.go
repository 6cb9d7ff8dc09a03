package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
)

// TestABFilesIncompleteUntilLastBlock is issue 20 item 4: the result
// files are rewritten after every block, and a SIGKILLed `perfgate ab`
// (no chance to mark them) left them saying "complete": true, which
// baseline update promoted. B's server hangs on its second start, so the
// files on disk are exactly what a SIGKILL at that moment leaves: each
// must say incomplete and be refused as a baseline. The run is then
// interrupted (ctx cancelled) and its files stay incomplete.
func TestABFilesIncompleteUntilLastBlock(t *testing.T) {
	t.Parallel()
	sim := abSim(t, "")
	dir, mark := t.TempDir(), t.TempDir()
	b := "sh -c 'if [ -e " + mark + "/launched ]; then touch " + mark + "/hung; exec sleep 60; fi; touch " + mark + "/launched; exec " + sim + "'"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan ExitCode, 1)
	go func() {
		code, _, _ := abMainEnv(ctx, testEnviron("CLI_TEST_PERFGATE_MAIN=1"), "-w", "testdata/gate/decode-a.yaml", "-o", dir, "--a-cmd", sim, "--b-cmd", b,
			"--blocks", "8", "--block-trials", "1", "--ready-timeout", "90s", "--max-dispatch-lag-ms", "1000")
		done <- code
	}()
	for {
		if _, err := os.Stat(filepath.Join(mark, "hung")); err == nil {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("ab ended (exit %v) before B's second start", code)
		case <-ctx.Done():
			t.Fatal("B's server never started a second time")
		case <-time.After(50 * time.Millisecond):
		}
	}
	check := func(when string) {
		for _, arm := range []string{"a", "b"} {
			r, err := result.Read(filepath.Join(dir, arm, "decode-a.json"))
			if err != nil {
				t.Fatalf("%s: %v", when, err) // B ran a block, and A before B's second
			}
			if r.Complete || r.IncompleteReason == "" {
				t.Errorf("%s: arm %s says complete after %d blocks", when, arm, len(r.AB.Blocks))
			}
			if err := baseline.Check(r, baseline.Requirements{}); err == nil || !strings.Contains(err.Error(), "incomplete") {
				t.Errorf("%s: arm %s: baseline.Check = %v, want a refusal", when, arm, err)
			}
		}
	}
	check("while B's server hangs")
	if r, _ := result.Read(filepath.Join(dir, "b", "decode-a.json")); r != nil && !strings.Contains(r.IncompleteReason, "had not finished") {
		t.Errorf("reason %q", r.IncompleteReason)
	}
	cancel()
	if code := <-done; code == ExitPass {
		t.Errorf("an interrupted experiment exited 0")
	}
	check("after the interrupt")
}
