package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// TestRunLaunchesServerWithoutHealth: a launched server without /health
// (ollama answers 404 there) is ready as soon as /v1/models lists its
// model, in seconds, not after the ten-minute ready timeout; its engine is
// detected and recorded in the result and the fingerprint.
func TestRunLaunchesServerWithoutHealth(t *testing.T) {
	t.Parallel()
	serverCmd := runServerCmd(t) // skips under -short
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // bounds a broken run
	defer cancel()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	// The dispatch-lag limit is lax (runLax): one trial whose client a
	// loaded machine wakes late is invalid, and run exits 3 when a cell
	// has no valid trial; readiness and the engine are what is tested.
	code := Main(ctx, append([]string{"run", "-w", "testdata/gate/decode-a.yaml", "--trials", "1", "-o", out, "--server-cmd", serverCmd}, runLax...),
		Streams{Out: &stdout, Err: &stderr, Environ: testEnviron("CLI_TEST_SERVE_SIM=1", "CLI_TEST_SIM_LIKE=ollama")})
	took := time.Since(start)
	if code != ExitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if took > 30*time.Second {
		t.Errorf("took %v: readiness waited on the missing /health", took)
	}
	r, err := result.Read(filepath.Join(out, "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Server.Engine != "ollama" || r.Fingerprint[result.KeyServerEngine] != "ollama" || r.Fingerprint[result.KeyServerVersion] != "0.17.4" {
		t.Errorf("engine %q, fingerprint %v", r.Server.Engine, r.Fingerprint)
	}
	if !strings.Contains(stderr.String(), "engine: ollama") {
		t.Errorf("stderr does not name the engine:\n%s", stderr.String())
	}
}

// TestGateNeverReady: a launched server that never becomes ready fails
// the gate closed (exit 3) with its output directory written: results
// marked incomplete and a report and comment saying the server never
// became ready. The same holds when the wait is interrupted (a cancelled
// CI job), which used to leave no output at all.
func TestGateNeverReady(t *testing.T) {
	t.Parallel()
	serverCmd := runServerCmd(t) // skips under -short
	for _, tc := range []struct {
		name      string
		timeout   string
		interrupt time.Duration
		want      string
	}{
		{"timeout", "1500ms", 0, "did not become ready"},
		{"interrupted", "1m", 1500 * time.Millisecond, "interrupted while waiting for the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := testEnviron("CLI_TEST_SERVE_SIM=1", "CLI_TEST_SIM_LIKE=never-ready", "PERFGATE_SERVER_READY_TIMEOUT="+tc.timeout)
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if tc.interrupt > 0 {
				time.AfterFunc(tc.interrupt, cancel)
			}
			var stdout, stderr bytes.Buffer
			code := Main(ctx, []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "-o", out,
				"--baselines", filepath.Join(out, "none"), "--server-cmd", serverCmd}, Streams{Out: &stdout, Err: &stderr, Environ: env})
			if code != ExitRunFailed {
				t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
			if err != nil {
				t.Fatalf("no result written: %v\nstderr:\n%s", err, stderr.String())
			}
			if r.Complete || !strings.Contains(r.IncompleteReason, tc.want) {
				t.Errorf("result complete=%v reason %q, want it to say %q", r.Complete, r.IncompleteReason, tc.want)
			}
			for _, f := range []string{"report.md", "comment.md"} {
				b, err := os.ReadFile(filepath.Join(out, f))
				if err != nil || !strings.Contains(string(b), tc.want) {
					t.Errorf("%s: %v; want it to say %q:\n%s", f, err, tc.want, b)
				}
			}
		})
	}
}

// TestEngineFlagChecked: an unknown --engine is a usage error naming the
// flag and the engines there are, before anything is launched or probed.
func TestEngineFlagChecked(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"run", "-w", "testdata/gate/decode-a.yaml", "-o", t.TempDir(), "--url", "http://127.0.0.1:1", "--engine", "trtllm"},
		Streams{Out: &stdout, Err: &stderr})
	if code != ExitInvalid || !strings.Contains(stderr.String(), `run: --engine: unknown engine "trtllm": want auto, llamacpp, ollama, openai, sglang, tgi, vllm`) {
		t.Errorf("run: exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	code = Main(context.Background(), []string{"gate", "--workloads", "testdata/gate/decode-a.yaml", "-o", t.TempDir(), "--url", "http://127.0.0.1:1", "--engine", "trtllm"},
		Streams{Out: &stdout, Err: &stderr})
	if code != ExitInvalid || !strings.Contains(stderr.String(), `server.engine: unknown engine "trtllm"`) {
		t.Errorf("gate: exit %d\n%s", code, stderr.String())
	}
}
