package cli

import (
	"context"
	"github.com/perfgate/perfgate/gate/session"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunInterruptedWhileNvidiaSmiHangs is issue 20 item 6 from the
// command's side: an nvidia-smi that hangs, with a child holding its
// stdout, made a SIGINT take 160 s to end a run (the Action SIGKILLs 10 s
// after SIGINT). An interrupt (the context Main is given, cancelled as
// the signal handler does) ends the run within seconds, long before the
// fake's 60 s sleeps.
func TestRunInterruptedWhileNvidiaSmiHangs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hang := "#!/bin/sh\nsleep 60 &\nsleep 60\n"
	for _, name := range []string{"nvidia-smi", "dmesg"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(hang), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := testEnviron("PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), session.HealthEnv+"=")
	ts := runSim(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(2*time.Second, cancel)
	start := time.Now()
	code, out, errs := runMainIn(ctx, env, append(runLax, "-w", "testdata/gate/decode-a.yaml", "--url", ts.URL, "-o", t.TempDir(), "--trials", "3")...)
	took := time.Since(start)
	if took > 30*time.Second {
		t.Errorf("the interrupted run took %s to end\nstdout:\n%s\nstderr:\n%s", took, out, errs)
	}
	if code == ExitPass {
		t.Errorf("an interrupted run exited 0")
	}
	t.Logf("exit %v after %s", code, took.Round(time.Millisecond))
}
