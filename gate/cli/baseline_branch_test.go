package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitTestEnv gives git a committer and keeps the user's configuration
// out of the tests.
var gitTestEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t",
	"GIT_COMMITTER_EMAIL=t@localhost", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitTestEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitCLI runs perfgate with args in an environment with gitTestEnv (its
// git commits have a committer) and the variables kv.
func gitCLI(kv []string, args ...string) (ExitCode, string, string) {
	return mainIn(context.Background(), testEnviron(append(append([]string(nil), gitTestEnv...), kv...)...), args...)
}

// gitOrigin makes a bare origin with a main branch and n clones of it.
func gitOrigin(t *testing.T, n int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	bare := filepath.Join(dir, "origin.git")
	gitT(t, dir, "init", "--quiet", "--bare", "-b", "main", bare)
	seed := filepath.Join(dir, "seed")
	gitT(t, dir, "clone", "--quiet", bare, seed)
	if err := os.WriteFile(filepath.Join(seed, "perfgate.yaml"), []byte("profile: p\nbaselines: git:perfgate-baselines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, seed, "add", ".")
	gitT(t, seed, "commit", "--quiet", "-m", "main")
	gitT(t, seed, "push", "--quiet", "origin", "HEAD:main")
	var clones []string
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, "clone"+string(rune('a'+i)))
		gitT(t, dir, "clone", "--quiet", "--depth=1", "file://"+bare, c)
		clones = append(clones, c)
	}
	return bare, clones
}

// TestBaselinesBranchPromoteThenCompare: the nightly's clone promotes to
// perfgate-baselines (main untouched); a pull request's checkout that
// edits an in-tree copy of the baseline still compares against the
// branch, and reading leaves the branch as it was.
func TestBaselinesBranchPromoteThenCompare(t *testing.T) {
	// Not parallel: t.Chdir, the commands work on the checkout they run in.
	bare, clones := gitOrigin(t, 2)
	results := filepath.Join(t.TempDir(), "results")
	mainTip := gitT(t, bare, "rev-parse", "main")

	t.Chdir(clones[0])
	for night := 1; night <= 2; night++ {
		r := compareTestResult("a", 5, 1)
		r.StartedAt = r.StartedAt.Add(time.Duration(night) * 24 * time.Hour)
		writeResult(t, filepath.Join(results, "a.json"), r)
		code, out, errs := gitCLI(nil, "baseline", "update", "--from", results, "--profile", "p", "--branch", "perfgate-baselines", "--git-sha", "abc123")
		if code != ExitPass || !strings.Contains(out, "wrote perfgate-baselines:baselines/p/a.json") || !strings.Contains(errs, "committed") {
			t.Fatalf("night %d: exit %d\n%s%s", night, code, out, errs)
		}
	}
	if tip := gitT(t, bare, "rev-parse", "main"); tip != mainTip {
		t.Errorf("main moved from %s to %s", mainTip, tip)
	}
	if _, err := os.Stat(filepath.Join(clones[0], "baselines")); err == nil {
		t.Error("promoting to the branch wrote baselines/ into the checkout")
	}
	hist := gitT(t, bare, "show", "perfgate-baselines:baselines/p/history/a.jsonl")
	if n := len(strings.Split(hist, "\n")); n != 2 {
		t.Errorf("%d history lines after two nights, want 2", n)
	}

	// The pull request: an in-tree baseline 30 % slower would hide a
	// regression; the branch's is what counts.
	t.Chdir(clones[1])
	slow := compareTestResult("a", 5, 1.3)
	writeResult(t, filepath.Join(clones[1], "baselines", "p", "a.json"), slow)
	branchTip := gitT(t, bare, "rev-parse", "perfgate-baselines")
	cand := filepath.Join(t.TempDir(), "cand")
	writeResult(t, filepath.Join(cand, "a.json"), compareTestResult("a", 5, 1.3))
	code, out, errs := gitCLI(nil, "compare", "--baseline", "git:perfgate-baselines:baselines/p", "--candidate", cand, "--assumed-between", "0")
	if code != ExitRegression || !strings.Contains(errs, "baselines from branch perfgate-baselines") {
		t.Errorf("compare against the branch: exit %d, want %d\n%s%s", code, ExitRegression, out, errs)
	}
	// As in a pull request's workflow: the merge base is main's.
	gitT(t, clones[1], "fetch", "--quiet", "--unshallow", "origin", "main")
	code, out, errs = gitCLI([]string{"GITHUB_BASE_REF=main"}, "gate", "--config", "perfgate.yaml", "--from", cand, "--output", filepath.Join(t.TempDir(), "out"))
	if code != ExitRegression || !strings.Contains(errs, "baselines from branch perfgate-baselines") {
		t.Errorf("gate --from against the branch: exit %d, want %d\n%s%s", code, ExitRegression, out, errs)
	}
	code, out, errs = gitCLI(nil, "history", "--config", "perfgate.yaml", "--format", "json")
	if code != ExitPass || !strings.Contains(out, "abc123") {
		t.Errorf("history from the branch: exit %d\n%s%s", code, out, errs)
	}
	if tip := gitT(t, bare, "rev-parse", "perfgate-baselines"); tip != branchTip {
		t.Errorf("reading moved the branch from %s to %s", branchTip, tip)
	}
}

func TestBaselinesBranchMissing(t *testing.T) {
	// Not parallel: t.Chdir, the commands work on the checkout they run in.
	_, clones := gitOrigin(t, 1)
	t.Chdir(clones[0])
	cand := filepath.Join(t.TempDir(), "cand")
	writeResult(t, filepath.Join(cand, "a.json"), compareTestResult("a", 5, 1))
	code, _, errs := gitCLI(nil, "compare", "--baseline", "git:perfgate-baselines:baselines/p", "--candidate", cand)
	if code != ExitInvalid || !strings.Contains(errs, "exists neither on origin nor locally") || !strings.Contains(errs, "--branch perfgate-baselines") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	// The first night's gate still judges (every cell missing its
	// baseline, failing closed) and writes the results that create it.
	out := filepath.Join(t.TempDir(), "out")
	code, _, errs = gitCLI(nil, "gate", "--config", "perfgate.yaml", "--from", cand, "--output", out)
	if code != ExitInvalid || !strings.Contains(errs, "exists neither on origin nor locally yet") || !strings.Contains(errs, "could not be compared") {
		t.Errorf("gate before the branch exists: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "results")); err != nil {
		t.Errorf("the first night's gate wrote no results: %v", err)
	}
}
