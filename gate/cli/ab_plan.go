package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// newABPlanCmd builds `perfgate ab plan DIR --change 5%`: from a finished
// experiment's comparison, how many blocks and how much time a given
// change needs, at each gated metric's measured noise (ab.DesignOf) and
// the measured time per block. It runs nothing.
func newABPlanCmd(s *Streams) *cobra.Command {
	var change string
	cmd := &cobra.Command{
		Use:   "plan DIR --change 5%",
		Short: "How many blocks (and how much time) a change needs, from a finished ab experiment's measured noise",
		Long: `plan reads DIR/comparison.json of a finished perfgate ab experiment and says,
for every gated metric, at the noise its block pairs measured and the measured
time per block (start-up included):

  - the chance the blocks run find a worsening of --change (80 % is the aim);
  - the blocks (both arms, a multiple of four) that find it with 80 % power,
    and what they cost;
  - the blocks at which an unchanged B passes at the metric's tolerance in 90 %
    of runs.

--change is a percent for relative metrics ("5%") or points for the ratio
metrics such as success_rate ("0.5pp"); metrics of the other kind are left out.
The predictions are those of the report (docs/statistics.md, "Paired A/B
verdict"); nothing is run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return abPlanMain(s, args[0], change) },
	}
	cmd.Flags().StringVar(&change, "change", "", `the worsening to plan for: "5%", or "0.5pp" for ratio metrics (required)`)
	return cmd
}

// parseChange reads --change: a positive percent ("5%", "5 %") or points
// ("0.5pp"); absolute is true for points. The value is a fraction (0.05).
func parseChange(s string) (v float64, absolute bool, err error) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasSuffix(t, "pp"):
		t, absolute = strings.TrimSuffix(t, "pp"), true
	case strings.HasSuffix(t, "%"):
		t = strings.TrimSuffix(t, "%")
	default:
		return 0, false, fmt.Errorf("ab plan: --change %q: want a percent (5%%) or points (0.5pp)", s)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(x > 0) || x > 1000 {
		return 0, false, fmt.Errorf("ab plan: --change %q: want a positive percent (5%%) or points (0.5pp)", s)
	}
	return x / 100, absolute, nil
}

// readABComparison reads DIR/comparison.json and checks it is a paired
// one.
func readABComparison(dir string) (*verdict.Comparison, error) {
	path := filepath.Join(dir, "comparison.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ab plan: %s: no comparison (is %s the output directory of a finished perfgate ab?)", path, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("ab plan: %w", err)
	}
	var c verdict.Comparison
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("ab plan: %s: %w", path, err)
	}
	if c.AB == nil {
		return nil, fmt.Errorf("ab plan: %s: not the comparison of an A/B experiment (no \"ab\" section): plan needs block pairs", path)
	}
	return &c, nil
}

// abPlanMain prints the plan of every gated metric of DIR's experiment
// for a worsening of change.
func abPlanMain(s *Streams, dir, change string) error {
	if change == "" {
		return exitf(ExitInvalid, "ab plan: --change is required (for example --change 5%%)")
	}
	x, absolute, err := parseChange(change)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	c, err := readABComparison(dir)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	p := ab.ForChange(c, x, absolute)
	if len(p.Rows) == 0 {
		return exitf(ExitInvalid, "ab plan: %s: no gated metric in %s with measured noise", dir, map[bool]string{false: "percent", true: "points"}[absolute])
	}
	return report.ChangePlan(s.Out, dir, c, p, change)
}
