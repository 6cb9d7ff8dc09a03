// Package session is one measured server session: start the candidate
// server (or attach to one already up), wait until it is ready, build the
// load generator that measures it with its trial hooks (/metrics deltas,
// runner health), fingerprint each result's environment, and mark the
// results a server failure cut short. perfgate gate, run, ab and
// calibrate each open their sessions through Run, so the four commands
// cannot drift apart in how they treat a server under test.
//
// The session touches processes and the network (through gate/server,
// gate/loadgen and the fingerprint), never the process environment or
// standard streams: those come in Options from the command layer.
package session

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/command"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/server/fingerprint"
	"github.com/perfgate/perfgate/gate/workload"
)

// Options describe one session: the server (launched when Command is set,
// else attached at URL), the load generator's knobs, and the command
// layer's environment and error stream.
type Options struct {
	// Command launches the server (no shell); nil attaches to URL.
	Command []string
	// Env is NAME=value added to the launched server's environment.
	Env []string
	// Workdir is the launched server's working directory.
	Workdir string
	// URL is where the server serves: the server already up, or where a
	// launched one is measured when its log does not announce an address.
	// Empty with no Command: a session without a server (kind: command
	// workloads only), which still fingerprints.
	URL string
	// Log is the file that receives a launched server's output.
	Log string
	// ReadyTimeout bounds the readiness wait of the whole session, spent
	// once: the launch's wait and every later cell's re-check together
	// (loadgen.Config.ReadyDeadline). Zero: the launcher's default for a
	// launched server (model loading), the load generator's otherwise.
	ReadyTimeout time.Duration
	// Engine is the server's engine profile (Engine resolves it).
	Engine engine.Name

	// Load is the load generator's configuration; the session sets its
	// URL, Engine, APIKey, Scrubber, LookupEnv, Hooks, ready timeout and
	// (with Detailed) Detailed.
	Load loadgen.Config
	// Hooks run around every trial after the session's own.
	Hooks []loadgen.TrialHook
	// CommandDir receives the output files of kind: command cells
	// (<CommandDir>/<cell>/trial-NN.json); empty: the session runs no
	// kind: command cell.
	CommandDir string
	// Detailed lets RunCell write per-request records (RunCell's detailed
	// writer); without it no record is even formatted.
	Detailed bool

	// LookupEnv reads the process environment: the API key
	// (PERFGATE_API_KEY, OPENAI_API_KEY), PERFGATE_RUNNER_HEALTH and the
	// workloads' {env: NAME} header values.
	LookupEnv func(string) (string, bool)
	// Environ is the process environment ("NAME=value"): what a launched
	// server inherits, the secrets the scrubbers know, the fingerprint's
	// env.* keys.
	Environ []string
	// Argv is the process's command line, whose secret-looking values
	// the scrubbers know too (what a GPU tool prints can quote it).
	Argv []string
	// Secrets are the workloads' header values, hidden from the server's
	// log tail, error bodies and the fingerprint.
	Secrets []string
	// Err receives the launch line, readiness hints, capacity probes and
	// the end of a failed server's log.
	Err io.Writer
}

// Session is a server that is ready to be measured, and what measures it.
type Session struct {
	// URL is the server's base URL (a launched server's announced one).
	URL string
	// Runner is the load generator against URL; nil for a session
	// without a server.
	Runner *loadgen.Runner
	// Fingerprints gives each result its environment fingerprint.
	Fingerprints *Fingerprints

	err     io.Writer
	command pipeline.Trials // kind: command cells; nil: none
	detail  switchWriter
	mu      sync.Mutex
	made    []*result.Result // every result of this session, in order
}

// Run opens the session (launching the server when o.Command is set),
// calls fn with it, and closes it: the runner's connections, and a
// launched server with every process it spawned. fn's context ends the
// moment a launched server dies or stops answering.
//
// A server failure comes back as the error (Failure describes it): the
// end of the server's log has then been written to o.Err, once, and every
// result of the session the failure cut short is marked incomplete with
// the failure as its reason and the log tail (MarkFailed).
func Run(ctx context.Context, o Options, fn func(ctx context.Context, s *Session) error) error {
	if o.Err == nil {
		o.Err = io.Discard
	}
	apiKey := config.APIKey(o.getenv)
	if len(o.Command) == 0 {
		s, err := open(ctx, o, o.URL, apiKey, readyDeadline(o.ReadyTimeout, loadgen.DefaultReadyTimeout))
		if err != nil {
			return err
		}
		defer s.close()
		return fn(ctx, s)
	}
	env, err := server.ParseEnv(o.Env)
	if err != nil {
		return &InvalidError{Setting: "env", Err: err}
	}
	sc := server.Config{
		Command: o.Command, Env: env, BaseEnv: o.Environ, Workdir: o.Workdir,
		URL: o.URL, ReadyTimeout: o.ReadyTimeout, Log: o.Log, APIKey: apiKey, Secrets: o.Secrets, Hints: o.Err, Engine: o.Engine,
	}
	deadline := readyDeadline(o.ReadyTimeout, server.DefaultReadyTimeout)
	fmt.Fprintf(o.Err, "starting the server: %s\n", fingerprint.JoinArgv(redact.Argv(o.Command)))
	var s *Session
	err = server.Supervise(ctx, sc, nil, func(ctx context.Context, info server.Info) error {
		var err error
		if s, err = open(ctx, o, info.URL, apiKey, deadline); err != nil {
			return err
		}
		defer s.close()
		return fn(ctx, s)
	})
	if f, ok := Failure(err); ok {
		if tail := trimTail(f.Tail); tail != "" {
			fmt.Fprintf(o.Err, "--- last lines of the server's log ---\n%s\n--- end of the server's log ---\n", tail)
		}
		if s != nil && !f.BeforeReady {
			s.markFailed(f)
		}
	}
	return err
}

// readyDeadline is when the session's readiness waits end.
func readyDeadline(timeout, def time.Duration) time.Time {
	if timeout <= 0 {
		timeout = def
	}
	return time.Now().Add(timeout)
}

func (o Options) getenv(name string) string {
	if o.LookupEnv == nil {
		return ""
	}
	v, _ := o.LookupEnv(name)
	return v
}

// open builds the session against url ("" for none). The fingerprint's
// tools are bounded by ctx, so an interrupted run writes its results
// without waiting for a hanging nvidia-smi.
func open(ctx context.Context, o Options, url, apiKey string, deadline time.Time) (*Session, error) {
	env, _ := server.ParseEnv(o.Env) // launching checked it; attaching has none
	s := &Session{
		URL: url, err: o.Err,
		Fingerprints: &Fingerprints{Argv: o.Command, Env: env, Environ: o.Environ, Scrub: headerScrubber(o.Secrets), Ctx: ctx},
	}
	if o.CommandDir != "" {
		s.command = &command.Trials{Dir: o.CommandDir, BaseEnv: o.Environ, ToolVersion: o.Load.ToolVersion}
	}
	if url == "" {
		return s, nil
	}
	cfg := o.Load
	cfg.URL, cfg.Engine, cfg.APIKey, cfg.LookupEnv = url, o.Engine, apiKey, o.LookupEnv
	cfg.Scrubber = redact.ForProcess(o.Environ, o.Argv).With(o.Secrets...)
	cfg.ReadyTimeout, cfg.ReadyDeadline = o.ReadyTimeout, deadline
	cfg.Hooks = append(hooks(url, o.getenv, cfg.Scrubber.With(apiKey)), o.Hooks...)
	if o.Detailed {
		cfg.Detailed = &s.detail
	}
	r, err := loadgen.New(cfg)
	if err != nil {
		return nil, &InvalidError{Setting: "url", Err: err}
	}
	s.Runner = r
	return s, nil
}

func (s *Session) close() {
	if s.Runner != nil {
		s.Runner.Close()
	}
}

// Trials runs the session's cells as the pipeline runs them: serving
// cells against the server, capacity and share-of-saturation ones finding
// their load at run time (pipeline.Capacity), kind: command cells through
// their command (Options.CommandDir). Every result carries its fingerprint
// and is the session's to mark when the server fails.
func (s *Session) Trials() pipeline.Trials {
	k := pipeline.ByKind{Command: s.command}
	if s.Runner != nil {
		k.Serving = pipeline.Capacity{Serving: s.Runner, Log: s.err}
	}
	return trials{k, s}
}

// Track makes r one of the session's results, the one it runs now: it is
// marked when a server failure cuts the session short, and gets its
// fingerprint when it has none yet. For results a command keeps across
// sessions (perfgate ab's blocks, the starts of RunStarts) or builds
// itself. Tracking a result again makes it the one running now.
func (s *Session) Track(r *result.Result) {
	if r == nil {
		return
	}
	if r.Fingerprint == nil {
		r.Fingerprint = s.Fingerprints.Get(r.Server)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.made {
		if m == r {
			s.made = append(s.made[:i], s.made[i+1:]...)
			break
		}
	}
	s.made = append(s.made, r)
}

// RunCell runs one cell of either kind from readiness to its last trial: trials
// measured trials of m, with per-request records to detailed when it is
// set (Options.Detailed). On failure the result so far comes back with the
// error, incomplete.
func (s *Session) RunCell(ctx context.Context, m *workload.Manifest, trials int, detailed io.Writer) (*result.Result, error) {
	s.detail.set(detailed)
	defer s.detail.set(nil)
	t := s.Trials()
	started := time.Now().UTC()
	srv, err := t.Prepare(ctx, m)
	res := t.NewResult(m, srv)
	res.StartedAt = started
	if err == nil {
		err = t.RunTrials(ctx, m, res, trials)
	} else {
		res.Complete, res.IncompleteReason = false, err.Error()
	}
	res.FinishedAt = time.Now().UTC()
	return res, err
}

// trials is pipeline.Trials over the session.
type trials struct {
	pipeline.Trials
	s *Session
}

// Track makes r, a result an earlier start began, the one this start runs
// now (pipeline.Run's later starts).
func (t trials) Track(r *result.Result) { t.s.Track(r) }

func (t trials) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	r := t.Trials.NewResult(m, srv)
	t.s.Track(r)
	return r
}

// markFailed applies f to the session's results (MarkFailed).
func (s *Session) markFailed(f server.Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.made {
		if !r.Complete || i == len(s.made)-1 {
			MarkFailed(r, f)
		}
	}
}

// InvalidError is a setting of the session that is invalid input: a
// server URL the load generator refuses (Setting "url"), or a server
// environment entry that is not NAME=value ("env"). The command names its
// flag.
type InvalidError struct {
	Setting string
	Err     error
}

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// switchWriter is the runner's detailed-records writer, pointed at each
// cell's file in turn (cells of a session run one at a time).
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *switchWriter) set(to io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w = to
}

func (w *switchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w == nil {
		return len(p), nil
	}
	return w.w.Write(p)
}
