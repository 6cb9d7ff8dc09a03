package cli

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/workload"
	"github.com/spf13/cobra"
)

func init() { register(newPlanCmd) }

func newPlanCmd(s *Streams) *cobra.Command {
	var files []string
	var asJSON, asVLLM bool
	cmd := &cobra.Command{
		Use:   "plan -w FILE [--json]",
		Short: "Show what a workload sends: per cell the hash, lengths, load and arrival span",
		Long: "plan expands workload files into their cells and prints, per cell, the name,\n" +
			"hash, request count, input and output length summary, rate, burstiness,\n" +
			"concurrency and the span of arrival offsets. --json prints every request.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(files) == 0 {
				return exitf(ExitInvalid, "plan: -w FILE is required")
			}
			l := workload.Loader{Warn: func(e *workload.Error) { fmt.Fprintln(s.Err, e) }}
			ms, err := l.LoadPaths(files)
			if err != nil {
				n := validatePrint(s, err)
				return exitf(ExitInvalid, "invalid workloads: %d problem(s)", n)
			}
			if len(ms) == 0 {
				return exitf(ExitInvalid, "plan: no cells to plan (see the warnings above)")
			}
			if asVLLM {
				return writePlanVLLM(s, ms)
			}
			if asJSON {
				return workload.WritePlanJSON(s.Out, ms)
			}
			return workload.WritePlan(s.Out, ms)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "workload", "w", nil, "workload file or directory (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every request as JSON")
	cmd.Flags().BoolVar(&asVLLM, "as-vllm-cli", false, "print each cell as the vllm bench serve command line that sends the same load")
	return cmd
}
