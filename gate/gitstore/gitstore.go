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
	"path"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/git"
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
	if err := git.ValidBranch(branch); err != nil {
		return Spec{}, true, fmt.Errorf("%q: %w", s, err)
	}
	clean := path.Clean(dir)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "-") {
		return Spec{}, true, fmt.Errorf("%q: directory %q must be relative and inside the branch", s, dir)
	}
	return Spec{Branch: branch, Dir: clean}, true, nil
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

// git runs git (gate/git) in the repository, or in dir when given, and
// returns its trimmed output.
func (r Repo) git(ctx context.Context, dir string, args ...string) (string, error) {
	if dir == "" {
		dir = r.Dir
	}
	return r.repo(dir).Run(ctx, args...)
}

func (r Repo) repo(dir string) git.Repo {
	return git.Repo{Dir: dir, Environ: r.env()}
}

func (r Repo) hasRemote(ctx context.Context) bool {
	return r.repo(r.Dir).HasRemote(ctx, r.Remote)
}

// Tip fetches the branch from the remote (when there is one) and returns
// the commit the store is read from: the remote's branch, else the local
// branch. "" with a nil error: the branch does not exist yet.
func (r Repo) Tip(ctx context.Context, branch string) (string, error) {
	if err := git.ValidBranch(branch); err != nil {
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
	if has, err := r.git(ctx, "", "ls-tree", "--name-only", "--end-of-options", commit, "--", dir); err != nil {
		return "", err
	} else if has == "" {
		return root, nil
	}
	// git archive takes no --end-of-options; commit is a sha from Tip and
	// dir passed Parse, so neither can read as an option.
	err := r.repo(r.Dir).Stream(ctx, []string{"archive", "--format=tar", commit, "--", dir}, func(out io.Reader) error {
		return untar(out, dest)
	})
	if err != nil {
		return "", fmt.Errorf("exporting %s of %s: %w", dir, commit, err)
	}
	return root, nil
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
