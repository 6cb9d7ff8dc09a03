package cli

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/workload"
	"github.com/spf13/cobra"
)

func init() { register(newValidateCmd) }

func newValidateCmd(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE|DIR...",
		Short: "Check workload files strictly and expand every cell",
		Long: "validate parses, checks and expands workload files (directories are searched for\n" +
			"*.yaml and *.yml). Each problem is printed as file:line: message on stderr and the\n" +
			"exit status is 2; warnings (an optional dataset file that is missing) do not fail.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l := workload.Loader{Warn: func(e *workload.Error) { fmt.Fprintln(s.Err, e) }}
			ms, err := l.LoadPaths(args)
			if err != nil {
				n := validatePrint(s, err)
				return exitf(ExitInvalid, "invalid workloads: %d problem(s)", n)
			}
			// What a run would refuse of the headers read from the
			// environment (a secret too short to hide), where they are set.
			if errs := loadgen.CheckEnvHeaders(ms, s.lookupEnv); len(errs) > 0 {
				for _, e := range errs {
					fmt.Fprintln(s.Err, e)
				}
				return exitf(ExitInvalid, "invalid workloads: %d problem(s)", len(errs))
			}
			for _, m := range ms {
				fmt.Fprintf(s.Out, "ok  %s  %s  %d requests  (%s)\n", m.Cell, m.Hash[:12], len(m.Requests), m.Source)
			}
			fmt.Fprintf(s.Out, "%d cell(s) valid\n", len(ms))
			return nil
		},
	}
}

// validatePrint writes each problem of a (possibly joined) error on its own
// line of s.Err and returns how many there were.
func validatePrint(s *Streams, err error) int {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		n := 0
		for _, e := range j.Unwrap() {
			n += validatePrint(s, e)
		}
		return n
	}
	var we *workload.Error
	if errors.As(err, &we) {
		fmt.Fprintln(s.Err, we)
		return 1
	}
	fmt.Fprintln(s.Err, err)
	return 1
}
