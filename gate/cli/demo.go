package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/demo"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
	"github.com/perfgate/perfgate/workloads"
)

func init() { register(newDemoCmd) }

// newDemoCmd builds `perfgate demo`: the whole gate on a laptop, against
// the in-process simulator, with a regression it must catch.
func newDemoCmd(s *Streams) *cobra.Command {
	var (
		workloads []string
		dir       string
		scale     float64
		trials    int
		profile   string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "See the gate catch a regression: simulator, smoke workloads, injected decode slowdown",
		Long: `demo starts the simulated vLLM server in process (on 127.0.0.1), records a
baseline with the smoke workloads, makes the simulator's decode step slower,
runs the workloads again as the candidate, prints the verdict, and writes the
pull-request comment perfgate would post. It exits 0 when the gate caught the
slowdown (or, with --decode-scale 1, when an unchanged candidate passed) and 1
when it did not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ms []*workload.Manifest
			var err error
			if len(workloads) == 0 {
				ms, err = demoEmbedded()
			} else {
				ms, err = workload.LoadPaths(workloads)
			}
			if err != nil {
				return exitf(ExitInvalid, "demo: %w", err)
			}
			mode, err := trace.ParseMode(profile)
			if err != nil {
				return exitf(ExitInvalid, "--profiling: %w", err)
			}
			if dir == "" {
				if dir, err = os.MkdirTemp("", "perfgate-demo-"); err != nil {
					return err
				}
			}
			out, err := demo.Run(cmd.Context(), s.Out, demo.Options{
				Manifests: ms, Dir: dir, DecodeScale: scale, Trials: trials, Version: Version, Progress: s.Err, Profile: mode,
			})
			if err != nil {
				return exitf(ExitRunFailed, "%w", err)
			}
			fmt.Fprintf(s.Out, "\nThe PR comment perfgate would post: %s\nResults, baseline and comparison: %s\n", out.CommentPath, dir)
			return demoCheck(out.Comparison, scale)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&workloads, "workloads", nil, "workload files or globs (default: the embedded workloads/smoke set)")
	f.StringVar(&dir, "out", "", "directory for results and reports (default: a new temporary directory)")
	f.Float64Var(&scale, "decode-scale", 1.15, "decode cost multiplier of the candidate (1 = unchanged)")
	f.IntVar(&trials, "trials", 0, "trials per workload and arm (default: each workload's trials.min)")
	f.StringVar(&profile, "profiling", "never", "profile one trial of the worst regressed workload on each arm and list the kernels whose time per step moved: on-regression, always or never (as gate, ab and run)")
	// --profile was the flag's first name; gate's --profile names the
	// baseline profile, so the demo says profiling like every command.
	f.StringVar(&profile, "profile", "never", "")
	_ = f.MarkDeprecated("profile", "use --profiling")
	return cmd
}

// demoEmbedded expands the smoke workloads compiled into the binary, so the
// demo needs no checkout. Errors name the file as it is in the repository.
func demoEmbedded() ([]*workload.Manifest, error) {
	names, err := fs.Glob(workloads.Smoke, "smoke/*.yaml")
	if err != nil {
		return nil, err
	}
	var ms []*workload.Manifest
	for _, name := range names {
		data, err := fs.ReadFile(workloads.Smoke, name)
		if err != nil {
			return nil, err
		}
		f, err := workload.Parse(path.Join("workloads", name), data)
		if err != nil {
			return nil, err
		}
		cells, _, err := f.Expand()
		if err != nil {
			return nil, err
		}
		ms = append(ms, cells...)
	}
	return ms, nil
}

// demoCheck says whether the demo showed what it promises: a slowed
// candidate must be a regression in a decode metric, an unchanged one a
// pass.
func demoCheck(c *verdict.Comparison, scale float64) error {
	if scale == 1 {
		if c.Verdict == verdict.Regression {
			return exitf(ExitRegression, "demo: an unchanged candidate was reported as a regression")
		}
		return nil
	}
	if scale > 1 && c.Verdict != verdict.Regression {
		return exitf(ExitRegression, "demo: the decode slowdown x%g was not caught (verdict %s)", scale, c.Verdict)
	}
	return nil
}
