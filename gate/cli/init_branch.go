package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/git"
	"github.com/perfgate/perfgate/gate/gitstore"
)

// initStore decides where init's baselines live, as perfgate.yaml will
// name them (setting), and where init measures them first (staging). In
// a git checkout they live on the branch (--branch, perfgate-baselines by
// default): the nightly written beside the PR check records there, so the
// PR check must read there too, and a pull request cannot change it. init
// measures into a staging store in its output directory and commits that
// to the local branch (initPublish); pushing it is the team's step, with
// the configuration and the workflows. Outside a checkout, or with
// --branch "", the store is --baselines in the tree, and the configuration
// says so.
func initStore(ctx context.Context, s *Streams, o initOptions) (setting string, staging baseline.Store, branch string) {
	if o.branch == "" {
		return o.baselines, baseline.Store{Root: filepath.Join(o.dir, o.baselines)}, ""
	}
	if _, ok := git.Find(ctx, o.dir, s.environ()); !ok {
		fmt.Fprintf(s.Err, "perfgate: init: %s is not a git checkout: the baselines stay in %s in the tree (baselines: %s); to keep them on the branch %s as the nightly does, run init in the repository\n",
			o.dir, o.baselines, o.baselines, o.branch)
		return o.baselines, baseline.Store{Root: filepath.Join(o.dir, o.baselines)}, ""
	}
	return "git:" + o.branch, baseline.Store{Root: filepath.Join(o.dir, o.out, "baselines")}, o.branch
}

// initPublish commits the profile's staged store (the first baseline,
// its history line and the calibration) to the local branch, under
// baselines/<profile>/, keeping what the branch holds for other profiles.
// It does not push: the team pushes the branch with the files init wrote.
func initPublish(ctx context.Context, s *Streams, o initOptions, staging baseline.Store, branch string) (string, error) {
	repo := gitstore.Repo{Dir: o.dir, Environ: s.environ()} // no Remote: the local branch only
	src := staging.Dir(o.profile)
	res, err := repo.Promote(ctx, gitstore.Promotion{
		Branch:  branch,
		Dir:     "baselines",
		Message: fmt.Sprintf("perfgate init: first baseline and calibration of %s", o.profile),
		Apply: func(root string) error {
			dst := baseline.Store{Root: root}.Dir(o.profile)
			if err := os.RemoveAll(dst); err != nil {
				return err
			}
			return os.CopyFS(dst, os.DirFS(src))
		},
	})
	if err != nil {
		return "", exitf(ExitRunFailed, "init: committing the first baseline to the branch %s: %v; everything measured is kept in %s: commit its files under baselines/%s/ on the branch %s (or fix the checkout and rerun init with --force)",
			branch, err, src, o.profile, branch)
	}
	return res.Commit, nil
}
