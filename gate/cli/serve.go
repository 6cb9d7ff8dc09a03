package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/server/fingerprint"
	"github.com/perfgate/perfgate/gate/server/scrape"
	"github.com/perfgate/perfgate/gate/workload"
)

// This file holds what `perfgate run` and `perfgate gate` share about the
// server under test: launching and supervising it, scraping its /metrics
// around each trial, and fingerprinting the environment. One copy, so the
// two commands cannot drift apart in how they treat a candidate server.

// serveHooks are the trial hooks of every run against a server: its
// /metrics counters and gauges go into each Trial.Server, and the client-
// versus-server TTFT warning into Trial.Warnings. A server without
// /metrics costs each trial one warning, never the run (see scrape.Hook).
// The runner's health (GPU and host) goes into each Trial.Health
// (serveHealth).
func serveHooks(url string) []loadgen.TrialHook {
	hooks := []loadgen.TrialHook{&scrape.Hook{URL: url}}
	if h := serveHealth(url); h != nil {
		hooks = append(hooks, h)
	}
	return hooks
}

// serveDefaultGPUs gives the workloads that set no gpus of their own the
// configured count (server.gpus, --gpus), so their results record it as
// server.gpus and carry the *_per_gpu throughputs. The count is not part of
// a cell's hash, so this never changes which baseline a cell matches.
func serveDefaultGPUs(ms []*workload.Manifest, gpus int) {
	if gpus <= 0 {
		return
	}
	for _, m := range ms {
		if m.GPUs == 0 {
			m.GPUs = gpus
		}
	}
}

// serveEngine is the engine profile of a run: the configured one
// (server.engine, --engine; flag names the setting for the error), else,
// under auto, the one the launch command names ("vllm serve ...",
// "python -m sglang.launch_server ..."), else auto: the load generator
// asks the server once it is ready.
func serveEngine(configured, flag string, argv []string) (engine.Name, error) {
	n, err := engine.Parse(configured)
	if err != nil {
		return "", &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s: %w", flag, err)}
	}
	if n == engine.Auto {
		if from, ok := engine.FromArgv(argv); ok {
			return from, nil
		}
	}
	return n, nil
}

// serveGPUs is the GPU count of workloads that set none: the configured
// one, else what the launch command asks for (tensor- times data-parallel
// degree, engine.Launch.GPUs), else 0 (unknown).
func serveGPUs(configured int, argv []string) int {
	if configured > 0 {
		return configured
	}
	if n, ok := engine.FromArgv(argv); ok {
		return engine.Must(n).Launch.GPUs(argv)
	}
	return 0
}

// serveLaunch says how to start the candidate server (server.* settings
// or run's --server-* flags).
type serveLaunch struct {
	Command      []string
	Env          []string // NAME=value
	Workdir      string
	URL          string
	Log          string
	ReadyTimeout time.Duration
	Engine       engine.Name
}

// serveRun starts the server, waits until it is ready, calls fn with a
// context that ends the moment the server dies or stops answering its
// health checks (context.Cause then says why, with the log tail), and stops
// the server with every process it spawned when fn returns. The readiness
// and health probes carry the API key (vLLM started with --api-key guards
// /v1/models); long waits say on stderr what they wait for.
//
// It reports nothing itself: a server failure (before it was ready or
// during fn) comes back as an error that serveFailure describes, the one
// path through which run and gate report it.
func serveRun(ctx context.Context, s *Streams, l serveLaunch, fn func(ctx context.Context, info server.Info) error) error {
	env, err := server.ParseEnv(l.Env)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	sc := server.Config{
		Command: l.Command, Env: env, BaseEnv: os.Environ(), Workdir: l.Workdir,
		URL: l.URL, ReadyTimeout: l.ReadyTimeout, Log: l.Log, APIKey: runAPIKey(), Secrets: s.secrets, Hints: s.Err, Engine: l.Engine,
	}
	fmt.Fprintf(s.Err, "starting the server: %s\n", fingerprint.JoinArgv(redact.Argv(l.Command)))
	return server.Supervise(ctx, sc, nil, fn)
}

// serveFingerprint collects the environment fingerprint once per run (per
// server version and model, which differ between serving and command
// cells) and hands each result its own copy. argv and env describe the
// server when perfgate launched it; scrub, when set, hides the workloads'
// header values (headerScrubber) in every entry.
type serveFingerprint struct {
	argv  []string
	env   map[string]string
	fp    map[string]map[string]string
	scrub *redact.Scrubber
	// ctx, when set, bounds the tools the fingerprint runs (nvidia-smi):
	// the command's context, so an interrupted run writes its results
	// without waiting for a hanging tool.
	ctx context.Context
}

func (g *serveFingerprint) get(srv result.Server) map[string]string {
	key := srv.Version + "\x00" + srv.Model + "\x00" + srv.Engine
	fp, ok := g.fp[key]
	if !ok {
		ctx := g.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		fp, _ = fingerprint.Collect(ctx, fingerprint.Options{
			Environ: os.Environ, ServerEnv: g.env, ServerVersion: srv.Version, Model: srv.Model, ServerArgv: g.argv, Engine: srv.Engine,
		})
		if g.fp == nil {
			g.fp = map[string]map[string]string{}
		}
		g.fp[key] = fp
	}
	cp := make(map[string]string, len(fp))
	for k, v := range fp {
		if g.scrub != nil {
			v = g.scrub.String(v)
		}
		cp[k] = v
	}
	return cp
}
