package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/vllmbench"
)

func init() { register(newExportCmd) }

// newExportCmd builds `perfgate export`, the parent of the exporters.
func newExportCmd(s *Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Convert perfgate result files into other tools' formats",
	}
	cmd.AddCommand(newExportVLLMBenchCmd(s))
	return cmd
}

func newExportVLLMBenchCmd(s *Streams) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "vllm-bench RESULT -o DIR",
		Short: "Write each valid trial as a `vllm bench serve --save-result` JSON file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return exitf(ExitInvalid, "--out (-o) is required")
			}
			r, err := result.Read(args[0])
			if err != nil {
				return exitf(ExitInvalid, "export vllm-bench: %w", err)
			}
			files, skipped, err := vllmbench.Export(r)
			if err != nil {
				return exitf(ExitInvalid, "export vllm-bench: %s: %w", args[0], err)
			}
			paths, err := vllmbench.WriteDir(dir, files)
			if err != nil {
				return fmt.Errorf("export vllm-bench: %w", err)
			}
			if len(skipped) > 0 {
				fmt.Fprintf(s.Err, "note: skipped invalid trials %v\n", skipped)
			}
			for _, p := range paths {
				fmt.Fprintln(s.Out, p)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "out", "o", "", "directory to write the files into")
	return cmd
}
