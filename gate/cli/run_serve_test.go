package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// runServerCmd is this test binary as a server command (see TestMain);
// the environment that makes it serve comes through --server-env.
func runServerCmd(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("launches a server process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("'%s' -test.run=^$", exe)
}

// TestRunLaunchesServer: run --server-cmd starts the server with
// --server-env, finds its URL in its output, writes its output to
// --server-log, fills each trial's server figures from /metrics and records
// the command line in the fingerprint, then stops the server.
func TestRunLaunchesServer(t *testing.T) {
	t.Parallel()
	cmd := runServerCmd(t)
	dir := t.TempDir()
	logf := filepath.Join(dir, "server.log")
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-o", dir, "--trials", "2",
		"--server-cmd", cmd, "--server-env", "CLI_TEST_SERVE_SIM=1", "--server-log", logf, "--ready-timeout", "30s")...)
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || len(r.ValidTrials()) != 2 {
		t.Fatalf("complete=%v, %d valid trials", r.Complete, len(r.ValidTrials()))
	}
	if !strings.Contains(r.Fingerprint["server.argv"], "-test.run") {
		t.Errorf("fingerprint server.argv %q, want the launched command", r.Fingerprint["server.argv"])
	}
	for _, tr := range r.Trials {
		if got := tr.Server["vllm:generation_tokens_total.delta"]; got != 16*8 {
			t.Errorf("trial %d: generation tokens delta %v, want 128", tr.Index, got)
		}
	}
	if data, err := os.ReadFile(logf); err != nil || !strings.Contains(string(data), "Uvicorn running") {
		t.Errorf("--server-log: %v: %q", err, data)
	}
}

// TestRunServerDiesMidRun: a server that crashes during the second trial
// fails the run (exit 3); the partial result is written incomplete with
// the end of the server's log, which stderr shows too.
func TestRunServerDiesMidRun(t *testing.T) {
	t.Parallel()
	cmd := runServerCmd(t)
	dir := t.TempDir()
	// decode-a: 1 warmup + 16 requests per trial; request 25 is in trial 2.
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-o", dir, "--trials", "3", "--grace", "2s",
		"--server-cmd", cmd, "--server-env", "CLI_TEST_SERVE_SIM=1", "--server-env", "CLI_TEST_SIM_DIE_AFTER=25")...)
	if code != ExitRunFailed || !strings.Contains(errs, "simulated engine crash") {
		t.Fatalf("exit %v, want 3 with the server's log\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || !strings.Contains(r.Server.LogTail, "simulated engine crash") || !strings.Contains(r.IncompleteReason, "server") {
		t.Errorf("complete=%v reason=%q log tail=%q; want incomplete with the crash in the tail", r.Complete, r.IncompleteReason, r.Server.LogTail)
	}
	if len(r.Trials) == 0 || len(r.Trials) > 2 {
		t.Errorf("%d trials kept, want the finished first and the cut-short second", len(r.Trials))
	}
}

// TestRunServerCmdBadInput: flags are checked before anything starts.
func TestRunServerCmdBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ args []string }{
		{[]string{"--server-cmd", "vllm serve m > log"}},
		{[]string{"--server-cmd", "sh -c 'exit 0'", "--server-env", "NOEQUALS"}},
	} {
		args := append([]string{"-w", "testdata/gate/decode-a.yaml", "-o", t.TempDir()}, tt.args...)
		code, _, errs := runMain(context.Background(), args...)
		if code != ExitInvalid || !strings.Contains(errs, "server") {
			t.Errorf("%v: exit %v, stderr %q; want 2 naming the server flag", tt.args, code, errs)
		}
	}
}

// TestRunGPUs: --gpus fills server.gpus and the per-GPU throughputs of a
// workload without gpus; a workload's own gpus wins.
func TestRunGPUs(t *testing.T) {
	t.Parallel()
	ts := runSim(t)
	src, err := os.ReadFile("testdata/gate/decode-a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(t.TempDir(), "own.yaml")
	data := strings.Replace(string(src), "name: decode-a", "name: decode-own", 1) + "gpus: 8\n"
	if err := os.WriteFile(own, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := runMain(context.Background(), append(runLax,
		"-w", "testdata/gate/decode-a.yaml", "-w", own, "--url", ts.URL, "-o", dir, "--trials", "1", "--gpus", "2")...)
	if code != ExitPass {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for cell, gpus := range map[string]int{"decode-a": 2, "decode-own": 8} {
		r, err := result.Read(filepath.Join(dir, cell+".json"))
		if err != nil {
			t.Fatal(err)
		}
		tr := r.Trials[0]
		if want := tr.Values["total_token_throughput"] / float64(gpus); r.Server.GPUs != gpus || want <= 0 || tr.Values["total_token_throughput_per_gpu"] != want {
			t.Errorf("%s: gpus %d (want %d), total_token_throughput_per_gpu %v (want %v)", cell, r.Server.GPUs, gpus, tr.Values["total_token_throughput_per_gpu"], want)
		}
	}
	if code, _, errs := runMain(context.Background(), "-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", dir, "--gpus", "-1"); code != ExitInvalid || !strings.Contains(errs, "--gpus") {
		t.Errorf("--gpus -1: exit %v, stderr %q", code, errs)
	}
}

// TestGateServerDiesMidRun: the gate's launched server crashing during a
// trial is a failed run (exit 3) whose result keeps the log tail.
func TestGateServerDiesMidRun(t *testing.T) {
	t.Parallel()
	cmd := runServerCmd(t)
	out := t.TempDir()
	args := []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--trials", "3", "-o", out,
		"--baselines", filepath.Join(out, "none"), "--server-cmd", cmd}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: testEnviron("CLI_TEST_SERVE_SIM=1", "CLI_TEST_SIM_DIE_AFTER=25")})
	if code != ExitRunFailed {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || !strings.Contains(r.Server.LogTail, "simulated engine crash") {
		t.Errorf("complete=%v log tail %q; want incomplete with the crash", r.Complete, r.Server.LogTail)
	}
}
