package session

import (
	"context"

	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server/fingerprint"
)

// Fingerprints collects the environment fingerprint once per server
// version, model and engine (which differ between serving and command
// cells) and hands each result its own copy, so the verdict can refuse
// comparisons across hardware. Argv and Env describe the server (or the
// benchmark command) when perfgate launched it; Scrub, when set, hides the
// workloads' header values in every entry.
type Fingerprints struct {
	Argv []string
	Env  map[string]string
	// Environ is the process environment: the env.* keys, and where
	// the tools (nvidia-smi, uname) are found and run (fingerprint.ExecIn).
	Environ []string
	Scrub   *redact.Scrubber
	// Ctx, when set, bounds the tools the fingerprint runs (nvidia-smi):
	// the command's context, so an interrupted run writes its results
	// without waiting for a hanging tool.
	Ctx   context.Context
	byKey map[string]map[string]string
}

// Get returns the fingerprint of a result against srv.
func (g *Fingerprints) Get(srv result.Server) map[string]string {
	key := srv.Version + "\x00" + srv.Model + "\x00" + srv.Engine
	fp, ok := g.byKey[key]
	if !ok {
		environ := g.Environ
		ctx := g.Ctx
		if ctx == nil {
			ctx = context.Background()
		}
		fp, _ = fingerprint.Collect(ctx, fingerprint.Options{
			Environ: func() []string { return environ }, ServerEnv: g.Env, ServerVersion: srv.Version, Model: srv.Model, ServerArgv: g.Argv, Engine: srv.Engine,
			Run: fingerprint.ExecIn(environ),
		})
		if g.byKey == nil {
			g.byKey = map[string]map[string]string{}
		}
		g.byKey[key] = fp
	}
	cp := make(map[string]string, len(fp))
	for k, v := range fp {
		if g.Scrub != nil {
			v = g.Scrub.String(v)
		}
		cp[k] = v
	}
	return cp
}

// headerScrubber hides only the workloads' header values, for text that
// is otherwise recorded as is (the fingerprint); nil when there are none,
// so such text stays untouched.
func headerScrubber(secrets []string) *redact.Scrubber {
	if len(secrets) == 0 {
		return nil
	}
	return redact.NewScrubber(secrets...)
}
