package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/benchcli"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newWorkloadCmd) }

// newWorkloadCmd is `perfgate workload`, the parent of workload tools.
func newWorkloadCmd(s *Streams) *cobra.Command {
	cmd := &cobra.Command{Use: "workload", Short: "Write workload files"}
	cmd.AddCommand(newWorkloadFromCLICmd(s))
	return cmd
}

func newWorkloadFromCLICmd(s *Streams) *cobra.Command {
	var name, out string
	var noModel bool
	cmd := &cobra.Command{
		Use:   "from-cli [--name NAME] [-o FILE] -- vllm bench serve FLAGS...",
		Short: "Write the workload file equivalent to a `vllm bench serve` command line",
		Long: `from-cli turns a vllm bench serve command line into a workload file: dataset
and lengths, seed, request count, rate, burstiness, concurrency, ramp-up,
endpoint, model, sampling, SLOs (--goodput), percentiles, extra body and
headers. vLLM's defaults fill what the line leaves out, so the file says what
the command meant. Flags about where and how to run (--base-url,
--save-result) are listed as ignored, flags perfgate cannot express as
unsupported; a credential in a --header goes into an {env: NAME} reference,
never into the file. The file is checked by expanding it before it is
written. See docs/workloads.md#from-a-vllm-bench-serve-command-line.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				if out != "" {
					name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
				} else {
					return exitf(ExitInvalid, "from-cli: --name (or -o FILE) is required")
				}
			}
			base := "."
			if out != "" {
				base = filepath.Dir(out)
			}
			tr, err := benchcli.FromVLLM(args, benchcli.Options{Name: name, NoModel: noModel, SHA256: fileSHA256(base)})
			if err != nil {
				return exitf(ExitInvalid, "from-cli: %w", err)
			}
			if err := checkWorkloadText(base, tr.YAML); err != nil {
				return exitf(ExitInvalid, "from-cli: the translated workload is invalid: %w", err)
			}
			for _, f := range tr.Ignored {
				fmt.Fprintf(s.Err, "ignored: %s (how to run, not what to send)\n", f)
			}
			for _, u := range tr.Unsupported {
				fmt.Fprintf(s.Err, "unsupported: %s\n", u)
			}
			for _, n := range tr.Notes {
				fmt.Fprintf(s.Err, "note: %s\n", n)
			}
			if out == "" {
				_, err := io.WriteString(s.Out, tr.YAML)
				return err
			}
			if err := os.WriteFile(out, []byte(tr.YAML), 0o644); err != nil {
				return fmt.Errorf("from-cli: %w", err)
			}
			fmt.Fprintf(s.Out, "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "workload name (default: -o FILE's name without extension)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "file to write (default: stdout)")
	cmd.Flags().BoolVar(&noModel, "no-model", false, "leave --model out: request the server's first model, as the shipped workloads do")
	return cmd
}

// fileSHA256 hashes a --dataset-path relative to the workload's directory,
// as the workload will resolve it.
func fileSHA256(base string) func(string) (string, error) {
	return func(p string) (string, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return workload.FileSHA256(p)
	}
}

// checkWorkloadText parses and expands text as a workload file in dir, so
// from-cli never writes a file perfgate would refuse.
func checkWorkloadText(dir, text string) error {
	f, err := workload.Parse(filepath.Join(dir, "from-cli.yaml"), []byte(text))
	if err != nil {
		return err
	}
	_, _, err = f.Expand()
	return err
}
