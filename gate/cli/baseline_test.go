package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/result"
)

func TestBaselineUpdateThenCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from, store := filepath.Join(dir, "out", "results"), filepath.Join(dir, "baselines")
	writeResult(t, filepath.Join(from, "a.json"), compareTestResult("a", 5, 1))
	writeResult(t, filepath.Join(from, "b.json"), compareTestResult("b", 4, 1))
	code, out, errs := runCLI("baseline", "update", "--from", filepath.Join(dir, "out"), "--profile", "sim-fast",
		"--baselines", store, "--git-sha", "abc123", "--git-ref", "refs/heads/main")
	if code != ExitPass || strings.Count(out, "wrote ") != 2 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got, err := result.ReadDir(baseline.Store{Root: store}.Dir("sim-fast"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Provenance.GitSHA != "abc123" || got[0].Provenance.GitRef != "refs/heads/main" || !strings.Contains(got[0].Provenance.How, "baseline update") {
		t.Errorf("provenance %+v", got[0].Provenance)
	}
	if _, err := os.Stat(filepath.Join(store, "sim-fast", "history", "a.jsonl")); err != nil {
		t.Error(err)
	}
	// The promoted baselines compare cleanly with the same run.
	code, out, errs = runCLI("compare", "--baseline", filepath.Join(store, "sim-fast"), "--candidate", from, "--assumed-between", "0")
	if code != ExitPass {
		t.Errorf("compare with promoted baseline: exit %d\n%s%s", code, out, errs)
	}
}

func TestBaselineUpdateRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	incomplete := compareTestResult("a", 5, 1)
	incomplete.Complete, incomplete.IncompleteReason = false, "server died"
	invalid := compareTestResult("b", 8, 1)
	for i := 0; i < 3; i++ {
		invalid.Trials[i].Valid, invalid.Trials[i].InvalidReason = false, "client saturated"
	}
	cases := []struct {
		name string
		file string
		args []string
		want string
	}{
		{"incomplete", writeResult(t, filepath.Join(dir, "inc.json"), incomplete), nil, "inc.json: workload \"a\": the run is incomplete (server died)"},
		{"too many invalid", writeResult(t, filepath.Join(dir, "inv.json"), invalid), nil, "inv.json: workload \"b\": 3 of 8 trials are invalid"},
		{"too few trials", writeResult(t, filepath.Join(dir, "few.json"), compareTestResult("c", 3, 1)), []string{"--min-trials", "5"}, "3 valid trial(s), a baseline needs at least 5"},
		{"bad profile", writeResult(t, filepath.Join(dir, "ok.json"), compareTestResult("d", 5, 1)), []string{"--profile", "../x"}, "--profile"},
		{"missing --from", "", nil, "--from is required"},
	}
	for _, tc := range cases {
		store := filepath.Join(dir, "store-"+strings.ReplaceAll(tc.name, " ", "-"))
		args := []string{"baseline", "update", "--baselines", store}
		if tc.file != "" {
			args = append(args, "--from", tc.file)
		}
		if !containsFlag(tc.args, "--profile") {
			args = append(args, "--profile", "p")
		}
		code, _, errs := runCLI(append(args, tc.args...)...)
		if code != ExitInvalid || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", tc.name, code, errs, tc.want)
		}
		if _, err := os.Stat(store); err == nil {
			t.Errorf("%s: refused update created %s", tc.name, store)
		}
	}
}

func containsFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}
