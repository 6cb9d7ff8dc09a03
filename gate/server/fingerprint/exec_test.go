//go:build unix

package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeTool puts an executable script called name first on PATH.
func fakeTool(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The bounds below are generous against the fakes' 60 s sleeps: a loaded
// machine takes longer to start a shell, never 60 s longer.
const promptly = 20 * time.Second

// TestExecChildHoldsStdout is issue 20 item 6: a tool that exits but
// leaves a child holding its stdout made every call wait for the child
// (a 1-trial run took 240 s). Exec returns what the tool printed.
func TestExecChildHoldsStdout(t *testing.T) {
	fakeTool(t, "nvidia-smi", "echo 'GPU 0'\nsleep 60 &\nexit 0\n")
	start := time.Now()
	out, err := Exec(context.Background(), "nvidia-smi")
	if took := time.Since(start); took > promptly {
		t.Errorf("Exec took %s", took)
	}
	if err != nil || string(out) != "GPU 0\n" {
		t.Errorf("Exec = %q, %v", out, err)
	}
}

// TestExecHangBounded: a tool that hangs, with a child holding stdout,
// is killed with its group at the time-out; the error says it hung.
func TestExecHangBounded(t *testing.T) {
	defer func(d time.Duration) { execTimeout = d }(execTimeout)
	execTimeout = time.Second
	fakeTool(t, "nvidia-smi", "sleep 60 &\nsleep 60\n")
	start := time.Now()
	_, err := Exec(context.Background(), "nvidia-smi")
	if took := time.Since(start); took > promptly {
		t.Errorf("Exec took %s", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("err = %v", err)
	}
}

// TestExecCancelled: an interrupt (ctx cancelled) stops a hanging tool at
// once, not after its time-out: the Action SIGKILLs 10 s after SIGINT.
func TestExecCancelled(t *testing.T) {
	fakeTool(t, "nvidia-smi", "sleep 60 &\nsleep 60\n")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Exec(ctx, "nvidia-smi")
	if took := time.Since(start); took > promptly || took >= ExecTimeout {
		t.Errorf("Exec took %s after the cancel", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestExecOutputBounded: 200 MB of output used 950 MB of memory; Exec
// stops the tool at MaxOutput and says so.
func TestExecOutputBounded(t *testing.T) {
	fakeTool(t, "nvidia-smi", "exec head -c 209715200 /dev/zero\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Exec(context.Background(), "nvidia-smi")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooMuchOutput) {
		t.Errorf("err = %v", err)
	}
	// Reading all 200 MB allocates about 512 MiB (the buffer doubling to
	// 256 MiB); the bound's own slice, doubling up to 32 MiB, at most
	// about 64 MiB, -race or not (bytes.Buffer reached 192 MiB under -race).
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB reading a 200 MB tool", alloc>>20)
	if alloc > 3*MaxOutput {
		t.Errorf("Exec allocated %d MiB for a %d MiB bound", alloc>>20, MaxOutput>>20)
	}
}

// TestClipWords: a cut stderr message never ends inside a word, which
// might be the start of a secret.
func TestClipWords(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"failed: key sk-abcdefghijkl rejected", 20, "failed: key …"},
		{"failed: key sk-abcdefghijkl", 27, "failed: key sk-abcdefghijkl"},
		{"averyveryverylongword", 5, "…"},
	}
	for _, tt := range tests {
		if got := clipWords(tt.in, tt.n); got != tt.want {
			t.Errorf("clipWords(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestCollectAsksHungNvidiaSmiOnce: Collect ran nvidia-smi twice (the GPU
// query, then the banner for the CUDA version), 15 s each when it hangs.
func TestCollectAsksHungNvidiaSmiOnce(t *testing.T) {
	calls := 0
	run := func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name != "nvidia-smi" {
			return nil, os.ErrNotExist
		}
		calls++
		return nil, fmt.Errorf("%s: no answer within 15s: %w", name, context.DeadlineExceeded)
	}
	_, notes := Collect(context.Background(), Options{Run: run, ReadFile: func(string) ([]byte, error) { return nil, os.ErrNotExist }})
	if calls != 1 || len(notes) == 0 || !strings.Contains(notes[0], "no answer within 15s") {
		t.Errorf("%d calls, notes %q; want one call, noted", calls, notes)
	}
}
