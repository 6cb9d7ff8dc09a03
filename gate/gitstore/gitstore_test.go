package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var testEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@localhost", "GIT_COMMITTER_NAME=t",
	"GIT_COMMITTER_EMAIL=t@localhost", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), testEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// origin makes a bare repository with a main branch holding a README and
// returns it with n clones of it.
func origin(t *testing.T, n int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	bare := filepath.Join(dir, "origin.git")
	run(t, dir, "init", "--quiet", "--bare", "-b", "main", bare)
	seed := filepath.Join(dir, "seed")
	run(t, dir, "clone", "--quiet", bare, seed)
	if err := os.WriteFile(filepath.Join(seed, "README"), []byte("code\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, seed, "add", "README")
	run(t, seed, "commit", "--quiet", "-m", "main")
	run(t, seed, "push", "--quiet", "origin", "HEAD:main")
	var clones []string
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, fmt.Sprintf("clone%d", i))
		run(t, dir, "clone", "--quiet", "--depth=1", "file://"+bare, c)
		clones = append(clones, c)
	}
	return bare, clones
}

// appendLine is a promotion that appends line to p/history/a.jsonl.
func appendLine(line string) func(string) error {
	return func(root string) error {
		p := filepath.Join(root, "p", "history", "a.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f, line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

func TestPromoteCreatesTheBranchAndExportReadsIt(t *testing.T) {
	ctx := context.Background()
	bare, clones := origin(t, 2)
	w := Repo{Dir: clones[0], Remote: "origin", Env: testEnv}
	res, err := w.Promote(ctx, Promotion{Branch: DefaultBranch, Dir: "baselines", Message: "night 1", Apply: appendLine(`{"n":1}`)})
	if err != nil || !res.Pushed || !res.Changed {
		t.Fatalf("promote: %+v %v", res, err)
	}
	// The branch holds the store only, and main is untouched.
	if got := run(t, bare, "ls-tree", "-r", "--name-only", DefaultBranch); got != "baselines/p/history/a.jsonl" {
		t.Errorf("branch tree %q", got)
	}
	if got := run(t, bare, "ls-tree", "-r", "--name-only", "main"); got != "README" {
		t.Errorf("main tree %q", got)
	}
	// Another clone reads it without checking it out.
	r := Repo{Dir: clones[1], Remote: "origin", Env: testEnv}
	tip, err := r.Tip(ctx, DefaultBranch)
	if err != nil || tip != res.Commit {
		t.Fatalf("tip %q %v, want %s", tip, err, res.Commit)
	}
	root, err := r.Export(ctx, tip, "baselines", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "p", "history", "a.jsonl"))
	if err != nil || string(data) != "{\"n\":1}\n" {
		t.Errorf("exported %q %v", data, err)
	}
	if head := run(t, clones[1], "rev-parse", "--abbrev-ref", "HEAD"); head != "main" {
		t.Errorf("reader's checkout moved to %s", head)
	}
	// The same promotion again changes nothing and pushes nothing.
	again, err := w.Promote(ctx, Promotion{Branch: DefaultBranch, Dir: "baselines", Message: "noop", Apply: func(string) error { return nil }})
	if err != nil || again.Changed || again.Commit != res.Commit {
		t.Errorf("no-op promote: %+v %v", again, err)
	}
}

// TestPromoteRacesKeepEveryLine: two promotions from two clones read the
// same tip before either pushes; the one overtaken re-applies on the
// other's commit, and the branch ends with both lines. Ten rounds.
func TestPromoteRacesKeepEveryLine(t *testing.T) {
	ctx := context.Background()
	bare, clones := origin(t, 2)
	retried := 0
	for round := 0; round < 10; round++ {
		var ready sync.WaitGroup
		ready.Add(2)
		var wg sync.WaitGroup
		results := make([]Result, 2)
		errs := make([]error, 2)
		for i := 0; i < 2; i++ {
			first := true
			apply := appendLine(fmt.Sprintf(`{"round":%d,"clone":%d}`, round, i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				repo := Repo{Dir: clones[i], Remote: "origin", Env: testEnv}
				results[i], errs[i] = repo.Promote(ctx, Promotion{Branch: DefaultBranch, Dir: "baselines", Message: "race", Apply: func(root string) error {
					if first { // both read the same tip before either pushes
						first = false
						ready.Done()
						ready.Wait()
					}
					return apply(root)
				}})
			}()
		}
		wg.Wait()
		for i := range errs {
			if errs[i] != nil {
				t.Fatalf("round %d clone %d: %v", round, i, errs[i])
			}
			retried += results[i].Attempts - 1
		}
	}
	lines := strings.Split(run(t, bare, "show", DefaultBranch+":baselines/p/history/a.jsonl"), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d history lines after 10 rounds of 2 racing promotions, want 20:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(seen) != 20 {
		t.Errorf("duplicate lines: %v", lines)
	}
	if retried < 10 {
		t.Errorf("%d retries in 10 races, want at least one a round", retried)
	}
}

func TestPromoteLocalBranchWithoutRemote(t *testing.T) {
	ctx := context.Background()
	_, clones := origin(t, 1)
	r := Repo{Dir: clones[0], Remote: "nowhere", Env: testEnv}
	for i := 0; i < 2; i++ {
		if _, err := r.Promote(ctx, Promotion{Branch: "b", Dir: "s", Message: "m", Apply: appendLine(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	if got := run(t, clones[0], "show", "b:s/p/history/a.jsonl"); got != "0\n1" {
		t.Errorf("local branch holds %q", got)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   Spec
		ok     bool
		errSub string
	}{
		{"baselines", Spec{}, false, ""},
		{"git:", Spec{DefaultBranch, "baselines"}, true, ""},
		{"git:perfgate-baselines", Spec{DefaultBranch, "baselines"}, true, ""},
		{"git:team/bl:store/x", Spec{"team/bl", "store/x"}, true, ""},
		{"git:--upload-pack=x", Spec{}, true, "not a valid branch"},
		{"git:b:../x", Spec{}, true, "inside the branch"},
		{"git:b:/etc", Spec{}, true, "inside the branch"},
	} {
		got, ok, err := Parse(tc.in)
		if ok != tc.ok || (tc.errSub == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errSub)) || (err == nil && got != tc.want) {
			t.Errorf("Parse(%q) = %+v %v %v", tc.in, got, ok, err)
		}
	}
}
