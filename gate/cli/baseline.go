package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/gitstore"
	"github.com/perfgate/perfgate/gate/merge"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func init() { register(newBaselineCmd) }

// newBaselineCmd builds `perfgate baseline` and its `update` subcommand,
// which promotes a finished, valid run to baselines/<profile>/.
func newBaselineCmd(s *Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Manage stored baselines",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBaselineUpdateCmd(s))
	return cmd
}

type baselineUpdateOptions struct {
	from, profile, root string
	gitSHA, gitRef      string
	req                 baseline.Requirements
	configFile          string
	acceptNoisy         bool
	acceptChange        string
	branch, remote      string
}

func newBaselineUpdateCmd(s *Streams) *cobra.Command {
	o := baselineUpdateOptions{req: policyRequirements(verdict.DefaultPolicy())}
	cmd := &cobra.Command{
		Use:   "update --from DIR --profile P",
		Short: "Promote a valid run's results to baselines/<profile>/",
		Long: `update copies every result file of --from (a file, a directory of result
files, or a perfgate output directory with results/) to
<baselines>/<profile>/<cell>.json with provenance (git sha and ref, date,
server version), and appends the trial values to
<baselines>/<profile>/history/<cell>.jsonl.

It skips, naming it, every run that is incomplete, has fewer valid
trials than --min-trials, has more invalid trials than
--max-invalid-share, repeats another file's workload cell, or whose gated
metric spreads across trials far more than usual (an F test against the
calibration, the history's pooled spread, else the policy's assumed 5 %;
docs/baselines.md), unless --accept-noisy keeps it with a recorded
warning; the other runs are written. Exit 0: all written; 3: some
written, the skipped ones named; 2: nothing written. It warns below 10 valid trials per cell. The gate rules
of perfgate.yaml (--config) with each workload's gate list are stored with
the baseline: later gates never apply looser ones. --git-sha and --git-ref
default to $GITHUB_SHA and $GITHUB_REF. Commit the changed files: a
baseline change is a reviewed diff.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBaselineUpdate(s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "result file or directory to promote (required)")
	f.StringVar(&o.profile, "profile", "", "baseline profile: hardware + model + serving config (required)")
	f.StringVar(&o.root, "baselines", "baselines", "baseline store directory")
	f.StringVar(&o.gitSHA, "git-sha", "", "commit the run measured (default $GITHUB_SHA)")
	f.StringVar(&o.gitRef, "git-ref", "", "ref the run measured (default $GITHUB_REF)")
	f.IntVar(&o.req.MinTrials, "min-trials", o.req.MinTrials, "fewest valid trials a cell needs")
	f.Float64Var(&o.req.MaxInvalidShare, "max-invalid-share", o.req.MaxInvalidShare, "largest share of invalid trials a cell may have")
	f.StringVar(&o.configFile, "config", "", "configuration file whose gate rules are stored with the baseline (default "+config.DefaultFile+" when it exists)")
	f.StringVar(&o.branch, "branch", "", "commit the promotion to this git branch (e.g. "+gitstore.DefaultBranch+") and push it to --remote, instead of writing --baselines in the checkout; --baselines names the store's directory inside the branch")
	f.StringVar(&o.remote, "remote", "origin", "with --branch: the remote fetched from and pushed to (none in the repository: the local branch only)")
	f.BoolVar(&o.acceptNoisy, "accept-noisy", false, "promote a run whose spread is far above usual, recording a warning with it")
	f.StringVar(&o.acceptChange, "accept-change", "", "record why this promotion's change of level is accepted: the drift guard never compares across it")
	return cmd
}

func runBaselineUpdate(s *Streams, o baselineUpdateOptions) error {
	switch {
	case o.from == "":
		return exitf(ExitInvalid, "--from is required")
	case o.profile == "":
		return exitf(ExitInvalid, "--profile is required")
	case o.req.MinTrials < 1:
		return exitf(ExitInvalid, "--min-trials %d: must be at least 1", o.req.MinTrials)
	case o.req.MaxInvalidShare < 0 || o.req.MaxInvalidShare > 1:
		return exitf(ExitInvalid, "--max-invalid-share %v: must be in [0, 1]", o.req.MaxInvalidShare)
	}
	if err := baseline.ValidateProfile(o.profile); err != nil {
		return exitf(ExitInvalid, "--profile: %w", err)
	}
	srcs, err := merge.Read([]string{o.from})
	if err != nil {
		return exitf(ExitInvalid, "--from: %w", err)
	}
	var runs []baseline.Run
	for _, src := range srcs {
		// A share cell's trials at the baseline's rate measured the
		// candidate at another run's load: the comparison there is
		// rebuilt from the share cell's own baseline every time.
		if at := src.Result.BaselineRate; at != nil {
			fmt.Fprintf(s.Err, "perfgate: skipping %s: %s ran at the baseline's rate; its baseline is %s's\n", src.Path, src.Result.Workload.Cell, at.Cell)
			continue
		}
		runs = append(runs, baseline.Run{Source: src.Path, Result: src.Result})
	}
	prov := result.Provenance{
		GitSHA:     baselineOrEnv(o.gitSHA, s.getenv("GITHUB_SHA")),
		GitRef:     baselineOrEnv(o.gitRef, s.getenv("GITHUB_REF")),
		PromotedAt: s.now().UTC().Truncate(time.Second),
		How:        "perfgate baseline update --from " + o.from,
		Accepted:   strings.TrimSpace(o.acceptChange),
	}
	promote := func(root string) ([]string, []baseline.Skip, error) {
		paths, skipped, err := baselinePromote(s, baseline.Store{Root: root}, o, runs, prov)
		if err == nil {
			paths = append(paths, promoteOps(s.Err, baseline.Store{Root: root}, o.profile, o.from, paths)...)
		}
		return paths, skipped, err
	}
	var paths []string
	var skipped []baseline.Skip
	if spec, onBranch, err := baselineBranch(o); err != nil {
		return err
	} else if onBranch {
		paths, skipped, err = baselineUpdateBranch(s, spec, o, promote)
		if err != nil {
			return err
		}
	} else if paths, skipped, err = promote(o.root); err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(s.Out, "wrote %s\n", p)
	}
	if len(skipped) > 0 {
		return exitf(ExitRunFailed, "baseline update: wrote %d workload(s), skipped %d: %w\npromote the skipped workloads again once their runs pass", len(paths), len(skipped), baseline.SkipError(skipped))
	}
	return nil
}

// baselinePromote screens runs against store and writes those that pass;
// it returns the files written and the runs skipped, and an error when
// nothing could be written.
func baselinePromote(s *Streams, store baseline.Store, o baselineUpdateOptions, runs []baseline.Run, prov result.Provenance) ([]string, []baseline.Skip, error) {
	runs, skipped := baseline.Partition(runs, o.req)
	noisy, settings, err := baselineScreen(s, store, o, runs)
	if err != nil {
		return nil, nil, err
	}
	prov.Settings = settings
	runs, skipped = baseline.Without(runs, noisy), append(skipped, noisy...)
	if len(runs) == 0 {
		return nil, nil, exitf(ExitInvalid, "baseline update: nothing written: %w", baseline.SkipError(skipped))
	}
	paths, err := store.Update(o.profile, runs, prov, o.req)
	if err != nil {
		if len(paths) == 0 {
			return nil, nil, exitf(ExitInvalid, "baseline update: %w", err)
		}
		return nil, nil, fmt.Errorf("baseline update: %w (already written: %v)", err, paths)
	}
	return paths, skipped, nil
}

// baselineOrEnv returns v, or env (the environment's value) when v is empty.
func baselineOrEnv(v, env string) string {
	if v != "" {
		return v
	}
	return env
}
