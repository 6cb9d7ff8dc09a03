package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// prRepos is a throw-away origin (a bare repository reached by file://,
// never the network) whose main holds a promoted baseline, and a branch
// "pr" that re-records it 10 % slower under a forged --git-ref
// refs/heads/main: the attack of issue #20 item 1.
type prRepos struct {
	t            *testing.T
	h            *historyGate
	origin, work string
	mainSHA      string
}

func (r *prRepos) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newPRRepos(t *testing.T) *prRepos {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	h := newHistoryGate(t, "")
	r := &prRepos{t: t, h: h, origin: filepath.Join(h.dir, "origin.git"), work: filepath.Join(h.dir, "work")}
	r.git(h.dir, "init", "-q", "--bare", r.origin)
	// GitHub serves any reachable commit by sha; so does this origin.
	r.git(r.origin, "config", "uploadpack.allowReachableSHA1InWant", "true")
	r.git(h.dir, "init", "-q", r.work)
	r.git(r.work, "remote", "add", "origin", "file://"+r.origin)
	h.store = filepath.Join(r.work, "baselines")
	h.promote(sha('a'), 1)
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "baseline")
	for i := 0; i < 3; i++ { // some history on main
		if err := os.WriteFile(filepath.Join(r.work, "README"), []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		r.git(r.work, "add", ".")
		r.git(r.work, "commit", "-qm", "main work")
	}
	r.mainSHA = r.git(r.work, "rev-parse", "HEAD")
	r.git(r.work, "push", "-q", "origin", "main")
	r.git(r.work, "checkout", "-q", "-b", "pr")
	h.promote(sha('b'), 1.10) // forged: --git-ref refs/heads/main
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "PR re-records its baseline")
	r.git(r.work, "push", "-q", "origin", "pr")
	return r
}

// clone makes a depth-1 clone of the PR branch, as actions/checkout does by
// default, and points the gate at its baselines.
func (r *prRepos) clone(name string) string {
	r.t.Helper()
	dir := filepath.Join(r.h.dir, name)
	r.git(r.h.dir, "clone", "-q", "--depth=1", "--branch", "pr", "--no-tags", "file://"+r.origin, dir)
	r.h.store = filepath.Join(dir, "baselines")
	return dir
}

// env makes vars the CI variables of the gate's environment (the
// process's, without GitHub's, carries PATH and HOME for git).
func (r *prRepos) env(vars map[string]string) {
	r.h.environ = func() []string {
		env := os.Environ()
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		return env
	}
}

// A depth-1 clone of a pull request that re-records its own baseline 10 %
// slower, judged against a 10 % slower candidate: every way of naming the
// trusted side fetches what it needs and refuses the change (exit 2), or
// fails closed naming what to fetch; none passes.
func TestGateShallowCloneRefusesARerecordedBaseline(t *testing.T) {
	r := newPRRepos(t)

	t.Run("GITHUB_BASE_REF fetches and deepens", func(t *testing.T) {
		r.clone("c1")
		r.env(map[string]string{"GITHUB_BASE_REF": "main"})
		code, _, errs := r.h.gate(1.10)
		if code != ExitInvalid || !strings.Contains(errs, "re-records baselines") || !strings.Contains(errs, "a.json") {
			t.Fatalf("exit %d, want 2 refusing the re-recorded baseline\n%s", code, errs)
		}
	})
	t.Run("--merge-base sha fetches the commit", func(t *testing.T) {
		r.clone("c2")
		r.env(nil)
		code, _, errs := r.h.gate(1.10, "--merge-base", r.mainSHA)
		if code != ExitInvalid || !strings.Contains(errs, "re-records baselines") {
			t.Fatalf("exit %d, want 2\n%s", code, errs)
		}
	})
	t.Run("no flag: the clone's default branch", func(t *testing.T) {
		r.clone("c3")
		r.env(nil)
		code, _, errs := r.h.gate(1.10)
		if code != ExitInvalid || !strings.Contains(errs, "re-records baselines") {
			t.Fatalf("exit %d, want 2\n%s", code, errs)
		}
	})
	t.Run("base branch absent and no remote: fail closed", func(t *testing.T) {
		dir := r.clone("c4")
		r.git(dir, "remote", "remove", "origin")
		r.env(map[string]string{"GITHUB_BASE_REF": "main"})
		code, _, errs := r.h.gate(1.10)
		if code != ExitInvalid || !strings.Contains(errs, "fetch-depth: 0") || !strings.Contains(errs, "origin/main") {
			t.Fatalf("exit %d, want 2 naming what to fetch\n%s", code, errs)
		}
	})
	t.Run("merge base not fetchable: fail closed", func(t *testing.T) {
		dir := r.clone("c5")
		r.git(dir, "remote", "remove", "origin")
		r.env(nil)
		code, _, errs := r.h.gate(1.10, "--merge-base", r.mainSHA)
		if code != ExitInvalid || !strings.Contains(errs, "fetch it first") || !strings.Contains(errs, r.mainSHA) {
			t.Fatalf("exit %d, want 2 naming the commit to fetch\n%s", code, errs)
		}
	})
	t.Run("control: the PR's own baseline accepted on purpose", func(t *testing.T) {
		r.clone("c6")
		r.env(map[string]string{"GITHUB_BASE_REF": "main"})
		if code, _, errs := r.h.gate(1.10, "--allow-baseline-change"); code != ExitPass {
			t.Fatalf("exit %d with --allow-baseline-change\n%s", code, errs)
		}
	})
}

// --merge-base is a commit, never an option: a value git would read as
// one (--output=FILE made git diff write FILE and skip the check) is
// refused before git runs (issue #20 item 3).
func TestGateMergeBaseIsNotAnOption(t *testing.T) {
	r := newPRRepos(t)
	r.clone("c")
	r.env(nil)
	victim := filepath.Join(r.h.dir, "victim")
	for _, v := range []string{"--output=" + victim, "-p", "main..pr", "a b", "x\ny"} {
		code, _, errs := r.h.gate(1.10, "--merge-base="+v)
		if code != ExitInvalid || !strings.Contains(errs, "not a commit") {
			t.Errorf("--merge-base=%q: exit %d, want 2 'not a commit'\n%s", v, code, errs)
		}
	}
	r.env(map[string]string{"PERFGATE_MERGE_BASE": "--output=" + victim})
	if code, _, errs := r.h.gate(1.10); code != ExitInvalid || !strings.Contains(errs, "PERFGATE_MERGE_BASE") {
		t.Errorf("PERFGATE_MERGE_BASE option: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("git wrote the file an option named")
	}
}

// A push or a scheduled run on the branch itself is the trusted side: it
// needs no merge base, and is not refused for the baselines it holds.
func TestGateOnAPushNeedsNoMergeBase(t *testing.T) {
	r := newPRRepos(t)
	dir := r.clone("c")
	r.git(dir, "remote", "remove", "origin") // nothing could be fetched
	r.env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule"})
	if code, _, errs := r.h.gate(1.10); code != ExitPass {
		t.Errorf("scheduled run: exit %d\n%s", code, errs)
	}
	r.env(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"})
	r.clone("c2")
	if code, _, errs := r.h.gate(1.10); code != ExitInvalid {
		t.Errorf("pull request without GITHUB_BASE_REF: exit %d, want 2\n%s", code, errs)
	}
}
