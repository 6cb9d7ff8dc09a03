package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/sim"
)

func init() { register(newSimCmd) }

// simKnobs binds one flag per simulator knob. Flags start at zero and only
// the ones given on the command line override the preset.
type simKnobs struct {
	fs      *pflag.FlagSet
	applies map[string]func(*sim.Config)
}

func simBind[T any](k *simKnobs, name, usage string, define func(p *T, name, usage string), field func(*sim.Config) *T) {
	v := new(T)
	define(v, name, usage)
	k.applies[name] = func(c *sim.Config) { *field(c) = *v }
}

func simBindDuration(k *simKnobs, name, usage string, field func(*sim.Config) *sim.Duration) {
	v := new(time.Duration)
	k.fs.DurationVar(v, name, 0, usage)
	k.applies[name] = func(c *sim.Config) { *field(c) = sim.Duration(*v) }
}

func newSimCmd(s *Streams) *cobra.Command {
	var addr, preset, engine, profileDir string
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run the simulated vLLM server",
		Long: "sim serves vLLM's OpenAI-compatible HTTP API from a continuous-batching performance\n" +
			"model (see docs/simulator.md); --engine sglang or ollama serves that engine's HTTP surface\n" +
			"instead. It prints its base URL as the first line of standard output and runs until\n" +
			"interrupted. Every knob flag overrides the chosen preset.",
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "listen address (use 127.0.0.1:0 for any free port)")
	f.StringVar(&profileDir, "profile-dir", "", "serve /start_profile and /stop_profile, writing each profile's Chrome trace into this directory (default: the impersonated engine's own variable, VLLM_TORCH_PROFILER_DIR or SGLANG_TORCH_PROFILER_DIR, when set)")
	f.StringVar(&preset, "preset", "fast", fmt.Sprintf("starting configuration, one of %v", sim.PresetNames()))
	f.StringVar(&engine, "engine", sim.EngineVLLM, fmt.Sprintf("engine to impersonate (endpoints, errors, usage, chunking), one of %v", sim.Engines()))
	k := &simKnobs{fs: f, applies: map[string]func(*sim.Config){}}
	str := func(name, usage string, field func(*sim.Config) *string) {
		simBind(k, name, usage, func(p *string, n, u string) { f.StringVar(p, n, "", u) }, field)
	}
	num := func(name, usage string, field func(*sim.Config) *float64) {
		simBind(k, name, usage, func(p *float64, n, u string) { f.Float64Var(p, n, 0, u) }, field)
	}
	integer := func(name, usage string, field func(*sim.Config) *int) {
		simBind(k, name, usage, func(p *int, n, u string) { f.IntVar(p, n, 0, u) }, field)
	}
	boolean := func(name, usage string, field func(*sim.Config) *bool) {
		simBind(k, name, usage, func(p *bool, n, u string) { f.BoolVar(p, n, false, u) }, field)
	}
	dur := func(name, usage string, field func(*sim.Config) *sim.Duration) {
		simBindDuration(k, name, usage, field)
	}

	str("model", "served model name", func(c *sim.Config) *string { return &c.Model })
	str("version", "version reported by /version", func(c *sim.Config) *string { return &c.Version })
	integer("max-model-len", "max prompt + completion tokens", func(c *sim.Config) *int { return &c.MaxModelLen })
	integer("max-num-seqs", "max sequences per batch", func(c *sim.Config) *int { return &c.MaxNumSeqs })
	integer("max-num-batched-tokens", "per-step token budget (chunked prefill)", func(c *sim.Config) *int { return &c.MaxBatchedTokens })
	integer("kv-cache-tokens", "KV cache capacity in tokens", func(c *sim.Config) *int { return &c.KVCacheTokens })
	integer("block-size", "KV block size in tokens", func(c *sim.Config) *int { return &c.BlockSize })
	boolean("prefix-caching", "enable the prefix cache", func(c *sim.Config) *bool { return &c.PrefixCaching })
	dur("step-base", "fixed cost of every step", func(c *sim.Config) *sim.Duration { return &c.StepBase })
	dur("decode-fixed", "weight-read cost of a step that decodes", func(c *sim.Config) *sim.Duration { return &c.DecodeFixed })
	dur("decode-per-seq", "cost per decoding sequence", func(c *sim.Config) *sim.Duration { return &c.DecodePerSeq })
	dur("prefill-per-token", "cost per prefill token", func(c *sim.Config) *sim.Duration { return &c.PrefillPerToken })
	num("per-context-token-ns", "attention cost per context token of decoding sequences, ns", func(c *sim.Config) *float64 { return &c.PerContextTokenNs })
	num("decode-scale", "multiplier of the decode cost (regression knob)", func(c *sim.Config) *float64 { return &c.DecodeScale })
	num("prefill-scale", "multiplier of the prefill cost (regression knob)", func(c *sim.Config) *float64 { return &c.PrefillScale })
	num("base-scale", "multiplier of the fixed step cost (regression knob)", func(c *sim.Config) *float64 { return &c.BaseScale })
	dur("first-token-delay", "extra delay before a request enters the scheduler", func(c *sim.Config) *sim.Duration { return &c.FirstTokenDelay })
	simBind(k, "seed", "seed of jitter, tokens and faults", func(p *uint64, n, u string) { f.Uint64Var(p, n, 0, u) }, func(c *sim.Config) *uint64 { return &c.Seed })
	num("jitter-cv", "coefficient of variation of per-step log-normal jitter", func(c *sim.Config) *float64 { return &c.JitterCV })
	num("drift-pct-per-minute", "percent slower per minute of uptime", func(c *sim.Config) *float64 { return &c.DriftPctPerMinute })
	num("drift-pct-per-1000-requests", "percent slower per thousand requests", func(c *sim.Config) *float64 { return &c.DriftPctPer1000Requests })
	integer("stream-interval", "tokens per streamed chunk", func(c *sim.Config) *int { return &c.StreamInterval })
	dur("coalesce-window", "merge tokens produced within this window into one chunk", func(c *sim.Config) *sim.Duration { return &c.CoalesceWindow })
	num("eos-mean-tokens", "mean output length when ignore_eos is off (0: never EOS)", func(c *sim.Config) *float64 { return &c.EOSMeanTokens })
	boolean("stamp-send-time", `add "sim_sent_ns" (server send time) to every streamed chunk`, func(c *sim.Config) *bool { return &c.StampSendTime })
	num("fail-rate", "fraction of requests answered HTTP 500", func(c *sim.Config) *float64 { return &c.Faults.HTTP500Rate })
	num("rate-limit-rate", "fraction of requests answered HTTP 429", func(c *sim.Config) *float64 { return &c.Faults.HTTP429Rate })
	num("unavailable-rate", "fraction of requests answered HTTP 503", func(c *sim.Config) *float64 { return &c.Faults.HTTP503Rate })
	num("stream-error-rate", "fraction of requests with an in-stream error event", func(c *sim.Config) *float64 { return &c.Faults.StreamErrorRate })
	integer("stream-error-after", "tokens sent before the in-stream error", func(c *sim.Config) *int { return &c.Faults.StreamErrorAfter })
	num("drop-rate", "fraction of requests whose connection is cut", func(c *sim.Config) *float64 { return &c.Faults.DropRate })
	integer("drop-after", "tokens sent before the connection is cut", func(c *sim.Config) *int { return &c.Faults.DropAfter })
	num("stall-rate", "fraction of requests that stall mid-stream", func(c *sim.Config) *float64 { return &c.Faults.StallRate })
	integer("stall-after", "tokens sent before the stall", func(c *sim.Config) *int { return &c.Faults.StallAfter })
	dur("stall-for", "how long a stall sends nothing", func(c *sim.Config) *sim.Duration { return &c.Faults.StallFor })
	dur("slow-start", "answer /health 503 for this long after start", func(c *sim.Config) *sim.Duration { return &c.Faults.SlowStart })
	integer("exit-after", "exit the process (code 3) when request N+1 arrives, simulating a crash", func(c *sim.Config) *int { return &c.Faults.ExitAfterRequests })
	num("session-cv-prefill", "CV of the per-start prefill cost factor, drawn at every start (overrides --session-cv)", func(c *sim.Config) *float64 { return &c.SessionCVPrefill })
	num("session-cv-decode", "CV of the per-start decode cost factor, drawn at every start (overrides --session-cv)", func(c *sim.Config) *float64 { return &c.SessionCVDecode })
	simBind(k, "session-seed", "seed of the per-start factors (0: a fresh seed at every start)", func(p *uint64, n, u string) { f.Uint64Var(p, n, 0, u) }, func(c *sim.Config) *uint64 { return &c.SessionSeed })
	sessionCV := f.Float64("session-cv", 0, "CV of both per-start cost factors (prefill and decode), drawn at every start")

	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := sim.Preset(preset)
		if err != nil {
			return exitf(ExitInvalid, "--preset: %v", err)
		}
		// The engine's defaults (its version, ollama's chunking) come
		// before the knob flags, so a flag given beside --engine wins.
		if err := cfg.SetEngine(engine); err != nil {
			return exitf(ExitInvalid, "--engine: %v", err)
		}
		// --session-cv sets both phases first, so a per-phase flag given
		// beside it wins whatever the order on the command line.
		if f.Changed("session-cv") {
			cfg.SessionCVPrefill, cfg.SessionCVDecode = *sessionCV, *sessionCV
		}
		f.Visit(func(fl *pflag.Flag) {
			if apply, ok := k.applies[fl.Name]; ok {
				apply(&cfg)
			}
		})
		if profileDir == "" {
			profileDir = simProfileDir(s, engine)
		}
		return simServe(cmd.Context(), s, addr, cfg, profileDir)
	}
	return cmd
}

// simProfileDir is the trace directory the impersonated engine would
// read from its environment, so a simulator launched by a gate's
// --server-cmd with VLLM_TORCH_PROFILER_DIR in server.env is profiled as
// vLLM would be; "" when the engine is not profiled or the variable is
// unset (the endpoints then answer 404, as vLLM's do).
func simProfileDir(s *Streams, name string) string {
	p, err := engine.Get(engine.Name(name))
	if err != nil || p.Profiler == nil {
		return ""
	}
	return s.getenv(p.Profiler.DirEnv)
}

// simServe listens on addr, prints the base URL as the first stdout line,
// and serves until ctx ends (clean shutdown) or the exit fault fires.
func simServe(ctx context.Context, s *Streams, addr string, cfg sim.Config, profileDir string) error {
	crashed := make(chan struct{})
	opts := sim.Options{OnExit: func() { close(crashed) }}
	if profileDir != "" {
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			return exitf(ExitInvalid, "--profile-dir %s: %v", profileDir, err)
		}
		opts.Profiles = func(name string) (io.WriteCloser, error) {
			return os.Create(filepath.Join(profileDir, filepath.Base(name)))
		}
	}
	srv, err := sim.NewServer(cfg, opts)
	if err != nil {
		return exitf(ExitInvalid, "%v", err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return exitf(ExitInvalid, "--addr %s: %v", addr, err)
	}
	fmt.Fprintf(s.Out, "http://%s\n", ln.Addr())
	as := ""
	if cfg.Engine != "" {
		as = " as " + cfg.Engine
	}
	fmt.Fprintf(s.Err, "perfgate sim: serving model %q on http://%s%s\n", cfg.Model, ln.Addr(), as)
	if cfg.SessionCVPrefill > 0 || cfg.SessionCVDecode > 0 {
		ss := srv.Session()
		fmt.Fprintf(s.Err, "perfgate sim: session offsets prefill x%.4f decode x%.4f (--session-seed %d reproduces them)\n", ss.Prefill, ss.Decode, ss.Seed)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return exitf(ExitRunFailed, "serving on %s: %v", ln.Addr(), err)
	case <-crashed:
		_ = hs.Close() // a crash: cut every connection at once
		<-served
		return exitf(ExitRunFailed, "simulated crash after %d requests (--exit-after)", cfg.Faults.ExitAfterRequests)
	case <-ctx.Done():
	}
	srv.Close() // in-flight streams end with an error event
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = hs.Close()
	}
	<-served
	fmt.Fprintln(s.Err, "perfgate sim: stopped")
	return nil
}
