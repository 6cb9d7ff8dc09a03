package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

const commandWorkload = "testdata/command/latency.yaml"

// TestRunCommandWorkload: perfgate run executes a kind: command workload
// without any server: one command per trial, the offline_* values in
// each trial, the command's output files kept under DIR/commands/.
func TestRunCommandWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := runMainIn(context.Background(), testEnviron("FAKE_LATENCY_SCALE=1"), "-w", commandWorkload, "-o", dir, "--trials", "3")
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "engine-latency.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || len(r.ValidTrials()) != 3 || r.Workload.Hash == "" || r.Fingerprint == nil {
		t.Fatalf("complete=%v valid=%d hash=%q fingerprint=%v", r.Complete, len(r.ValidTrials()), r.Workload.Hash, r.Fingerprint)
	}
	if p50 := r.Trials[0].Values["offline_latency_ms.p50"]; p50 < 1150 || p50 > 1250 {
		t.Errorf("trial 0 offline_latency_ms.p50 = %v, want about 1200", p50)
	}
	if _, err := os.Stat(filepath.Join(dir, "commands", "engine-latency", "trial-02.json")); err != nil {
		t.Errorf("command output of trial 2: %v", err)
	}
}

// TestGateCommandWorkload: a kind: command workload gates like a serving
// one, with no server configured: the same engine passes against its own
// baseline, and one twice as slow is a regression naming the offline
// latency.
func TestGateCommandWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The benchmark command inherits the command's environment
	// (command.Spec.BaseEnv): FAKE_LATENCY_SCALE is the engine's speed.
	gate := func(out, scale string) (ExitCode, string, string) {
		args := []string{"gate", "--workloads", commandWorkload, "--profile", "cmd",
			"--baselines", filepath.Join(dir, "baselines"), "-o", filepath.Join(dir, out)}
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: testEnviron("FAKE_LATENCY_SCALE=" + scale)})
		return code, stdout.String(), stderr.String()
	}
	if code, out, errs := gate("base", "1"); code != ExitInvalid || !strings.Contains(out, "missing-baseline") {
		t.Fatalf("baseline run: exit %d, want 2 (missing baseline)\n%s\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "base", "results", "engine-latency.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := result.Write(filepath.Join(dir, "baselines", "cmd", "engine-latency.json"), r); err != nil {
		t.Fatal(err)
	}

	if code, out, errs := gate("same", "1"); code != ExitPass {
		t.Fatalf("unchanged engine: exit %d, want 0\n%s\n%s", code, out, errs)
	}
	code, out, errs := gate("slow", "2")
	first, _, _ := strings.Cut(out, "\n")
	if code != ExitRegression || !strings.Contains(first, "engine-latency") {
		t.Fatalf("twice as slow an engine: exit %d, first line %q; want 1 naming the workload\n%s\n%s", code, first, out, errs)
	}
	if !strings.Contains(out, "offline_latency") && !strings.Contains(out, "latency") {
		t.Errorf("the report does not name the offline latency:\n%s", out)
	}
}

// TestGateMixedNeedsServer: a serving workload next to a command one still
// needs a server.
func TestGateMixedNeedsServer(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	args := []string{"gate", "--workloads", commandWorkload, "--workloads", "testdata/gate/decode-a.yaml", "-o", t.TempDir()}
	if code := Main(context.Background(), args, Streams{Out: &out, Err: &errb}); code != ExitInvalid || !strings.Contains(errb.String(), "no server") {
		t.Errorf("exit %d, stderr %q; want 2 asking for a server", code, errb.String())
	}
}
