package command

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// Trials runs the trials of kind: command workloads; it has the methods
// of pipeline.Trials (and of loadgen's Runner), so perfgate run and
// perfgate gate treat command cells like serving cells and their result
// files compare and gate the same way.
type Trials struct {
	// Dir receives each cell's output files, Dir/<cell>/trial-NN.json.
	Dir string
	// BaseEnv is the environment the command inherits (os.Environ()).
	BaseEnv []string
	// ToolVersion is recorded in results.
	ToolVersion string
}

// Prepare has no server to wait for; the result's server records only the
// GPU count.
func (c *Trials) Prepare(_ context.Context, m *workload.Manifest) (result.Server, error) {
	if !m.IsCommand() || m.Command == nil {
		return result.Server{}, fmt.Errorf("workload %s is not a kind: command workload", m.Cell)
	}
	return result.Server{GPUs: m.GPUs}, nil
}

// NewResult returns an empty result for m.
func (c *Trials) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return &result.Result{
		Schema:   result.Schema,
		Tool:     result.Tool{Name: "perfgate", Version: c.ToolVersion},
		Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash, Spec: m.Spec},
		Server:   srv,
		Complete: true,
		Source:   "perfgate run",
		Trials:   []result.Trial{},
	}
}

// RunTrials appends n trials of m to res. A failing command is an invalid
// trial (see Run); a command that cannot be started, or cancellation,
// stops the run with res marked incomplete.
func (c *Trials) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	if m.Command == nil {
		return fmt.Errorf("workload %s: no command", m.Cell)
	}
	spec := Spec{Argv: m.Command.Argv, Env: m.Command.Env, BaseEnv: c.BaseEnv, Timeout: m.Command.Timeout}
	dir := filepath.Join(c.Dir, m.Cell)
	defer func() { res.FinishedAt = time.Now().UTC() }()
	for k := 0; k < n; k++ {
		idx := len(res.Trials)
		t, err := Run(ctx, spec, idx, dir)
		if err != nil {
			res.Complete, res.IncompleteReason = false, err.Error()
			return fmt.Errorf("%s: %w", m.Cell, err)
		}
		res.Trials = append(res.Trials, t)
	}
	return nil
}

// Run runs trials of m (its own Prepare and NewResult), for callers
// without a pipeline such as perfgate run.
func (c *Trials) Run(ctx context.Context, m *workload.Manifest, n int) (*result.Result, error) {
	srv, err := c.Prepare(ctx, m)
	if err != nil {
		return nil, err
	}
	res := c.NewResult(m, srv)
	res.StartedAt = time.Now().UTC()
	return res, c.RunTrials(ctx, m, res, n)
}
