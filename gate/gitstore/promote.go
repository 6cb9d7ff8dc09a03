package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/git"
)

// DefaultAttempts bounds how often Promote re-applies a promotion that
// another push overtook: each attempt is one fetch, one apply, one push.
const DefaultAttempts = 5

// Promotion is one change of the store on a branch.
type Promotion struct {
	Branch  string
	Dir     string // the store's directory inside the branch
	Message string // the commit message
	// Apply changes the store, whose root it is given (a directory of a
	// fresh worktree at the branch's tip, which may not exist yet). It
	// is called once per attempt, so it must read the store afresh: a
	// retry re-applies the promotion on top of what the other push wrote.
	Apply func(storeRoot string) error
	// Attempts bounds the retries; 0 means DefaultAttempts.
	Attempts int
}

// Result is what Promote did: Commit is the branch's new tip (the old
// one when Apply changed nothing), Attempts how many applies it took.
type Result struct {
	Commit   string
	Changed  bool
	Pushed   bool
	Attempts int
}

// Promote applies p on the branch's tip in a temporary detached worktree
// (the branch is created, without parents, when it does not exist),
// commits with git write-tree and commit-tree, and publishes the commit:
// a non-forced push to the remote when the repository has one, else a
// compare-and-swap of the local branch (git update-ref with the old
// value). When another promotion got there first the publish is refused
// and the promotion is applied again on the new tip, up to Attempts
// times; no history line of either promotion is lost.
func (r Repo) Promote(ctx context.Context, p Promotion) (Result, error) {
	if err := git.ValidBranch(p.Branch); err != nil {
		return Result{}, err
	}
	attempts := p.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	env, err := r.identity(ctx)
	if err != nil {
		return Result{}, err
	}
	r.Env = append(r.Env, env...)
	var last error
	for i := 1; i <= attempts; i++ {
		res, retry, err := r.attempt(ctx, p)
		res.Attempts = i
		if err == nil || !retry {
			return res, err
		}
		last = err
	}
	return Result{Attempts: attempts}, fmt.Errorf("promoting to branch %s: %d attempts were overtaken by other pushes; the last: %w", p.Branch, attempts, last)
}

// identity supplies a committer when the repository has none configured
// (a fresh CI runner), so commit-tree does not stop to ask.
func (r Repo) identity(ctx context.Context) ([]string, error) {
	if email, _ := r.git(ctx, "", "config", "user.email"); email != "" {
		return nil, nil
	}
	return []string{"GIT_AUTHOR_NAME=perfgate", "GIT_AUTHOR_EMAIL=perfgate@localhost",
		"GIT_COMMITTER_NAME=perfgate", "GIT_COMMITTER_EMAIL=perfgate@localhost"}, nil
}

// attempt is one fetch-apply-commit-publish; retry says the publish was
// refused (another promotion moved the branch) and may be tried again.
func (r Repo) attempt(ctx context.Context, p Promotion) (res Result, retry bool, err error) {
	tip, err := r.Tip(ctx, p.Branch)
	if err != nil {
		return res, false, err
	}
	tmp, err := os.MkdirTemp("", "perfgate-baselines-")
	if err != nil {
		return res, false, err
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "worktree")
	start := tip
	if start == "" {
		start = "HEAD"
	}
	if _, err := r.git(ctx, "", "worktree", "add", "--quiet", "--detach", wt, start); err != nil {
		return res, false, err
	}
	defer func() { _, _ = r.git(context.WithoutCancel(ctx), "", "worktree", "remove", "--force", wt) }()
	if tip == "" {
		// A new branch holds the store only: nothing of HEAD's tree.
		if _, err := r.git(ctx, wt, "rm", "-r", "-q", "-f", "--ignore-unmatch", "--", "."); err != nil {
			return res, false, err
		}
	}
	if err := p.Apply(filepath.Join(wt, filepath.FromSlash(p.Dir))); err != nil {
		return res, false, err
	}
	if _, err := r.git(ctx, wt, "add", "-A", "--", "."); err != nil {
		return res, false, err
	}
	tree, err := r.git(ctx, wt, "write-tree")
	if err != nil {
		return res, false, err
	}
	if tip != "" {
		if old, _ := r.git(ctx, "", "rev-parse", tip+"^{tree}"); old == tree {
			return Result{Commit: tip}, false, nil
		}
	}
	args := []string{"commit-tree", tree, "-m", p.Message}
	if tip != "" {
		args = append(args, "-p", tip)
	}
	commit, err := r.git(ctx, "", args...)
	if err != nil {
		return res, false, err
	}
	res = Result{Commit: commit, Changed: true}
	if r.hasRemote(ctx) {
		if _, err := r.git(ctx, "", "push", "--quiet", "--", r.Remote, commit+":refs/heads/"+p.Branch); err != nil {
			return res, true, err
		}
		res.Pushed = true
		_, err := r.git(ctx, "", "update-ref", "refs/remotes/"+r.Remote+"/"+p.Branch, commit)
		return res, false, err
	}
	old := tip
	if old == "" {
		old = "0000000000000000000000000000000000000000"
	}
	if _, err := r.git(ctx, "", "update-ref", "refs/heads/"+p.Branch, commit, old); err != nil {
		return res, true, errors.Join(errors.New("the local branch moved meanwhile"), err)
	}
	return res, false, nil
}
