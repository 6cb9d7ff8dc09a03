// Package gitstore keeps the baseline store on a git branch of its own
// (perfgate-baselines by default), the way github-action-benchmark keeps
// its data on gh-pages: only the nightly and release workflows push to
// it, pull requests cannot change it, and main stays protected.
//
// Readers never check the branch out: Export writes one directory of a
// commit (git archive) to a temporary directory that the ordinary
// baseline.Store reads. Writers (Promote) apply a promotion in a
// temporary detached worktree, commit with plumbing and push; when
// another promotion pushed first the push is refused, and the promotion
// is applied again on the new tip rather than rebased, because two
// appends to one history file always conflict under a rebase, while
// re-applying keeps both lines.
package gitstore

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// DefaultBranch is the branch the baselines live on unless configured.
const DefaultBranch = "perfgate-baselines"

// Prefix marks a baselines setting that names a branch, not a directory:
// "git:perfgate-baselines" or "git:perfgate-baselines:baselines".
const Prefix = "git:"

// Spec is a store on a branch: Dir is the store's directory inside the
// branch's tree ("baselines" unless given).
type Spec struct {
	Branch string
	Dir    string
}

// Parse reads "git:<branch>[:<dir>]"; ok is false for a plain directory.
// The branch and directory are checked so that neither can reach git as
// an option or leave the tree.
func Parse(s string) (spec Spec, ok bool, err error) {
	rest, found := strings.CutPrefix(s, Prefix)
	if !found {
		return Spec{}, false, nil
	}
	branch, dir, _ := strings.Cut(rest, ":")
	if branch == "" {
		branch = DefaultBranch
	}
	if dir == "" {
		dir = "baselines"
	}
	if err := ValidBranch(branch); err != nil {
		return Spec{}, true, fmt.Errorf("%q: %w", s, err)
	}
	clean := path.Clean(dir)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "-") {
		return Spec{}, true, fmt.Errorf("%q: directory %q must be relative and inside the branch", s, dir)
	}
	return Spec{Branch: branch, Dir: clean}, true, nil
}

// ValidBranch accepts a branch name git accepts that cannot be read as an
// option.
func ValidBranch(b string) error {
	switch {
	case b == "", b == "@", strings.HasPrefix(b, "-"), strings.Contains(b, ".."), strings.Contains(b, "@{"), strings.Contains(b, "//"),
		strings.ContainsAny(b, " ~^:?*[\\\x7f"),
		strings.HasPrefix(b, "/"), strings.HasSuffix(b, "/"), strings.HasSuffix(b, ".lock"):
		return fmt.Errorf("branch %q is not a valid branch name", b)
	}
	for _, c := range b {
		if c < 0x20 {
			return fmt.Errorf("branch %q is not a valid branch name", b)
		}
	}
	return nil
}

// Repo is a git repository (any directory inside its work tree).
type Repo struct {
	Dir string
	// Remote is the remote fetched from and pushed to ("origin"); empty
	// or absent from the repository: the local branch only.
	Remote string
	// Environ is the environment git runs in (nil: the process's), so a
	// command's injected environment reaches git; Env is added to it
	// (tests set a committer).
	Environ []string
	Env     []string
}

func (r Repo) env() []string {
	base := r.Environ
	if base == nil {
		base = os.Environ()
	}
	return append(append([]string(nil), base...), r.Env...)
}

// git runs git in the repository and returns its trimmed output; errors
// carry git's first line of standard error.
func (r Repo) git(ctx context.Context, dir string, args ...string) (string, error) {
	if dir == "" {
		dir = r.Dir
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = r.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

func (r Repo) hasRemote(ctx context.Context) bool {
	if r.Remote == "" {
		return false
	}
	_, err := r.git(ctx, "", "remote", "get-url", "--", r.Remote)
	return err == nil
}

// Tip fetches the branch from the remote (when there is one) and returns
// the commit the store is read from: the remote's branch, else the local
// branch. "" with a nil error: the branch does not exist yet.
func (r Repo) Tip(ctx context.Context, branch string) (string, error) {
	if err := ValidBranch(branch); err != nil {
		return "", err
	}
	if r.hasRemote(ctx) {
		remoteRef := "refs/remotes/" + r.Remote + "/" + branch
		_, ferr := r.git(ctx, "", "fetch", "--quiet", "--no-tags", r.Remote, "+refs/heads/"+branch+":"+remoteRef)
		if ferr == nil {
			return r.git(ctx, "", "rev-parse", "--verify", "--end-of-options", remoteRef+"^{commit}")
		}
		if !strings.Contains(ferr.Error(), "couldn't find remote ref") {
			return "", fmt.Errorf("fetching %s from %s: %w", branch, r.Remote, ferr)
		}
	}
	out, err := r.git(ctx, "", "rev-parse", "--verify", "--quiet", "--end-of-options", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return "", nil
	}
	return out, nil
}

// Export writes the directory dir of commit into dest (created) and
// returns the path of dir inside dest. Nothing is checked out: the
// files come from git archive. A commit without dir exports an empty
// directory.
func (r Repo) Export(ctx context.Context, commit, dir, dest string) (string, error) {
	root := filepath.Join(dest, filepath.FromSlash(dir))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if has, err := r.git(ctx, "", "ls-tree", "--name-only", commit, "--", dir); err != nil {
		return "", err
	} else if has == "" {
		return root, nil
	}
	cmd := exec.CommandContext(ctx, "git", "-C", r.Dir, "archive", "--format=tar", commit, "--", dir)
	cmd.Env = r.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	xerr := untar(out, dest)
	if xerr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("git archive %s -- %s: %w: %s", commit, dir, err, strings.TrimSpace(stderr.String()))
	}
	return root, xerr
}

// untar writes the regular files and directories of a tar stream under
// dest, refusing any name that would leave it.
func untar(r io.Reader, dest string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("archive entry %q leaves the directory", h.Name)
		}
		p := filepath.Join(dest, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
