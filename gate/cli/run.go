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
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newRunCmd) }

// runOptions are the flags of `perfgate run`.
type runOptions struct {
	workloads      []string
	url            string
	out            string
	trials         int
	restarts       int
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
	// profiling, profilingDir: see profile_run.go.
	profiling    string
	profilingDir string
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
	f.IntVar(&o.restarts, "restarts", 0, "server starts the trials are spread over, with --server-cmd (0: the workloads' trials.restarts)")
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
	f.StringVar(&o.profiling, "profiling", "", "always: after the cells, one short profiled trial per cell, its trace and op summary under DIR/profiles/ for baseline update (docs/report.md)")
	f.StringVar(&o.profilingDir, "profiling-dir", "", "the directory the server writes its traces to (default: its VLLM_TORCH_PROFILER_DIR or SGLANG_TORCH_PROFILER_DIR from --server-env or the environment)")
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
	profMode, err := trace.ParseMode(o.profiling)
	if err != nil {
		return exitf(ExitInvalid, "run: --profiling %q: want always or never (run has no verdict for on-regression)", o.profiling)
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
	var argv []string
	if o.serverCmd != "" {
		var err error
		if argv, err = config.SplitArgv(o.serverCmd); err != nil {
			return exitf(ExitInvalid, "run: --server-cmd: %w", err)
		}
		if len(argv) == 0 {
			return exitf(ExitInvalid, "run: --server-cmd is empty")
		}
	}
	eng, err := measureEngine(o.engine, "run: --engine", argv)
	if err != nil {
		return err
	}
	session.DefaultGPUs(ms, session.GPUs(o.gpus, argv))
	if o.url == "" && o.serverCmd == "" && gateServing(ms) {
		return exitf(ExitInvalid, "run: --url or --server-cmd is required")
	}
	release, err := outputDir("run: --out", o.out)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	defer release()
	so := s.measure(session.Options{
		Command: argv, Env: o.serverEnv, Log: o.serverLog, URL: o.url, Engine: eng, ReadyTimeout: o.readyTimeout,
		CommandDir: filepath.Join(o.out, "commands"), Detailed: o.saveDetailed,
		Load: loadgen.Config{
			Warmups:           o.warmups,
			ResetPrefixCache:  o.resetPrefix,
			CacheSalt:         o.cacheSalt,
			NoContinuousUsage: o.noContinuous,
			Terminal:          runIsTerminal(s.Err),
			ProgressInterval:  o.progressPeriod,
			Limits:            o.limits,
			Grace:             o.grace,
		},
	})
	if argv != nil && !cmd.Flags().Changed("ready-timeout") {
		so.ReadyTimeout = 0 // the launcher's default, sized for model loading
	}
	var last *result.Result // the cell being run, for a launched server's log tail
	var lastPath string
	starts := runStarts(s, ms, o.restarts, argv != nil)
	err = session.RunStarts(cmd.Context(), so, func(ctx context.Context, sess *session.Session, restart session.Restart) error {
		measured := make([]*result.Result, len(ms))
		for k := 1; k <= starts; k++ {
			if k > 1 {
				var err error
				if ctx, sess, err = restart(); err != nil {
					return exitf(ExitRunFailed, "run: server start %d of %d: %w", k, starts, err)
				}
			}
			for i, m := range ms {
				trials := o.trials
				if trials == 0 {
					trials = max(m.Trials.Min, 1)
				}
				n := pipeline.StartShare(trials, starts, k)
				if n == 0 {
					continue
				}
				path := filepath.Join(o.out, result.FileName(m.Cell))
				res, have, err := measured[i], 0, error(nil)
				if k == 1 {
					res, err = runCell(ctx, sess, m, n, path, o.saveDetailed)
				} else {
					have = len(res.Trials)
					sess.Track(res)
					err = sess.Trials().RunTrials(ctx, m, res, n)
					res.FinishedAt = time.Now().UTC()
				}
				if res != nil {
					pipeline.StampStart(res, have, k, starts)
					last, lastPath, measured[i] = res, path, res
					if werr := result.Write(path, res); werr != nil {
						return fmt.Errorf("run: %w", werr)
					}
					if k == starts {
						fmt.Fprintf(s.Out, "%s: %d trials (%d valid) -> %s\n", m.Cell, len(res.Trials), len(res.ValidTrials()), path)
					}
				}
				if err != nil {
					if errors.Is(err, loadgen.ErrInterrupted) {
						return exitf(ExitRunFailed, "run: %s: interrupted; partial result written to %s", m.Cell, path)
					}
					return exitf(ExitRunFailed, "run: %s: %w", m.Cell, err)
				}
			}
		}
		var done []*result.Result
		for _, r := range measured {
			if r != nil {
				done = append(done, r)
			}
		}
		if err := pipeline.Unmeasured(done); err != nil {
			return exitf(ExitRunFailed, "run: %w", err)
		}
		runProfiles(ctx, s, sess, profMode, config.Profiling{Dir: o.profilingDir}, o.serverEnv, o.out, ms, measured)
		return nil
	})
	if err == nil {
		return nil
	}
	if argv == nil || errors.As(err, new(*session.InvalidError)) {
		return measureSetup(err, "run: --url")
	}
	// A launched server that dies or stops answering mid-run fails the
	// run (exit 3); the session marked the cell it cut short, which is
	// written again so the result file says what happened.
	f, failed := session.Failure(err)
	if !failed {
		var ee *ExitError
		if errors.As(err, &ee) {
			return err
		}
		return exitf(ExitRunFailed, "run: %w", err)
	}
	if last != nil && !f.BeforeReady {
		if werr := result.Write(lastPath, last); werr != nil {
			return fmt.Errorf("run: %w", werr)
		}
	}
	return exitf(ExitRunFailed, "run: %s", f.Summary)
}

// runCell runs one cell, with its detailed records file when asked for
// (serving cells at a fixed load: a capacity search's probes are many
// short runs at different loads, a kind: command cell sends no request).
func runCell(ctx context.Context, sess *session.Session, m *workload.Manifest, trials int, path string, detailed bool) (*result.Result, error) {
	dynamic := m.IsCapacity() || m.SaturationShare > 0
	if !detailed || m.IsCommand() || dynamic {
		res, err := sess.RunCell(ctx, m, trials, nil)
		if detailed && dynamic && res != nil {
			res.Notes = append(res.Notes, "--save-detailed does not apply to a capacity or share-of-saturation cell: no per-request records written")
		}
		return res, err
	}
	name := strings.TrimSuffix(filepath.Base(path), ".json") + ".requests.jsonl"
	df, err := os.Create(filepath.Join(filepath.Dir(path), name))
	if err != nil {
		return nil, fmt.Errorf("--save-detailed: %w", err)
	}
	bw := bufio.NewWriterSize(df, 256<<10)
	res, err := sess.RunCell(ctx, m, trials, bw)
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
	return res, err
}

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

// runStarts is the number of server starts run spreads each cell's trials
// over: --restarts, else the largest trials.restarts of the workloads.
// An attached server (--url) is measured in one session, with a warning
// saying what would restart it.
func runStarts(s *Streams, ms []*workload.Manifest, flag int, launched bool) int {
	k := flag
	if k <= 0 {
		for _, m := range ms {
			k = max(k, m.Trials.Restarts)
		}
	}
	if k > 1 && !launched {
		fmt.Fprintf(s.Err, "run: warning: %d server starts asked for (--restarts or trials.restarts), but perfgate did not launch the server (--url): measured in one session; launch it with --server-cmd to restart it\n", k)
		return 1
	}
	return max(k, 1)
}
