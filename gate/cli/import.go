package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/vllmbench"
)

func init() { register(newImportCmd) }

// newImportCmd builds `perfgate import`, the parent of the importers.
func newImportCmd(s *Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Convert other tools' benchmark files into perfgate result files",
	}
	cmd.AddCommand(newImportVLLMBenchCmd(s))
	attachImporters(s, cmd)
	return cmd
}

func newImportVLLMBenchCmd(s *Streams) *cobra.Command {
	var out, name string
	var gpus int
	cmd := &cobra.Command{
		Use:   "vllm-bench FILE... -o OUT.json",
		Short: "Import `vllm bench serve --save-result` JSON files, one trial per file",
		Long: `Import vllm bench serve --save-result files as the trials of one cell.

The files must come from the same benchmark (prompt count, request rate,
burstiness, max concurrency, endpoint, model). The cell's identity is hashed
from those parameters and the mean input and output lengths, not from
--metadata, so the same benchmark run on two machines compares. Metadata
keys go into the fingerprint as meta.<key>.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := importTarget(out, name, gpus)
			if err != nil {
				return err
			}
			r, err := vllmbench.ImportFiles(args, vllmbench.Options{Cell: name, GPUs: gpus, ToolVersion: Version})
			if err != nil {
				return exitf(ExitInvalid, "import vllm-bench: %w", err)
			}
			if err := result.Write(out, r); err != nil {
				return fmt.Errorf("import vllm-bench: %w", err)
			}
			for _, n := range r.Notes {
				fmt.Fprintf(s.Err, "note: %s\n", n)
			}
			fmt.Fprintf(s.Out, "wrote %s: cell %q, %d trials, hash %.12s\n", out, name, len(r.Trials), r.Workload.Hash)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result file to write")
	cmd.Flags().StringVar(&name, "name", "", "cell name (default: OUT's file name without extension)")
	cmd.Flags().IntVar(&gpus, "gpus", 0, "GPUs the server used; adds per-GPU throughput")
	return cmd
}

// importTarget checks an import's --out and --gpus and returns the cell
// name: --name, else the output file's name without its extension.
func importTarget(out, name string, gpus int) (string, error) {
	if out == "" {
		return "", exitf(ExitInvalid, "--out (-o) is required")
	}
	if gpus < 0 {
		return "", exitf(ExitInvalid, "--gpus %d: must be 0 (unknown) or positive", gpus)
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	}
	return name, nil
}
