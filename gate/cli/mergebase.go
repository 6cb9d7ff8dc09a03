package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The trusted side of a gate run is the commit the change branched from
// (the merge base): the baselines there are the ones main had, and any
// change to them since is the pull request re-recording its own baseline.
// This file establishes it with git, fetching what a shallow checkout
// lacks, and fails closed (exit 2, naming what to fetch) when it cannot:
// a gate that cannot tell main's baseline from the pull request's must not
// trust the pull request's.

// gitCheckout is the git checkout that holds the baseline store.
type gitCheckout struct {
	ctx context.Context
	dir string // a directory inside the checkout
	// env is the environment git runs in (the command's, Streams.Environ).
	env []string
}

// git runs git in the checkout and returns its trimmed standard output;
// the error carries git's standard error.
func (g gitCheckout) git(args ...string) (string, error) {
	cmd := exec.CommandContext(g.ctx, "git", append([]string{"-C", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(append([]string(nil), g.env...), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, firstLine(msg))
	}
	return strings.TrimSpace(string(out)), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// findCheckout returns the checkout holding the directory dir, ok false
// when dir does not exist, is not inside a git work tree, or git is not
// installed.
func findCheckout(ctx context.Context, dir string, env []string) (gitCheckout, bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return gitCheckout{}, false
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return gitCheckout{}, false
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return gitCheckout{}, false
	}
	g := gitCheckout{ctx: ctx, dir: d, env: env}
	if out, err := g.git("rev-parse", "--is-inside-work-tree"); err != nil || out != "true" {
		return gitCheckout{}, false
	}
	return g, true
}

// revPattern is what a merge base given by flag or environment may look
// like: a commit sha or a ref name (origin/main, refs/heads/main, HEAD~1).
// A leading '-' is refused so the value can never reach git as an option.
var revPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./@{}^~+-]*$`)

// shaPattern is a full or abbreviated commit sha, as history files record.
var shaPattern = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

// validRev checks a merge base given by flag or environment (named by
// what) before git sees it.
func validRev(what, v string) error {
	if !revPattern.MatchString(v) || strings.Contains(v, "..") || len(v) > 255 {
		return fmt.Errorf("%s %q: not a commit: want a sha or a ref name such as origin/main", what, v)
	}
	return nil
}

// validBranch checks a branch name from the environment (GITHUB_BASE_REF).
func validBranch(what, v string) error {
	if !revPattern.MatchString(v) || strings.Contains(v, "..") || strings.ContainsAny(v, "^~{}@") || len(v) > 255 {
		return fmt.Errorf("%s %q: not a branch name", what, v)
	}
	return nil
}

// shallow reports whether the checkout is a shallow clone.
func (g gitCheckout) shallow() bool {
	out, err := g.git("rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// hasRemote reports whether the checkout has a remote called origin.
func (g gitCheckout) hasRemote() bool {
	_, err := g.git("remote", "get-url", "origin")
	return err == nil
}

// defaultBranch is origin's default branch: origin/HEAD when the clone
// recorded it, else what origin says its HEAD is.
func (g gitCheckout) defaultBranch() (string, error) {
	name := ""
	if head, err := g.git("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"); err == nil && strings.HasPrefix(head, "refs/remotes/origin/") {
		name = strings.TrimPrefix(head, "refs/remotes/origin/")
	} else {
		out, err := g.git("ls-remote", "--symref", "origin", "HEAD")
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
	if err := validBranch("origin's HEAD", name); err != nil {
		return "", err
	}
	return name, nil
}

// commit resolves rev to a full commit sha, "" when the checkout lacks it.
func (g gitCheckout) commit(rev string) string {
	out, err := g.git("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// resolveMergeBase returns the merge base the gate judges against, fetching
// from origin what a shallow checkout lacks:
//   - explicit (--merge-base or PERFGATE_MERGE_BASE, named by what) when set;
//   - else, with baseRef ($GITHUB_BASE_REF) set, git merge-base of HEAD and
//     origin/<baseRef>;
//   - else, when the checkout has a remote origin, the merge base of HEAD
//     and origin's default branch.
//
// It returns "" with a nil error only for a checkout without a remote
// and nothing named: a local repository, whose baselines are whatever its
// owner checked out. Any failure to
// establish a merge base that was asked for is an error naming what to
// fetch.
func (g gitCheckout) resolveMergeBase(what, explicit, baseRef string) (string, error) {
	if explicit != "" {
		if sha := g.commit(explicit); sha != "" {
			return sha, nil
		}
		if g.hasRemote() && shaPattern.MatchString(explicit) {
			_, ferr := g.git("fetch", "--no-tags", "--quiet", "--depth=1", "origin", "--end-of-options", explicit)
			if sha := g.commit(explicit); sha != "" {
				return sha, nil
			}
			if ferr != nil {
				return "", fmt.Errorf("%s %s is not in the checkout and fetching it failed (%v): fetch it first (actions/checkout with fetch-depth: 0, or git fetch origin %s)", what, explicit, ferr, explicit)
			}
		}
		return "", fmt.Errorf("%s %s is not a commit of the checkout: fetch it first (actions/checkout with fetch-depth: 0, or git fetch origin %s)", what, explicit, explicit)
	}
	if baseRef == "" {
		// Outside a pull request's environment, a clone's default branch
		// (origin/HEAD, set by git clone) is the trusted side when the
		// checkout has it.
		if !g.hasRemote() {
			return "", nil // a local repository: nothing beyond the checkout to trust
		}
		var err error
		if baseRef, err = g.defaultBranch(); err != nil {
			return "", fmt.Errorf("cannot tell which baselines to trust: no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF, and the default branch of origin is unknown (%v): pass --merge-base or fetch the default branch (git remote set-head origin --auto)", err)
		}
	}
	remote := "refs/remotes/origin/" + baseRef
	spec := "+refs/heads/" + baseRef + ":" + remote
	if g.commit(remote) == "" {
		if !g.hasRemote() {
			return "", fmt.Errorf("GITHUB_BASE_REF is %s but the checkout has no origin/%s and no remote origin to fetch it from: fetch the base branch (actions/checkout with fetch-depth: 0) or pass --merge-base", baseRef, baseRef)
		}
		args := []string{"fetch", "--no-tags", "--quiet"}
		if g.shallow() {
			args = append(args, "--depth=50")
		}
		if _, err := g.git(append(args, "origin", spec)...); err != nil {
			return "", fmt.Errorf("could not fetch the base branch %s (%v): fetch it before the gate (actions/checkout with fetch-depth: 0, or git fetch origin %s) or pass --merge-base", baseRef, err, baseRef)
		}
	}
	if out, err := g.git("merge-base", "HEAD", remote); err == nil {
		return out, nil
	}
	// A shallow checkout lacks the commits that join HEAD and the base:
	// deepen both a little, then a lot, then entirely.
	if g.shallow() && g.hasRemote() {
		for _, deepen := range []string{"--deepen=50", "--deepen=1000", "--unshallow"} {
			if _, err := g.git("fetch", "--no-tags", "--quiet", deepen, "origin", spec); err != nil {
				break
			}
			if out, err := g.git("merge-base", "HEAD", remote); err == nil {
				return out, nil
			}
			if !g.shallow() {
				break
			}
		}
	}
	return "", fmt.Errorf("could not find the merge base of HEAD and origin/%s: fetch the history (actions/checkout with fetch-depth: 0, or git fetch --unshallow origin %s) or pass --merge-base", baseRef, baseRef)
}

// changedSince lists the files under dir (the profile's baseline
// directory) that differ from mergeBase: committed or uncommitted edits,
// and files git does not track. An error means the comparison could not
// be made, which the caller treats as a refusal.
func (g gitCheckout) changedSince(dir, mergeBase string) ([]string, error) {
	sub := gitCheckout{ctx: g.ctx, dir: dir, env: g.env}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil // no baselines: every cell is reported missing
	}
	diff, err := sub.git("diff", "--name-only", "--end-of-options", mergeBase, "--", ".")
	if err != nil {
		return nil, err
	}
	untracked, err := sub.git("ls-files", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return nil, err
	}
	return append(strings.Fields(diff), strings.Fields(untracked)...), nil
}

// ancestry returns a test of "commit is an ancestor of mergeBase"; commits
// that are not shas (a history file is checked-out data) and commits the
// checkout lacks say no. Answers are cached: the cells of one promotion
// share its commit.
func (g gitCheckout) ancestry(mergeBase string) func(string) bool {
	known := map[string]bool{}
	return func(sha string) bool {
		if mergeBase == "" || !shaPattern.MatchString(sha) {
			return false
		}
		if v, ok := known[sha]; ok {
			return v
		}
		_, err := g.git("merge-base", "--is-ancestor", "--end-of-options", sha, mergeBase)
		known[sha] = err == nil
		return err == nil
	}
}
