package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

func mergeTestResult(cell, hash string, vals ...float64) *result.Result {
	r := &result.Result{
		Schema:    result.Schema,
		Tool:      result.Tool{Name: "perfgate", Version: "test"},
		Workload:  result.Workload{Name: cell, Cell: cell, Hash: hash},
		Server:    result.Server{URL: "http://127.0.0.1:1", Model: "m"},
		StartedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Complete:  true,
	}
	for i, v := range vals {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: map[string]float64{"tpot_ms.median": v}})
	}
	return r
}

func mergeRunCLI(args ...string) (ExitCode, string, string) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"merge"}, args...), Streams{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestMergeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s1, s2, out := filepath.Join(dir, "s1"), filepath.Join(dir, "s2"), filepath.Join(dir, "out")
	if err := result.Write(filepath.Join(s1, "a.json"), mergeTestResult("a", "h1", 1, 2)); err != nil {
		t.Fatal(err)
	}
	if err := result.Write(filepath.Join(s2, "a.json"), mergeTestResult("a", "h1", 3)); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := mergeRunCLI(s1, s2, "-o", out)
	if code != ExitPass {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "a: 3 trials from 2 file(s)") {
		t.Errorf("stdout %q", stdout)
	}
	r, err := result.Read(filepath.Join(out, "a.json"))
	if err != nil || len(r.Trials) != 3 {
		t.Fatalf("merged: %v, %v", r, err)
	}

	// Different hashes: exit 2 naming both files.
	if err := result.Write(filepath.Join(s2, "a.json"), mergeTestResult("a", "h2", 3)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = mergeRunCLI(s1, s2, "-o", out)
	if code != ExitInvalid || !strings.Contains(stderr, filepath.Join(s1, "a.json")) || !strings.Contains(stderr, filepath.Join(s2, "a.json")) {
		t.Errorf("hash mismatch: exit %d, stderr %q", code, stderr)
	}
	// Missing -o.
	if code, _, stderr = mergeRunCLI(s1); code != ExitInvalid || !strings.Contains(stderr, "--out") {
		t.Errorf("missing -o: exit %d, stderr %q", code, stderr)
	}
}
