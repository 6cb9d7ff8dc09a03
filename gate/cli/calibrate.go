package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/noise"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newCalibrateCmd) }

// calibrateFlagKeys binds calibrate's flags to configuration settings, so
// perfgate.yaml's server, workloads, policy and calibrate sections apply
// and a flag overrides them.
var calibrateFlagKeys = map[string]string{
	"profile":       "profile",
	"workloads":     "workloads",
	"url":           "server.url",
	"server-cmd":    "server.command",
	"server-env":    "server.env",
	"server-log":    "server.log",
	"ready-timeout": "server.ready_timeout",
	"gpus":          "server.gpus",
	"engine":        "server.engine",
	"baselines":     "baselines",
	"output":        "output",
	"restarts":      "calibrate.restarts",
	"trials":        "calibrate.trials",
	"gate-trials":   "trials.min",
	"alpha":         "policy.alpha",
}

// newCalibrateCmd builds `perfgate calibrate`: start the server K times,
// run every workload N times per start, and estimate per (cell, metric)
// the noise within a session and between sessions (docs/calibrate.md).
func newCalibrateCmd(s *Streams) *cobra.Command {
	var configFile, from string
	var lim metrics.Limits
	cmd := &cobra.Command{
		Use:   "calibrate --server-cmd CMD --restarts K --trials N",
		Short: "Measure the noise between server starts and within one: noise file + what the gate can detect",
		Long: `calibrate starts the server (server.command, --server-cmd) --restarts times, runs
--trials trials of every workload after each start, and fits a one-way
random-effects model per workload cell and metric on the log values: the
variance of trials within one server session and the variance of the
sessions' true levels, each with its degrees of freedom. It writes

  <output>/session-NN/<cell>.json              every session's results
  <baselines>/<profile>/calibration/noise.json the noise (schema perfgate.noise/v1)

and prints per gated metric both CVs, the smallest regression the gate can
detect at its trials (--gate-trials or the configuration's trials.min,
else each workload file's trials.min) and tolerance, the smallest tolerance an unchanged build passes
90 % of the time at, and how many trials or baseline sessions would reach
the tolerance. The server must be launched by perfgate: a session is a
fresh start. --from DIR fits the session results of an earlier calibration
(DIR/session-NN/) again without running anything, e.g. after removing a
session a disturbed machine spoiled. See docs/calibrate.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return calibrateMain(cmd.Context(), s, cmd, calibrateOptions{configFile, from, lim})
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	f.String("profile", "", "profile whose noise file is written: <baselines>/<profile>/calibration/noise.json")
	f.StringSlice("workloads", nil, "workload files or globs (comma-separated or repeated)")
	f.String("url", "", "the server's base URL, when its log does not print it")
	f.String("server-cmd", "", "command that launches the server (required: every session is a fresh start)")
	f.StringArray("server-env", nil, "NAME=value added to the server's environment (repeatable)")
	f.String("server-log", "", "file that receives the server's output (all sessions)")
	f.String("engine", "", "the server's engine: auto (default), vllm, sglang, ollama, llamacpp, tgi or openai (docs/engines.md)")
	f.Duration("ready-timeout", 0, "how long to wait for each start to become ready")
	f.Int("gpus", 0, "GPUs the server uses, for per-GPU throughput of workloads that set no gpus")
	f.String("baselines", "", "baseline store root directory")
	f.StringP("output", "o", "", "directory for the sessions' result files")
	f.Int("restarts", 0, "server starts (sessions), at least 3 (default: calibrate.restarts, 5)")
	f.Int("trials", 0, "trials per start, at least 2 (default: calibrate.trials, 3)")
	f.Int("gate-trials", 0, "the gate's trials per arm the predictions are for (default: the configuration's trials.min, else each workload file's)")
	f.Float64("alpha", 0, "the gate's family-wise false-regression rate the predictions are for")
	f.StringVar(&from, "from", "", "fit the sessions in DIR/session-NN/ of an earlier calibration again, without running")
	limitFlags(f, &lim)
	return cmd
}

// calibrateOptions are the flags that are not configuration settings.
type calibrateOptions struct {
	configFile, from string
	limits           metrics.Limits
}

// calibrateMain loads the configuration, runs the sessions (or reads
// them, --from), then fits, writes and prints.
func calibrateMain(ctx context.Context, s *Streams, cmd *cobra.Command, o calibrateOptions) error {
	l, err := s.loadConfig(o.configFile, cmd, calibrateFlagKeys)
	if err != nil {
		return err
	}
	cfg := l.Config
	o.limits = cfg.Limits.Metrics()
	if err := baseline.ValidateProfile(cfg.Profile); err != nil {
		return exitf(ExitInvalid, "calibrate: --profile: %w", err)
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	if err := refuseBranchStore("calibrate", cfg.Baselines); err != nil {
		return err
	}
	store := baseline.Store{Root: cfg.Baselines}
	var ms []*workload.Manifest
	var sessions []map[string]*result.Result
	var notes []string
	if o.from != "" {
		if ms, sessions, err = calibrateRead(o.from); err != nil {
			return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("calibrate: --from: %w", err)}
		}
		cfg.Calibrate.Restarts, cfg.Calibrate.Trials = len(sessions), calibrateTrialsAsked(sessions)
		cfg.Output = o.from
	} else {
		if ms, notes, err = calibrateWorkloads(cfg); err != nil {
			return err
		}
		protectHeaders(s, ms)
		// Both destinations are checked before the first start: a
		// calibration that measured for an hour and then could not write
		// loses the hour.
		release, err := outputDir("calibrate: --output", cfg.Output)
		if err != nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
		defer release()
		if err := calibrateWritable(filepath.Dir(store.NoisePath(cfg.Profile))); err != nil {
			return exitf(ExitInvalid, "calibrate: --baselines: %w", err)
		}
		if sessions, err = calibrateSessions(ctx, s, cfg, ms, o.limits); err != nil {
			return err
		}
	}
	gateTrials := 0
	if l.Source("trials.min") != "default" {
		gateTrials = cfg.Trials.Min
	}
	fit := calibrateFit(ms, sessions, policy, gateTrials)
	fit.table.Restarts, fit.table.TrialsPerRestart = cfg.Calibrate.Restarts, cfg.Calibrate.Trials
	fit.table.Notes = append(notes, fit.table.Notes...)
	if len(fit.cells) == 0 {
		_ = noise.WriteText(s.Out, &fit.table)
		return exitf(ExitRunFailed, "calibrate: no metric could be estimated (see the notes); the sessions' results are in %s", cfg.Output)
	}
	first := calibrateFirst(ms, sessions)
	n := &baseline.Noise{
		Schema: baseline.NoiseSchema, Profile: cfg.Profile, CreatedAt: s.now().UTC().Truncate(time.Second),
		Tool:     result.Tool{Name: "perfgate", Version: Version},
		Restarts: cfg.Calibrate.Restarts, TrialsPerRestart: cfg.Calibrate.Trials,
		Fingerprint: first.Fingerprint, ServerVersion: first.Server.Version, GitSHA: s.getenv("GITHUB_SHA"),
		Cells: fit.cells,
	}
	path, err := store.WriteNoise(cfg.Profile, n)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if err := noise.WriteText(s.Out, &fit.table); err != nil {
		return fmt.Errorf("calibrate: writing the table: %w", err)
	}
	fmt.Fprintf(s.Out, "\nnoise file: %s\nsession results: %s\n", path, cfg.Output)
	return nil
}

// calibrateWorkloads checks that calibrate can launch the server and
// loads the serving workloads; kind: command ones start no server and are
// left out with a note.
func calibrateWorkloads(cfg config.Config) (ms []*workload.Manifest, notes []string, err error) {
	if len(cfg.Server.Command) == 0 {
		return nil, nil, exitf(ExitInvalid, "calibrate: --server-cmd (server.command) is required: each session must be a fresh start of the server, which only a server perfgate launches can give")
	}
	if len(cfg.Workloads) == 0 {
		return nil, nil, exitf(ExitInvalid, "calibrate: no workloads: set workloads in %s, PERFGATE_WORKLOADS or --workloads", config.DefaultFile)
	}
	all, err := workload.LoadPaths(cfg.Workloads)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	session.DefaultGPUs(all, session.GPUs(cfg.Server.GPUs, cfg.Server.Command))
	for _, m := range all {
		if m.IsCommand() {
			notes = append(notes, fmt.Sprintf("%s: a kind: command workload runs no server and is not calibrated", m.Cell))
			continue
		}
		if m.IsCapacity() || m.SaturationShare > 0 {
			notes = append(notes, fmt.Sprintf("%s: a capacity or share-of-saturation workload finds its load at run time and is not calibrated", m.Cell))
			continue
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, nil, exitf(ExitInvalid, "calibrate: no serving workloads to calibrate")
	}
	return ms, notes, nil
}

// calibrateSessions starts the server once per session and runs every
// workload's trials against that start. A start that fails, or a server
// that dies mid-session, ends the calibration (exit 3): a session cut short
// is not a sample of the between-session spread. What was measured stays
// in <output>/session-NN/.
func calibrateSessions(ctx context.Context, s *Streams, cfg config.Config, ms []*workload.Manifest, lim metrics.Limits) ([]map[string]*result.Result, error) {
	eng, err := measureEngine(cfg.Server.Engine, "server.engine", cfg.Server.Command)
	if err != nil {
		return nil, err
	}
	so := s.measure(session.Options{
		Command: cfg.Server.Command, Env: cfg.Server.Env, Workdir: cfg.Server.Workdir,
		URL: cfg.Server.URL, ReadyTimeout: cfg.Server.ReadyTimeout, Engine: eng,
		Load: loadgen.Config{Warmups: -1, Terminal: runIsTerminal(s.Err), Limits: lim},
	})
	k := cfg.Calibrate.Restarts
	var sessions []map[string]*result.Result
	for i := 1; i <= k; i++ {
		dir := filepath.Join(cfg.Output, fmt.Sprintf("session-%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("calibrate: --output: %w", err)
		}
		fmt.Fprintf(s.Err, "calibrate: session %d of %d\n", i, k)
		so.Log = calibrateLog(cfg.Server.Log, dir, i)
		got := map[string]*result.Result{}
		var last *result.Result
		var lastPath string
		err := session.Run(ctx, so, func(ctx context.Context, sess *session.Session) error {
			for _, m := range ms {
				path := filepath.Join(dir, result.FileName(m.Cell))
				res, err := sess.RunCell(ctx, m, cfg.Calibrate.Trials, nil)
				if res != nil {
					if werr := result.Write(path, res); werr != nil {
						return fmt.Errorf("calibrate: %w", werr)
					}
					got[m.Cell], last, lastPath = res, res, path
				}
				if err != nil {
					return fmt.Errorf("%s: %w", m.Cell, err)
				}
				fmt.Fprintf(s.Err, "calibrate: session %d: %s: %d trials (%d valid) -> %s\n", i, m.Cell, len(res.Trials), len(res.ValidTrials()), path)
			}
			return nil
		})
		if err != nil {
			if f, failed := session.Failure(err); failed {
				// As perfgate run does: the cell the server cut short is
				// kept, marked incomplete by the session, with the end of
				// the log.
				if last != nil && !f.BeforeReady {
					if werr := result.Write(lastPath, last); werr != nil {
						return nil, fmt.Errorf("calibrate: %w", werr)
					}
				}
				return nil, exitf(ExitRunFailed, "calibrate: session %d of %d: %s; the results so far are in %s", i, k, f.Summary, cfg.Output)
			}
			var ee *ExitError
			if errors.As(err, &ee) {
				return nil, err
			}
			return nil, exitf(ExitRunFailed, "calibrate: session %d of %d: %w; the results so far are in %s", i, k, err, cfg.Output)
		}
		sessions = append(sessions, got)
	}
	return sessions, nil
}

// calibrateLog is where session i's server output goes: beside its
// results, or, with server.log set, that file with the session number
// before its extension. Each start gets its own file because a launch
// replaces its log, and a session's log explains its numbers.
func calibrateLog(log, dir string, i int) string {
	if log == "" {
		return filepath.Join(dir, "server.log")
	}
	ext := filepath.Ext(log)
	return fmt.Sprintf("%s.session-%02d%s", log[:len(log)-len(ext)], i, ext)
}

// calibrateWritable creates dir and proves a file can be written in it.
func calibrateWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s for the noise file: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".perfgate-write-check-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}
