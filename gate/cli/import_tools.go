package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/importers"
	"github.com/perfgate/perfgate/gate/result"
)

// importTool is one importer of gate/importers and what its command says.
type importTool struct {
	name, use, short, long string
	parse                  func(name string, data []byte) ([]importers.Run, error)
}

var importTools = []importTool{
	{
		name: "guidellm", use: "guidellm FILE... -o OUT", short: "Import GuideLLM reports (benchmarks.json), one trial per benchmark and file",
		long: `Import GuideLLM reports (guidellm benchmark --output-path benchmarks.json).

Each benchmark of a report is one load point (its scheduling strategy); the
benchmarks of the same load point across files become the trials of one
cell. With one load point OUT may be a .json file; otherwise OUT is a
directory holding one result per load point, named NAME-<point> (c16,
rate4, sync, max). GuideLLM's inter-token latency becomes tpot_ms (the same
definition), request_latency e2el_ms; the ids it has no value for are
listed. See docs/importers.md.`,
		parse: importers.ParseGuideLLM,
	},
	{
		name: "genai-perf", use: "genai-perf FILE... -o OUT", short: "Import GenAI-Perf profile exports (profile_export_genai_perf.json), one trial per file",
		long: `Import GenAI-Perf profile exports (profile_export_genai_perf.json), one run
per file; files of the same load point become the trials of one cell.
inter_token_latency becomes tpot_ms (the same definition). The raw export
profile_export.json beside a summary is read too: its per-request records
are kept and give itl_ms (the summary has none). See docs/importers.md.`,
		parse: parseGenAIPerfBeside,
	},
	{
		name: "aiperf", use: "aiperf FILE... -o OUT", short: "Import AIPerf profile exports (profile_export_aiperf.json), one trial per file",
		long: `Import AIPerf profile exports (profile_export_aiperf.json), one run per
file; files of the same load point become the trials of one cell.
inter_token_latency becomes tpot_ms, inter_chunk_latency itl_ms. The
per-request export profile_export.jsonl beside a summary is read too and its
records kept. See docs/importers.md.`,
		parse: parseAIPerfBeside,
	},
	{
		name: "inference-perf", use: "inference-perf FILE... -o OUT", short: "Import inference-perf lifecycle reports (stage_N_lifecycle_metrics.json), one trial per file",
		long: `Import inference-perf lifecycle reports: stage_N_lifecycle_metrics.json (one
load stage each) or summary_lifecycle_metrics.json (every stage together, no
one load point). The run's config.yaml beside a report names the API, the
arrival process and the model, which the report lacks; without it the cell
matches only other inference-perf imports. Latencies in seconds become ms.
See docs/importers.md.`,
		parse: parseInferencePerfBeside,
	},
}

// parseInferencePerfBeside reads the config.yaml next to an inference-perf
// report, when there is one, and parses both.
func parseInferencePerfBeside(name string, data []byte) ([]importers.Run, error) {
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(name), "config.yaml"))
	if err != nil {
		if !os.IsNotExist(err) {
			return nil, err
		}
		cfg = nil
	}
	return importers.ParseInferencePerf(name, data, cfg)
}

// attachImporters adds one subcommand per importTools entry to parent.
func attachImporters(s *Streams, parent *cobra.Command) {
	for _, tool := range importTools {
		parent.AddCommand(newImportToolCmd(s, tool))
	}
	parent.AddCommand(newImportSweepCmd(s))
}

func newImportToolCmd(s *Streams, tool importTool) *cobra.Command {
	var out, name string
	var gpus int
	cmd := &cobra.Command{
		Use: tool.use, Short: tool.short, Long: tool.long,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := importTarget(out, name, gpus)
			if err != nil {
				return err
			}
			var runs []importers.Run
			for _, p := range args {
				data, err := os.ReadFile(p)
				var got []importers.Run
				if err == nil {
					got, err = tool.parse(p, data)
				}
				if err != nil {
					return exitf(ExitInvalid, "import %s: %w", tool.name, err)
				}
				runs = append(runs, got...)
			}
			results, err := importers.Build(runs, importers.Options{Name: name, GPUs: gpus, ToolVersion: Version})
			if err != nil {
				return exitf(ExitInvalid, "import %s: %w", tool.name, err)
			}
			return writeImported(s, tool.name, out, results)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result file (one load point) or directory (one result per load point)")
	cmd.Flags().StringVar(&name, "name", "", "cell name, or prefix of the cells' names (default: OUT's name without extension)")
	cmd.Flags().IntVar(&gpus, "gpus", 0, "GPUs the server used; adds per-GPU throughput")
	return cmd
}

// writeImported writes one result as OUT.json, or several into the
// directory OUT, and says what it wrote and what the files lack.
func writeImported(s *Streams, tool, out string, results []*result.Result) error {
	single := strings.HasSuffix(out, ".json")
	if single && len(results) > 1 {
		var cells []string
		for _, r := range results {
			cells = append(cells, r.Workload.Cell)
		}
		return exitf(ExitInvalid, "import %s: %d load points (%s): give a directory as -o, not the file %s", tool, len(results), strings.Join(cells, ", "), out)
	}
	for _, r := range results {
		path := out
		if !single {
			path = filepath.Join(out, result.FileName(r.Workload.Cell))
		}
		if err := result.Write(path, r); err != nil {
			return fmt.Errorf("import %s: %w", tool, err)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(s.Err, "note: %s\n", n)
		}
		fmt.Fprintf(s.Out, "wrote %s: cell %q, %d trials, hash %.12s\n", path, r.Workload.Cell, len(r.Trials), r.Workload.Hash)
	}
	return nil
}

// parseAIPerfBeside reads AIPerf's per-request export
// (profile_export.jsonl) next to a summary, when there is one.
func parseAIPerfBeside(name string, data []byte) ([]importers.Run, error) {
	return parseWithRaw(name, data, "profile_export.jsonl")
}

// parseGenAIPerfBeside reads GenAI-Perf's raw export (profile_export.json)
// next to a summary, when there is one, for its per-request data.
func parseGenAIPerfBeside(name string, data []byte) ([]importers.Run, error) {
	return parseWithRaw(name, data, "profile_export.json")
}

// parseWithRaw parses a profile export summary with the per-request file
// of the given name beside it, when there is one.
func parseWithRaw(name string, data []byte, rawBase string) ([]importers.Run, error) {
	rawName := filepath.Join(filepath.Dir(name), rawBase)
	raw, err := os.ReadFile(rawName)
	if err != nil {
		if !os.IsNotExist(err) {
			return nil, err
		}
		raw = nil
	}
	return importers.ParseProfileExportWithRaw(name, data, rawName, raw)
}
