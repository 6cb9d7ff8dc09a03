package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newRunCmd) }

// runOptions are the flags of `perfgate run`.
type runOptions struct {
	workloads      []string
	url            string
	out            string
	trials         int
	warmups        int
	saveDetailed   bool
	shard          string
	resetPrefix    bool
	cacheSalt      bool
	noContinuous   bool
	limits         metrics.Limits
	readyTimeout   time.Duration
	grace          time.Duration
	progressPeriod time.Duration
	serverCmd      string
	serverEnv      []string
	serverLog      string
	gpus           int
	engine         string
}

func newRunCmd(s *Streams) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run -w FILE|DIR... --url URL -o DIR",
		Short: "Run workloads against a server: warmups + trials, one result file per cell",
		Long: `run waits for the server, then runs every workload cell: warmups and N measured
trials each, and writes DIR/<cell>.json as soon as a cell finishes. The API key
comes from PERFGATE_API_KEY or OPENAI_API_KEY. The first Ctrl-C stops sending,
lets in-flight requests finish for --grace, writes the partial result
("complete": false) and exits 3. See docs/run.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRun(cmd, s, &o) },
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.workloads, "workload", "w", nil, "workload file or directory (repeatable)")
	f.StringVar(&o.url, "url", "", "base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	f.StringVarP(&o.out, "out", "o", "", "directory for result files")
	f.IntVar(&o.trials, "trials", 0, "measured trials per cell (0: the workload's trials.min)")
	f.IntVar(&o.warmups, "warmups", -1, "warmup requests before each trial (-1: the workload's)")
	f.BoolVar(&o.saveDetailed, "save-detailed", false, "also write per-request records, DIR/<cell>.requests.jsonl")
	f.StringVar(&o.shard, "shard", "", "run only shard i/N of the cells (sorted by cell name, index % N == i-1)")
	f.BoolVar(&o.resetPrefix, "reset-prefix-cache", false, "drop the server's prefix cache before each trial (vLLM /reset_prefix_cache in dev mode, SGLang /flush_cache)")
	f.BoolVar(&o.cacheSalt, "cache-salt", true, "send a per-trial cache_salt so trials do not share cached prefixes")
	f.BoolVar(&o.noContinuous, "no-continuous-usage", false, "do not ask for continuous_usage_stats (servers that reject it)")
	limitFlags(f, &o.limits)
	f.DurationVar(&o.readyTimeout, "ready-timeout", loadgen.DefaultReadyTimeout, "how long to wait for the server to become ready (with --server-cmd: 10m unless set)")
	f.StringVar(&o.serverCmd, "server-cmd", "", "command that launches the server for the run (no shell); its URL comes from its log, else --url")
	f.StringArrayVar(&o.serverEnv, "server-env", nil, "NAME=value added to the launched server's environment (repeatable)")
	f.StringVar(&o.serverLog, "server-log", "", "file that receives the launched server's output")
	f.IntVar(&o.gpus, "gpus", 0, "GPUs the server uses, for per-GPU throughput of workloads that set no gpus")
	f.StringVar(&o.engine, "engine", "", "the server's engine: auto (default), vllm, sglang, ollama, llamacpp, tgi or openai (docs/engines.md)")
	f.DurationVar(&o.grace, "grace", loadgen.DefaultGrace, "after Ctrl-C, how long in-flight requests may finish")
	f.DurationVar(&o.progressPeriod, "progress-interval", loadgen.DefaultProgressInterval, "period of progress lines when stderr is not a terminal")
	return cmd
}

func runRun(cmd *cobra.Command, s *Streams, o *runOptions) error {
	if err := checkLimits("run", o.limits); err != nil {
		return err
	}
	switch {
	case len(o.workloads) == 0:
		return exitf(ExitInvalid, "run: -w FILE|DIR is required")
	case o.out == "":
		return exitf(ExitInvalid, "run: --out (-o) is required: the directory for result files")
	case o.trials < 0:
		return exitf(ExitInvalid, "run: --trials %d: must be >= 0", o.trials)
	case o.gpus < 0:
		return exitf(ExitInvalid, "run: --gpus %d: must be >= 0", o.gpus)
	case o.warmups < -1:
		return exitf(ExitInvalid, "run: --warmups %d: must be >= 0 (or -1 for the workload's)", o.warmups)
	case o.grace <= 0:
		return exitf(ExitInvalid, "run: --grace %v: must be positive (how long in-flight requests may finish after Ctrl-C)", o.grace)
	case o.progressPeriod <= 0:
		return exitf(ExitInvalid, "run: --progress-interval %v: must be positive", o.progressPeriod)
	case o.readyTimeout <= 0:
		return exitf(ExitInvalid, "run: --ready-timeout %v: must be positive (how long to wait for the server to become ready, e.g. 10m)", o.readyTimeout)
	}
	l := workload.Loader{Warn: func(e *workload.Error) { fmt.Fprintln(s.Err, e) }}
	ms, err := l.LoadPaths(o.workloads)
	if err != nil {
		n := validatePrint(s, err)
		return exitf(ExitInvalid, "invalid workloads: %d problem(s)", n)
	}
	if o.shard != "" {
		i, n, err := pipeline.ParseShard(o.shard)
		if err == nil {
			ms, err = pipeline.Shard(ms, i, n)
		}
		if err != nil {
			return exitf(ExitInvalid, "run: --%w", err)
		}
	}
	if len(ms) == 0 {
		return exitf(ExitInvalid, "run: no workload cells to run")
	}
	protectHeaders(s, ms)
	argv, _ := config.SplitArgv(o.serverCmd) // runLaunched reports a bad one
	eng, err := serveEngine(o.engine, "run: --engine", argv)
	if err != nil {
		return err
	}
	serveDefaultGPUs(ms, serveGPUs(o.gpus, argv))
	if o.url == "" && o.serverCmd == "" && gateServing(ms) {
		return exitf(ExitInvalid, "run: --url or --server-cmd is required")
	}
	release, err := outputDir("run: --out", o.out)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	defer release()
	cfg := loadgen.Config{
		URL:               o.url,
		APIKey:            runAPIKey(),
		Scrubber:          serveScrubber(s),
		Warmups:           o.warmups,
		ResetPrefixCache:  o.resetPrefix,
		Engine:            eng,
		CacheSalt:         o.cacheSalt,
		NoContinuousUsage: o.noContinuous,
		Progress:          s.Err,
		Terminal:          runIsTerminal(s.Err),
		ProgressInterval:  o.progressPeriod,
		Limits:            o.limits,
		ReadyTimeout:      o.readyTimeout,
		Grace:             o.grace,
		ToolVersion:       Version,
		LookupEnv:         os.LookupEnv, // workload headers written {env: NAME}
	}
	if _, err := loadgen.New(cfg); err != nil && o.url != "" {
		return exitf(ExitInvalid, "run: --url: %w", err)
	}
	fp := &serveFingerprint{scrub: headerScrubber(s), ctx: cmd.Context()}
	var last *result.Result // the cell being run, for a launched server's log tail
	cells := func(ctx context.Context, cfg loadgen.Config) error {
		cfg.Hooks = serveHooks(cfg.URL)
		for _, m := range ms {
			trials := o.trials
			if trials == 0 {
				trials = max(m.Trials.Min, 1)
			}
			path := filepath.Join(o.out, result.FileName(m.Cell))
			res, err := runAnyCell(ctx, cfg, m, trials, path, o)
			if res != nil {
				res.Fingerprint = fp.get(res.Server)
				last = res
				if werr := result.Write(path, res); werr != nil {
					return fmt.Errorf("run: %w", werr)
				}
				fmt.Fprintf(s.Out, "%s: %d trials (%d valid) -> %s\n", m.Cell, len(res.Trials), len(res.ValidTrials()), path)
			}
			if err != nil {
				if errors.Is(err, loadgen.ErrInterrupted) {
					return exitf(ExitRunFailed, "run: %s: interrupted; partial result written to %s", m.Cell, path)
				}
				return exitf(ExitRunFailed, "run: %s: %w", m.Cell, err)
			}
		}
		return nil
	}
	if o.serverCmd != "" {
		return runLaunched(cmd, s, o, cfg, fp, &last, cells)
	}
	return cells(cmd.Context(), cfg)
}

// runCell runs one cell, with its detailed records file when asked for.
func runCell(ctx context.Context, cfg loadgen.Config, m *workload.Manifest, trials int, path string, detailed bool) (*result.Result, error) {
	var df *os.File
	var bw *bufio.Writer
	name := strings.TrimSuffix(filepath.Base(path), ".json") + ".requests.jsonl"
	if detailed {
		var err error
		df, err = os.Create(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			return nil, fmt.Errorf("--save-detailed: %w", err)
		}
		bw = bufio.NewWriterSize(df, 256<<10)
		cfg.Detailed = bw
	}
	r, err := loadgen.New(cfg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res, err := r.Run(ctx, m, trials)
	if detailed {
		ferr := bw.Flush()
		if cerr := df.Close(); ferr == nil {
			ferr = cerr
		}
		if res != nil {
			res.Detailed = name
		}
		if err == nil && ferr != nil {
			err = fmt.Errorf("--save-detailed: %w", ferr)
		}
	}
	return res, err
}

// runAPIKey reads the bearer token from the environment; it is never
// printed or stored.
func runAPIKey() string { return config.APIKey(os.Getenv) }

// runIsTerminal reports whether w is a character device (a live progress
// bar makes sense), as opposed to a pipe or file (CI logs).
func runIsTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap() // Main's scrubbing writer, protectHeaders'
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
