package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/git"
	"github.com/perfgate/perfgate/gate/gitstore"
)

// baselineBranch says whether baseline update promotes to a branch:
// --branch NAME, or --baselines git:NAME[:DIR]. The store's directory
// inside the branch is DIR, else --baselines when it is a relative path,
// else "baselines".
func baselineBranch(o baselineUpdateOptions) (gitstore.Spec, bool, error) {
	spec, ok, err := gitstore.Parse(o.root)
	if err != nil {
		return spec, true, exitf(ExitInvalid, "--baselines %w", err)
	}
	if o.branch == "" {
		return spec, ok, nil
	}
	if err := git.ValidBranch(o.branch); err != nil {
		return spec, true, exitf(ExitInvalid, "--branch: %w", err)
	}
	dir := spec.Dir
	if !ok {
		if dir, err = filepath.Rel(".", o.root); err != nil || filepath.IsAbs(o.root) || dir == ".." || len(dir) > 2 && dir[:3] == "../" {
			return spec, true, exitf(ExitInvalid, "--baselines %q: with --branch it names the store's directory inside the branch, a relative path", o.root)
		}
	}
	return gitstore.Spec{Branch: o.branch, Dir: filepath.ToSlash(dir)}, true, nil
}

// baselineUpdateBranch promotes on spec's branch of the checkout in the
// working directory: the screen and the update run in a temporary
// worktree at the branch's tip, the commit is pushed to --remote, and a
// push overtaken by another promotion is applied again on the new tip
// (gitstore.Promote). The files it reports are named branch:path.
func baselineUpdateBranch(s *Streams, spec gitstore.Spec, o baselineUpdateOptions, promote func(string) ([]string, []baseline.Skip, error)) ([]string, []baseline.Skip, error) {
	repo := gitstore.Repo{Dir: ".", Remote: o.remote, Environ: s.environ()}
	var paths []string
	var skipped []baseline.Skip
	var root string
	res, err := repo.Promote(context.Background(), gitstore.Promotion{
		Branch:  spec.Branch,
		Dir:     spec.Dir,
		Message: fmt.Sprintf("perfgate: promote %s to %s (%s)", o.from, o.profile, baselineOrEnv(o.gitSHA, s.getenv("GITHUB_SHA"))),
		Apply: func(r string) error {
			root = r
			var err error
			paths, skipped, err = promote(r)
			return err
		},
	})
	if err != nil {
		if ee := (*ExitError)(nil); errors.As(err, &ee) {
			return nil, nil, err
		}
		return nil, nil, exitf(ExitInvalid, "baseline update --branch %s: %w", spec.Branch, err)
	}
	for i, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil {
			paths[i] = spec.Branch + ":" + filepath.ToSlash(filepath.Join(spec.Dir, rel))
		}
	}
	where := "the local branch " + spec.Branch
	if res.Pushed {
		where = o.remote + "/" + spec.Branch
	}
	fmt.Fprintf(s.Err, "perfgate: committed %.12s to %s (attempt %d)\n", res.Commit, where, res.Attempts)
	return paths, skipped, nil
}

// openBaselines resolves a baselines setting for reading: a directory is
// returned as it is; "git:<branch>[:<dir>]" is fetched from origin (when
// the checkout has it) and <dir> of the branch's tip is exported, without
// a checkout, into a temporary directory that done removes. A pull
// request cannot change what it reads: only the branch's pushers can.
//
// A branch that does not exist yet is an error, except with
// emptyIfMissing (the gate): the first night must still run and write the
// results that create the branch, every cell failing closed as missing
// its baseline.
func openBaselines(ctx context.Context, s *Streams, setting string, emptyIfMissing bool) (root string, done func(), err error) {
	spec, ok, err := gitstore.Parse(setting)
	if err != nil {
		return "", nil, exitf(ExitInvalid, "baselines %w", err)
	}
	if !ok {
		return setting, func() {}, nil
	}
	repo := gitstore.Repo{Dir: ".", Remote: "origin", Environ: s.environ()}
	tip, err := repo.Tip(ctx, spec.Branch)
	if err != nil {
		return "", nil, exitf(ExitInvalid, "baselines %s: %w", setting, err)
	}
	if tip == "" && emptyIfMissing {
		fmt.Fprintf(s.Err, "perfgate: warning: baselines %s: the branch %s exists neither on origin nor locally yet: no workload has a baseline; the nightly workflow creates it with `perfgate baseline update --branch %s`\n", setting, spec.Branch, spec.Branch)
		tmp, err := os.MkdirTemp("", "perfgate-baselines-")
		if err != nil {
			return "", nil, err
		}
		return filepath.Join(tmp, filepath.FromSlash(spec.Dir)), func() { os.RemoveAll(tmp) }, nil
	}
	if tip == "" {
		return "", nil, exitf(ExitInvalid, "baselines %s: the branch %s exists neither on origin nor locally: the nightly workflow creates it with `perfgate baseline update --branch %s` (docs/baselines.md)", setting, spec.Branch, spec.Branch)
	}
	tmp, err := os.MkdirTemp("", "perfgate-baselines-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	root, err = repo.Export(ctx, tip, spec.Dir, tmp)
	if err != nil {
		done()
		return "", nil, exitf(ExitInvalid, "baselines %s: %w", setting, err)
	}
	fmt.Fprintf(s.Err, "perfgate: baselines from branch %s at %.12s (%s)\n", spec.Branch, tip, spec.Dir)
	return root, done, nil
}

// refuseBranchStore stops a command that writes the store in the checkout
// (calibrate) when the configuration keeps it on a branch: the file would
// land in a directory named "git:...". Such a command writes an in-tree
// store given with --baselines; commit its file to the branch.
func refuseBranchStore(cmd, setting string) error {
	if spec, ok, _ := gitstore.Parse(setting); ok {
		return exitf(ExitInvalid, "%s: baselines %q is on the branch %s, which %s does not write: pass --baselines DIR and commit what it writes under %s/ on the branch", cmd, setting, spec.Branch, cmd, spec.Dir)
	}
	return nil
}

// branchOf is the branch a baselines setting names, "" for a directory.
func branchOf(setting string) string {
	if spec, ok, err := gitstore.Parse(setting); ok && err == nil {
		return spec.Branch
	}
	return ""
}
