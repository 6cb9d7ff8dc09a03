package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The trusted side of a gate run is the commit the change branched from
// (the merge base): the baselines there are the ones main had, and any
// change to them since is the pull request re-recording its own baseline.
// This file establishes it, fetching what a shallow checkout lacks, and
// fails closed (an error naming what to fetch) when it cannot: a gate that
// cannot tell main's baseline from the pull request's must not trust the
// pull request's. What the gate then trusts is gate/trust's decision.

// Find returns the checkout holding the directory dir, ok false when dir
// does not exist, is not inside a git work tree, or git is not installed.
func Find(ctx context.Context, dir string, environ []string) (Repo, bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return Repo{}, false
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, false
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return Repo{}, false
	}
	r := Repo{Dir: d, Environ: environ}
	if out, err := r.Run(ctx, "rev-parse", "--is-inside-work-tree"); err != nil || out != "true" {
		return Repo{}, false
	}
	return r, true
}

// Shallow reports whether the checkout is a shallow clone.
func (r Repo) Shallow(ctx context.Context) bool {
	out, err := r.Run(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// HasRemote reports whether the repository has the remote name.
func (r Repo) HasRemote(ctx context.Context, name string) bool {
	if name == "" {
		return false
	}
	_, err := r.Run(ctx, "remote", "get-url", "--", name)
	return err == nil
}

// DefaultBranch is origin's default branch: origin/HEAD when the clone
// recorded it, else what origin says its HEAD is.
func (r Repo) DefaultBranch(ctx context.Context) (string, error) {
	name := ""
	if head, err := r.Run(ctx, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"); err == nil && strings.HasPrefix(head, "refs/remotes/origin/") {
		name = strings.TrimPrefix(head, "refs/remotes/origin/")
	} else {
		out, err := r.Run(ctx, "ls-remote", "--symref", "origin", "HEAD")
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "ref:" && f[2] == "HEAD" && strings.HasPrefix(f[1], "refs/heads/") {
				name = strings.TrimPrefix(f[1], "refs/heads/")
			}
		}
	}
	if name == "" {
		return "", errors.New("origin names no HEAD branch")
	}
	if err := ValidBranch(name); err != nil {
		return "", fmt.Errorf("origin's HEAD: %w", err)
	}
	return name, nil
}

// Commit resolves rev to a full commit sha, "" when the repository lacks it.
func (r Repo) Commit(ctx context.Context, rev string) string {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// MergeBase returns the merge base the gate judges against, fetching from
// origin what a shallow checkout lacks:
//   - explicit (--merge-base or PERFGATE_MERGE_BASE, named by what) when
//     set; it must have passed ValidRev;
//   - else, with baseRef ($GITHUB_BASE_REF, which must have passed
//     ValidBranch) set, git merge-base of HEAD and origin/<baseRef>;
//   - else, when the checkout has a remote origin, the merge base of HEAD
//     and origin's default branch.
//
// It returns "" with a nil error only for a checkout without a remote and
// nothing named: a local repository, whose baselines are whatever its
// owner checked out. Any failure to establish a merge base that was asked
// for is an error naming what to fetch.
func (r Repo) MergeBase(ctx context.Context, what, explicit, baseRef string) (string, error) {
	if explicit != "" {
		return r.explicitBase(ctx, what, explicit)
	}
	if baseRef == "" {
		// Outside a pull request's environment, a clone's default branch
		// (origin/HEAD, set by git clone) is the trusted side when the
		// checkout has it.
		if !r.HasRemote(ctx, "origin") {
			return "", nil // a local repository: nothing beyond the checkout to trust
		}
		var err error
		if baseRef, err = r.DefaultBranch(ctx); err != nil {
			return "", fmt.Errorf("cannot tell which baselines to trust: no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF, and the default branch of origin is unknown (%v): pass --merge-base or fetch the default branch (git remote set-head origin --auto)", err)
		}
	}
	remote := "refs/remotes/origin/" + baseRef
	spec := "+refs/heads/" + baseRef + ":" + remote
	if r.Commit(ctx, remote) == "" {
		if !r.HasRemote(ctx, "origin") {
			return "", fmt.Errorf("GITHUB_BASE_REF is %s but the checkout has no origin/%s and no remote origin to fetch it from: fetch the base branch (actions/checkout with fetch-depth: 0) or pass --merge-base", baseRef, baseRef)
		}
		args := []string{"fetch", "--no-tags", "--quiet"}
		if r.Shallow(ctx) {
			args = append(args, "--depth=50")
		}
		if _, err := r.Run(ctx, append(args, "origin", "--end-of-options", spec)...); err != nil {
			return "", fmt.Errorf("could not fetch the base branch %s (%v): fetch it before the gate (actions/checkout with fetch-depth: 0, or git fetch origin %s) or pass --merge-base", baseRef, err, baseRef)
		}
	}
	if out, err := r.Run(ctx, "merge-base", "--end-of-options", "HEAD", remote); err == nil {
		return out, nil
	}
	// A shallow checkout lacks the commits that join HEAD and the base:
	// deepen both a little, then a lot, then entirely.
	if r.Shallow(ctx) && r.HasRemote(ctx, "origin") {
		for _, deepen := range []string{"--deepen=50", "--deepen=1000", "--unshallow"} {
			if _, err := r.Run(ctx, "fetch", "--no-tags", "--quiet", deepen, "origin", "--end-of-options", spec); err != nil {
				break
			}
			if out, err := r.Run(ctx, "merge-base", "--end-of-options", "HEAD", remote); err == nil {
				return out, nil
			}
			if !r.Shallow(ctx) {
				break
			}
		}
	}
	return "", fmt.Errorf("could not find the merge base of HEAD and origin/%s: fetch the history (actions/checkout with fetch-depth: 0, or git fetch --unshallow origin %s) or pass --merge-base", baseRef, baseRef)
}

// explicitBase resolves a merge base given by flag or environment,
// fetching a sha the checkout lacks (GitHub serves any reachable commit
// by sha).
func (r Repo) explicitBase(ctx context.Context, what, explicit string) (string, error) {
	if sha := r.Commit(ctx, explicit); sha != "" {
		return sha, nil
	}
	if r.HasRemote(ctx, "origin") && IsSHA(explicit) {
		_, ferr := r.Run(ctx, "fetch", "--no-tags", "--quiet", "--depth=1", "origin", "--end-of-options", explicit)
		if sha := r.Commit(ctx, explicit); sha != "" {
			return sha, nil
		}
		if ferr != nil {
			return "", fmt.Errorf("%s %s is not in the checkout and fetching it failed (%v): fetch it first (actions/checkout with fetch-depth: 0, or git fetch origin %s)", what, explicit, ferr, explicit)
		}
	}
	return "", fmt.Errorf("%s %s is not a commit of the checkout: fetch it first (actions/checkout with fetch-depth: 0, or git fetch origin %s)", what, explicit, explicit)
}

// ChangedSince lists the files under dir (a directory of the checkout)
// that differ from base: committed or uncommitted edits, and files git
// does not track. A missing dir has no files. An error means the
// comparison could not be made, which a gate treats as a refusal.
func (r Repo) ChangedSince(ctx context.Context, dir, base string) ([]string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	sub := r.In(dir)
	diff, err := sub.Run(ctx, "diff", "--name-only", "--end-of-options", base, "--", ".")
	if err != nil {
		return nil, err
	}
	untracked, err := sub.Run(ctx, "ls-files", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return nil, err
	}
	return append(strings.Fields(diff), strings.Fields(untracked)...), nil
}

// Ancestry returns a test of "commit is an ancestor of base"; commits that
// are not shas (a history file is checked-out data) and commits the
// checkout lacks say no. Answers are cached: the cells of one promotion
// share its commit.
func (r Repo) Ancestry(ctx context.Context, base string) func(string) bool {
	known := map[string]bool{}
	return func(sha string) bool {
		if base == "" || !IsSHA(sha) {
			return false
		}
		if v, ok := known[sha]; ok {
			return v
		}
		_, err := r.Run(ctx, "merge-base", "--is-ancestor", "--end-of-options", sha, base)
		known[sha] = err == nil
		return err == nil
	}
}
