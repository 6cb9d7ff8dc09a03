package cli

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/gate/command"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// runAnyCell runs one cell of either kind: a kind: command cell runs its
// command once per trial (output files under DIR/commands/<cell>/), a
// serving cell goes to the load generator.
func runAnyCell(ctx context.Context, cfg loadgen.Config, m *workload.Manifest, trials int, path string, o *runOptions) (*result.Result, error) {
	if m.IsCapacity() || m.SaturationShare > 0 {
		return runCapacityCell(ctx, cfg, m, trials, o)
	}
	if !m.IsCommand() {
		return runCell(ctx, cfg, m, trials, path, o.saveDetailed)
	}
	c := &command.Trials{Dir: filepath.Join(o.out, "commands"), BaseEnv: os.Environ(), ToolVersion: Version}
	return c.Run(ctx, m, trials)
}

// runCapacityCell runs a cell whose load is found at run time (a kind:
// capacity search, or a rate that is a share of saturation) through
// pipeline.Capacity over the load generator, with a line per probe on
// stderr. --save-detailed does not apply: a search's probes are many
// short runs at different loads.
func runCapacityCell(ctx context.Context, cfg loadgen.Config, m *workload.Manifest, trials int, o *runOptions) (*result.Result, error) {
	r, err := loadgen.New(cfg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c := pipeline.Capacity{Serving: r, Log: cfg.Progress}
	started := time.Now().UTC()
	srv, err := c.Prepare(ctx, m)
	res := c.NewResult(m, srv)
	res.StartedAt = started
	if err != nil {
		res.Complete, res.IncompleteReason = false, err.Error()
		res.FinishedAt = time.Now().UTC()
		return res, err
	}
	err = c.RunTrials(ctx, m, res, trials)
	res.FinishedAt = time.Now().UTC()
	if o.saveDetailed {
		res.Notes = append(res.Notes, "--save-detailed does not apply to a capacity or share-of-saturation cell: no per-request records written")
	}
	return res, err
}
