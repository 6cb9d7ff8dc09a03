package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestGateRestarts: trials.restarts: 2 with a launched server runs the
// first look's 4 trials over two server starts, two each, and the result
// records each trial's start.
func TestGateRestarts(t *testing.T) {
	serverCmd := runServerCmd(t) // skips under -short
	t.Parallel()
	env := withEnv("CLI_TEST_SERVE_SIM=1", "PERFGATE_TRIALS_RESTARTS=2")
	out := t.TempDir()
	args := append([]string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--trials", "4", "--max-trials", "4", "-o", out,
		"--baselines", filepath.Join(out, "none"), "--server-cmd", serverCmd}, laxLag...)
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
	if code != ExitInvalid {
		t.Fatalf("exit %d, want 2 (missing baseline)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if n := strings.Count(stderr.String(), "starting the server: "); n != 2 {
		t.Errorf("%d server starts, want 2:\n%s", n, stderr.String())
	}
	r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for _, tr := range r.Trials {
		starts = append(starts, tr.Start)
	}
	if len(starts) != 4 || starts[0] != 1 || starts[1] != 1 || starts[2] != 2 || starts[3] != 2 || !r.Complete {
		t.Errorf("trial starts %v (complete %v), want [1 1 2 2]", starts, r.Complete)
	}
}
