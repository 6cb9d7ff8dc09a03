package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/command"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// runAnyCell runs one cell of either kind: a kind: command cell runs its
// command once per trial (output files under DIR/commands/<cell>/), a
// serving cell goes to the load generator.
func runAnyCell(ctx context.Context, cfg loadgen.Config, m *workload.Manifest, trials int, path string, o *runOptions) (*result.Result, error) {
	if !m.IsCommand() {
		return runCell(ctx, cfg, m, trials, path, o.saveDetailed)
	}
	c := &command.Trials{Dir: filepath.Join(o.out, "commands"), BaseEnv: os.Environ(), ToolVersion: Version}
	return c.Run(ctx, m, trials)
}
