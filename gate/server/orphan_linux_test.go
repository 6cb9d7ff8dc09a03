package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerDiesWithPerfgate: a SIGKILL of perfgate (or a second Ctrl-C,
// which kills it the same way) takes the --server-cmd server with it,
// though the server runs in its own process group and nobody runs Stop.
// The real perfgate binary launches a never-ready server (the test binary
// in slow=1h mode, which writes its pid to a file).
func TestServerDiesWithPerfgate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "server.pid")
	wl := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wl, []byte("name: w\napi: completions\ndataset: {kind: random, input_tokens: 8, output_tokens: 4, seed: 1}\n"+
		"load: {requests: 2, concurrency: 1, rate: inf}\nwarmups: 0\ntrials: {min: 1, max: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pg := exec.Command(perfgateBin, "run", "-w", wl, "-o", filepath.Join(dir, "out"),
		"--server-cmd", "'"+os.Args[0]+"' -test.run=^$", "--ready-timeout", "1m",
		"--server-env", helperEnv+"=slow=1h", "--server-env", "PERFGATE_TEST_PIDFILE="+pidFile)
	pg.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	pg.Stderr = &stderr
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	defer pg.Process.Kill()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never started\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer syscall.Kill(pid, syscall.SIGKILL) // only if the test fails
	time.Sleep(200 * time.Millisecond)       // perfgate is now probing /health
	if !alive(pid) {
		t.Fatalf("server %d not running before perfgate was killed\n%s", pid, stderr.String())
	}
	if err := pg.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("server %d still running 5 s after perfgate was killed (an orphan holding the GPU and port)", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
