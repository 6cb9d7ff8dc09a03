package cli

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/profiling"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/workload"
)

// runProfiles is `perfgate run --profiling always`: after the cells, one
// short profiled trial of every serving cell whose mode is always (the
// flag, or the workload's own profiling: key), its trace and op summary
// written under <out>/profiles/, which `baseline update --from <out>`
// promotes beside the baselines. run has no verdict, so on-regression
// profiles nothing. A profile that fails is a warning: the results stand.
func runProfiles(ctx context.Context, s *Streams, sess *session.Session, mode trace.Mode, cfg config.Profiling, env []string, out string, ms []*workload.Manifest, measured []*result.Result) {
	g := &gateProfile{cfg: cfg, env: env, getenv: s.getenv, outDir: out, log: s.Err}
	for _, m := range ms {
		if m.IsCommand() || profiling.ModeOf(m, mode) != trace.Always || sess.URL == "" {
			continue
		}
		fmt.Fprintf(s.Err, "profiling one trial of %s\n", m.Cell)
		ops, err := g.capture(ctx, sess.Trials(), sess.URL, config.APIKey(s.getenv), m, engineOf(measured, m.Cell))
		if err != nil {
			fmt.Fprintf(s.Err, "perfgate: warning: kernel profile of %s: %v (the results stand)\n", m.Cell, err)
			continue
		}
		fmt.Fprintf(s.Out, "%s: profile %s (%d steps)\n", m.Cell, ops.Trace, ops.Summary.Steps)
	}
}
