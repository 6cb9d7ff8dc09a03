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

// TestGateReportsServerCrash: a launched server that crashes under `gate`
// is reported as what it is, as `run` reports it: stderr and the PR
// comment say the server exited (with its status) and show the end of its
// log; stderr shows the log once; the result says why it is incomplete.
func TestGateReportsServerCrash(t *testing.T) {
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
	const crash = "simulated engine crash"
	errs := stderr.String()
	if !strings.Contains(errs, "the server exited with status 1 during the run") || strings.Contains(errs, "run interrupted") {
		t.Errorf("stderr does not say the server exited:\n%s", errs)
	}
	if n := strings.Count(errs, crash); n != 1 {
		t.Errorf("stderr shows the log tail %d times, want once:\n%s", n, errs)
	}
	if strings.Contains(stdout.String(), crash) {
		t.Errorf("the terminal report repeats the log tail:\n%s", stdout.String())
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Run failed: the server exited with status 1 during the run", "Last ", "server's log", crash} {
		if !strings.Contains(string(comment), want) {
			t.Errorf("comment.md lacks %q:\n%s", want, comment)
		}
	}
	r, err := result.Read(filepath.Join(out, "results", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || !strings.Contains(r.IncompleteReason, "exited with status 1") || !strings.Contains(r.Server.LogTail, crash) {
		t.Errorf("result: complete %v, reason %q, tail %q", r.Complete, r.IncompleteReason, r.Server.LogTail)
	}
}

// TestServerPrintsNoAddress: a --server-cmd server that prints no address,
// without --url, fails after the ready timeout saying that nothing was
// probed and what to set, with its log once (not twice).
func TestServerPrintsNoAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("launches a server process")
	}
	t.Parallel()
	env := testEnviron("PERFGATE_SERVER_READY_TIMEOUT=1s")
	for _, args := range [][]string{
		{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--baselines", filepath.Join(t.TempDir(), "none")},
		{"run", "-w", "testdata/gate/decode-a.yaml", "--ready-timeout", "1s"},
	} {
		out := t.TempDir()
		args = append(args, "-o", out, "--server-cmd", "sh -c 'echo booting the engine; sleep 30'")
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: env})
		errs := stderr.String()
		if code != ExitRunFailed {
			t.Fatalf("%s: exit %d, want 3\n%s", args[0], code, errs)
		}
		for _, want := range []string{"printed no address", "no address was probed", "set server.url (--url)"} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], want, errs)
			}
		}
		if n := strings.Count(errs, "\nbooting the engine\n"); n != 1 {
			t.Errorf("%s: the log tail appears %d times, want once:\n%s", args[0], n, errs)
		}
		if strings.Contains(errs, "during the run") || strings.Contains(errs, "server  not ready") {
			t.Errorf("%s: misleading message:\n%s", args[0], errs)
		}
		if args[0] == "gate" {
			// The PR comment says it too, with the server's log.
			comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
			if err != nil || !strings.Contains(string(comment), "printed no address") || !strings.Contains(string(comment), "booting the engine") {
				t.Errorf("comment.md (%v):\n%s", err, comment)
			}
		}
	}
}
