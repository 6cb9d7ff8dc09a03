package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/merge"
)

func init() { register(newMergeCmd) }

// newMergeCmd builds `perfgate merge`: the last job of a sharded CI matrix
// combines the shards' result directories into one, which `perfgate gate
// --from` (or `perfgate compare`) then judges and comments on once.
func newMergeCmd(s *Streams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR|FILE... -o DIR",
		Short: "Combine the result directories of a sharded run into one",
		Long: `merge reads result files from each argument (a result file, a directory of
result files, or a perfgate gate output directory, whose results/ folder is
used) and writes one result file per workload cell to the -o directory.

A cell that appears in several shards must have the same workload hash in
each; its trials are concatenated and re-indexed. A part that stopped early
makes the merged cell incomplete, so it can never pass a gate.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitf(ExitInvalid, "--out (-o) is required: the directory to write merged results to")
			}
			srcs, err := merge.Read(args)
			if err != nil {
				return exitf(ExitInvalid, "merge: %w", err)
			}
			merged, err := merge.Results(srcs)
			if err != nil {
				return exitf(ExitInvalid, "merge: %w", err)
			}
			paths, err := merge.Write(out, merged)
			if err != nil {
				return fmt.Errorf("merge: writing %s: %w", out, err)
			}
			for i, m := range merged {
				trials := len(m.Result.Trials)
				fmt.Fprintf(s.Out, "%s: %d trials from %d file(s) -> %s\n", m.Result.Workload.Cell, trials, len(m.From), paths[i])
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory to write the merged result files to (required)")
	return cmd
}
