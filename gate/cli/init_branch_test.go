package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/bootstrap"
	"github.com/perfgate/perfgate/gate/gitstore"
)

// TestInitBaselinesOnBranch: in a git checkout init keeps the baselines
// where the nightly it writes records them, the branch perfgate-baselines:
// perfgate.yaml says `baselines: git:perfgate-baselines` (so the PR check
// reads the branch), the measurements are staged in init's output
// directory, not in the tree, and the first baseline, its history and the
// calibration are committed to the local branch under baselines/<profile>/
// beside another profile's, with main untouched. Outside a checkout the
// store stays in the tree and init says why.
func TestInitBaselinesOnBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	repo := t.TempDir()
	gitT(t, repo, "init", "--quiet", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "--quiet", "-m", "main")
	mainTip := gitT(t, repo, "rev-parse", "HEAD")
	env := append(os.Environ(), gitTestEnv...)
	var stderr bytes.Buffer
	s := &Streams{Out: &bytes.Buffer{}, Err: &stderr, Environ: env}

	for _, profile := range []string{"other-runner", "sim-runner"} {
		o := initOptions{dir: repo, profile: profile, baselines: "baselines", out: "perfgate-init", branch: gitstore.DefaultBranch}
		setting, store, branch := initStore(ctx, s, o)
		if setting != "git:perfgate-baselines" || branch != "perfgate-baselines" || store.Root != filepath.Join(repo, "perfgate-init", "baselines") {
			t.Fatalf("initStore = %q, %q, %q: want the branch, staged in the output directory", setting, store.Root, branch)
		}
		files := map[string]string{
			"smoke-chat-c4.json":          `{"profile":"` + profile + `"}`,
			"history/smoke-chat-c4.jsonl": "{}\n",
			"calibration/noise.json":      `{"restarts":3}`,
		}
		for name, data := range files {
			p := filepath.Join(store.Dir(profile), name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		commit, err := initPublish(ctx, s, o, store, branch)
		if err != nil {
			t.Fatal(err)
		}
		if tip := gitT(t, repo, "rev-parse", "refs/heads/perfgate-baselines"); tip != commit {
			t.Errorf("branch at %s, init committed %s", tip, commit)
		}
		for name, data := range files {
			if got := gitT(t, repo, "show", commit+":baselines/"+profile+"/"+name); got != strings.TrimSpace(data) {
				t.Errorf("%s on the branch: %q, want %q", name, got, data)
			}
		}
	}
	if got := gitT(t, repo, "ls-tree", "--name-only", "perfgate-baselines:baselines"); got != "other-runner\nsim-runner" {
		t.Errorf("the branch holds %q: want both profiles", got)
	}
	if tip := gitT(t, repo, "rev-parse", "HEAD"); tip != mainTip {
		t.Error("main moved")
	}
	if _, err := os.Stat(filepath.Join(repo, "baselines")); !os.IsNotExist(err) {
		t.Errorf("a baselines/ directory in the tree: %v", err)
	}

	// The configuration init writes names the branch and loads.
	cfg := bootstrap.Config(bootstrap.Setup{Profile: "sim-runner", Workloads: []string{"w.yaml"}, ServerCommand: []string{"srv"},
		Restarts: 3, TrialsPerRestart: 2, Baselines: "git:perfgate-baselines"}, nil)
	if !strings.Contains(string(cfg), "\nbaselines: \"git:perfgate-baselines\"\n") {
		t.Errorf("perfgate.yaml does not name the branch:\n%s", cfg)
	}
	path := filepath.Join(t.TempDir(), "perfgate.yaml")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	var cout, cerr bytes.Buffer
	if code := Main(ctx, []string{"config", "--config", path}, Streams{Out: &cout, Err: &cerr, Environ: env}); code != ExitPass ||
		!strings.Contains(cout.String(), "git:perfgate-baselines") {
		t.Errorf("perfgate config: exit %d, %s%s", code, cout.String(), cerr.String())
	}

	// Not a checkout: the tree, and a note saying why.
	plain := t.TempDir()
	stderr.Reset()
	o := initOptions{dir: plain, profile: "p", baselines: "baselines", out: "perfgate-init", branch: gitstore.DefaultBranch}
	setting, store, branch := initStore(ctx, s, o)
	if setting != "baselines" || branch != "" || store != (baseline.Store{Root: filepath.Join(plain, "baselines")}) ||
		!strings.Contains(stderr.String(), "is not a git checkout: the baselines stay in baselines in the tree") {
		t.Errorf("outside a checkout: %q, %q, %q; stderr %q", setting, store.Root, branch, stderr.String())
	}
}
