package cli

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/benchcli"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// writePlanVLLM prints, per cell, the `vllm bench serve` command line that
// sends the same load (benchcli.ToVLLM), with what vLLM's client cannot
// express as comments under it.
func writePlanVLLM(s *Streams, ms []*workload.Manifest) error {
	for i, m := range ms {
		var spec result.Spec
		if err := spec.UnmarshalJSON(m.Spec); err != nil {
			return fmt.Errorf("plan: cell %s: %w", m.Cell, err)
		}
		argv, lost, err := benchcli.ToVLLM(spec)
		if err != nil {
			return exitf(ExitInvalid, "plan --as-vllm-cli: %w", err)
		}
		if i > 0 {
			fmt.Fprintln(s.Out)
		}
		fmt.Fprintf(s.Out, "# %s (hash %.12s)\n%s\n", m.Cell, m.Hash, benchcli.ShellLine(argv))
		for _, l := range lost {
			fmt.Fprintf(s.Out, "#   not in the line: %s\n", l)
		}
	}
	return nil
}
