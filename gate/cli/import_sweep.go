package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/importers"
)

// newImportSweepCmd builds `perfgate import vllm-sweep DIR -o OUTDIR`.
func newImportSweepCmd(s *Streams) *cobra.Command {
	var out, name string
	var gpus int
	cmd := &cobra.Command{
		Use:   "vllm-sweep DIR -o OUTDIR",
		Short: "Import a `vllm bench sweep serve` experiment directory, one cell per combination",
		Long: `Import a vllm bench sweep serve experiment directory (OUTPUT_DIR/EXPERIMENT):
every combination directory SERVE-...-BENCH-... becomes one cell named after
it (prefixed with --name when given), its run=N.json files the trials.
warmup.json and summary.json are not trials; run=N.failure.json files are
reported. OUTDIR receives one result file per cell. See docs/importers.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return exitf(ExitInvalid, "--out (-o) is required")
			}
			if strings.HasSuffix(out, ".json") {
				return exitf(ExitInvalid, "--out %s: give a directory (one result per combination)", out)
			}
			if gpus < 0 {
				return exitf(ExitInvalid, "--gpus %d: must be 0 (unknown) or positive", gpus)
			}
			var files []importers.SweepFile
			err := filepath.WalkDir(args[0], func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, err := filepath.Rel(args[0], p)
				files = append(files, importers.SweepFile{Path: filepath.ToSlash(rel), Data: data})
				return err
			})
			if err != nil {
				return exitf(ExitInvalid, "import vllm-sweep: %w", err)
			}
			results, notes, err := importers.ImportSweep(files, importers.Options{Name: name, GPUs: gpus, ToolVersion: Version})
			for _, n := range notes {
				fmt.Fprintf(s.Err, "note: %s\n", n)
			}
			if err != nil {
				return exitf(ExitInvalid, "import vllm-sweep %s: %w", args[0], err)
			}
			return writeImported(s, "vllm-sweep", out, results)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory to write one result per combination into")
	cmd.Flags().StringVar(&name, "name", "", "prefix of the cells' names")
	cmd.Flags().IntVar(&gpus, "gpus", 0, "GPUs the server used; adds per-GPU throughput")
	return cmd
}
