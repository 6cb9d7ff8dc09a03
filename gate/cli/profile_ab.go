package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/profiling"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// abProfile is perfgate ab's kernel profile: both builds are at hand, so
// after the verdict each arm runs one short profiled trial of the worst
// regressed workload (profiling.when on-regression, or always), arm A
// first, in a session of its own (a launched arm's server is started once
// more; a resident one is the session the blocks used). Each arm's trace
// and op summary go under <output>/<arm>/profiles/. A failure on either
// arm is the section's note; the verdict is already decided.
func abProfile(ctx context.Context, x *abExperiment, p *abPlan, out *pipeline.Outcome) *verdict.KernelDiff {
	if out == nil || out.Comparison == nil || out.RunErr != nil {
		return nil
	}
	m := profiling.Choose(out.Comparison, p.ms, p.cfg.Profiling.Mode())
	if m == nil {
		return nil
	}
	var ops [2]*baseline.Ops
	for i, a := range x.arms {
		fmt.Fprintf(x.s.Err, "ab: profiling one trial of %s on arm %s (the verdict is already decided)\n", m.Cell, a.name)
		o, err := abProfileArm(ctx, x, p, i, m)
		if err != nil {
			fmt.Fprintf(x.s.Err, "perfgate: warning: kernel profile of %s on arm %s: %v\n", m.Cell, a.name, err)
			return &verdict.KernelDiff{Workload: m.Cell, Error: fmt.Sprintf("arm %s: %v", a.name, err)}
		}
		ops[i] = o
	}
	return explain.Kernels(m.Cell, ops[0].Trace, ops[1].Trace, &ops[0].Summary, &ops[1].Summary, nil)
}

// abProfileArm takes arm i's profile of m.
func abProfileArm(ctx context.Context, x *abExperiment, p *abPlan, i int, m *workload.Manifest) (*baseline.Ops, error) {
	a := x.arms[i]
	g := &gateProfile{cfg: p.cfg.Profiling, env: a.env, getenv: x.s.getenv, outDir: filepath.Join(x.dir, a.name), log: x.s.Err}
	eng := engineOf(abNonNil(x.results[i]), m.Cell)
	apiKey := config.APIKey(x.s.getenv)
	take := func(ctx context.Context, sess *session.Session) (*baseline.Ops, error) {
		return g.capture(ctx, sess.Trials(), sess.URL, apiKey, m, eng)
	}
	if sess := x.resident[i]; sess != nil {
		return take(ctx, sess)
	}
	o := x.so
	o.Command, o.Env, o.URL, o.Engine = a.command, a.env, a.url, a.engine
	o.Log = abBlockLog(x.so.Log, x.dir, a.name, 0)
	var ops *baseline.Ops
	err := session.Run(ctx, o, func(ctx context.Context, sess *session.Session) error {
		var err error
		ops, err = take(ctx, sess)
		return err
	})
	return ops, err
}
