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
	"github.com/perfgate/perfgate/gate/merge"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newGateCmd) }

// gateFlagKeys binds gate's flags to configuration settings, so a flag
// overrides PERFGATE_* variables, which override perfgate.yaml. The names
// are the ones action.yml passes.
var gateFlagKeys = map[string]string{
	"profile":              "profile",
	"workloads":            "workloads",
	"url":                  "server.url",
	"server-cmd":           "server.command",
	"gpus":                 "server.gpus",
	"engine":               "server.engine",
	"baselines":            "baselines",
	"output":               "output",
	"trials":               "trials.min",
	"max-trials":           "trials.max",
	"budget":               "trials.budget",
	"alpha":                "policy.alpha",
	"comment":              "github.comment",
	"fail-on-inconclusive": "github.fail_on_inconclusive",
	"repo":                 "github.repository",
	"pr":                   "github.pr",
	"profiling":            "profiling.when",
}

// gateOptions are the flags that are not configuration settings.
type gateOptions struct {
	configFile    string
	shard         string
	from          string
	allowMissing  bool
	allowMismatch bool
	progress      time.Duration
	limits        metrics.Limits
	artifact      string
	// mergeBase and allowBaselineChange: see gate_history.go.
	mergeBase           string
	allowBaselineChange bool
	// getenv and environ read the command's environment, now its clock
	// (Streams).
	getenv  func(string) string
	environ []string
	now     func() time.Time
	// baselinesBranch is the branch the store was read from
	// (baselines: git:BRANCH), "" for a store in the checkout.
	baselinesBranch string
}

// newGateCmd builds `perfgate gate`: validate the workloads, run them
// against the candidate server, compare with baselines/<profile>, add
// trials to undecided workloads within the budget, write results, the
// comparison and the report, and exit with the verdict's code.
func newGateCmd(s *Streams) *cobra.Command {
	var o gateOptions
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Run the workloads, compare with the baselines, report, and exit with the verdict",
		Long: `gate runs every workload of the configuration against the candidate server,
compares the trials with baselines/<profile>/ and, while gated metrics are
undecided, runs more trials for those workloads only (up to trials.max per
workload and trials.budget overall; the family-wise error bound covers every
look). It writes to the output directory:

  results/<cell>.json   one result file per workload cell
  comparison.json       the complete comparison (schema perfgate.comparison/v2)
  report.md             the full markdown report
  comment.md            the PR comment (trimmed to GitHub's size limit)
  report.txt            the terminal report

Exit codes: 0 pass, 1 regression, 2 invalid input or comparison (missing
baseline, changed workload), 3 the run failed (partial results are written
and never pass), 4 inconclusive with --fail-on-inconclusive.

--shard i/N runs every N-th workload cell (for a CI matrix; combine the
shards with perfgate merge). --from DIR skips running and judges results
already on disk (a merged shard directory).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.getenv, o.environ, o.now = s.getenv, s.environ(), s.now
			return gateMain(cmd.Context(), s, cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.configFile, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	f.String("profile", "", "baseline profile: baselines/<profile>/ and the PR comment's marker")
	f.StringSlice("workloads", nil, "workload files or globs (comma-separated or repeated)")
	f.String("url", "", "base URL of the candidate server, e.g. http://127.0.0.1:8000")
	f.String("server-cmd", "", "command that launches the candidate server")
	f.Int("gpus", 0, "GPUs the server uses, for per-GPU throughput of workloads that set no gpus")
	f.String("engine", "", "the server's engine: auto (default), vllm, sglang, ollama, llamacpp, tgi or openai (docs/engines.md)")
	f.String("baselines", "", "baseline store root directory")
	f.StringP("output", "o", "", "output directory")
	f.Int("trials", 0, "trials per workload before the first comparison (default: each workload's trials.min)")
	f.Int("max-trials", 0, "most trials per workload including extra looks (default: each workload's trials.max)")
	f.Duration("budget", 0, "wall-clock budget for extra trials")
	f.Float64("alpha", 0, "family-wise false-regression rate of the gate run")
	f.String("comment", string(config.CommentAlways), "inside GitHub Actions, when to post the PR comment: always, on-change, not-pass or never (true/false: always/never); write --comment=MODE")
	f.Lookup("comment").NoOptDefVal = string(config.CommentAlways)
	f.String("profiling", "", "take a kernel profile after the verdict: never (default), on-regression or always (profiling.when; docs/report.md)")
	f.Bool("fail-on-inconclusive", false, "exit 4 when the verdict is inconclusive (otherwise 0 with a warning)")
	f.StringVar(&o.shard, "shard", "", "run only shard i of N of the workload cells, e.g. 2/4")
	f.StringVar(&o.from, "from", "", "judge the result files in DIR instead of running (e.g. after perfgate merge)")
	f.BoolVar(&o.allowMissing, "allow-missing", false, "compare what can be compared when a workload has no baseline, instead of failing (exit 2)")
	f.BoolVar(&o.allowMismatch, "allow-mismatch", false, "compare even when fingerprint keys that must match (GPU, model) differ")
	f.DurationVar(&o.progress, "progress-interval", loadgen.DefaultProgressInterval, "period of progress lines during a trial")
	limitFlags(f, &o.limits)
	gatePublishFlags(f)
	f.StringVar(&o.artifact, "artifact", "", "inside GitHub Actions, the artifact the output directory is uploaded as (the Action sets it): the report links it on the run page")
	f.StringVar(&o.mergeBase, "merge-base", "", "commit the change branched from: judge against its history entry (default $PERFGATE_MERGE_BASE, or git merge-base with origin/$GITHUB_BASE_REF)")
	f.BoolVar(&o.allowBaselineChange, "allow-baseline-change", false, "accept baselines re-recorded inside the pull request")
	return cmd
}

// gateMain is perfgate gate: configuration, workloads, baselines, then a
// run (or --from) and the reports and exit code.
func gateMain(ctx context.Context, s *Streams, cmd *cobra.Command, o gateOptions) error {
	l, err := s.loadConfig(o.configFile, cmd, gateFlagKeys)
	if err != nil {
		return err
	}
	cfg := l.Config
	o.limits = cfg.Limits.Metrics()
	root, closeBaselines, err := openBaselines(ctx, s, cfg.Baselines, true)
	if err != nil {
		return err
	}
	defer closeBaselines()
	o.baselinesBranch = branchOf(cfg.Baselines)
	cfg.Baselines = root
	if o.progress <= 0 {
		return exitf(ExitInvalid, "gate: --progress-interval %v: must be positive", o.progress)
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	policy.AllowMissing = policy.AllowMissing || o.allowMissing
	policy.AllowMismatch = policy.AllowMismatch || o.allowMismatch
	baseDir := filepath.Join(cfg.Baselines, cfg.Profile)
	baselines, err := gateBaselines(baseDir)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	if policy.Noise, err = noisePriors(baseDir, baselines, s.Err); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	hist, baselines, err := gateHistoryBefore(ctx, cfg, o, &policy, baselines)
	if err != nil {
		return err
	}

	var manifests []*workload.Manifest
	if len(cfg.Workloads) > 0 {
		var err error
		if manifests, err = workload.LoadPaths(cfg.Workloads); err != nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
		session.DefaultGPUs(manifests, session.GPUs(cfg.Server.GPUs, cfg.Server.Command))
	}
	if o.shard != "" {
		i, n, err := pipeline.ParseShard(o.shard)
		if err != nil {
			return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("--shard: %w", err)}
		}
		if manifests, err = pipeline.Shard(manifests, i, n); err != nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
	}

	protectHeaders(s, manifests)
	serving := gateServing(manifests)
	if o.from == "" {
		if len(manifests) == 0 {
			return exitf(ExitInvalid, "no workloads: set workloads in %s, PERFGATE_WORKLOADS or --workloads", config.DefaultFile)
		}
		if serving && len(cfg.Server.Command) == 0 && cfg.Server.URL == "" {
			return exitf(ExitInvalid, "no server: set server.url or server.command in %s, PERFGATE_SERVER_URL or --url, or --server-cmd", config.DefaultFile)
		}
	}
	release, err := outputDir("output", cfg.Output, merge.ResultsDir)
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	defer release()

	var out *pipeline.Outcome
	var failed *server.Failure // a launched server that failed
	var prof *gateProfile      // the kernel profile (profile.go)
	switch {
	case o.from != "":
		if cfg.Profiling.Mode() != trace.Never {
			fmt.Fprintf(s.Err, "perfgate: warning: profiling.when %s: --from judges results on disk with no server to profile; profile in the shards' gate runs\n", cfg.Profiling.Mode())
		}
		out, err = gateJudge(o.from, baselines, manifests, policy)
		if err != nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
	default:
		prof = &gateProfile{cfg: cfg.Profiling, env: cfg.Server.Env, getenv: s.getenv, outDir: cfg.Output,
			store: baseline.Store{Root: cfg.Baselines}, profile: cfg.Profile, log: s.Err}
		out, err = gateMeasure(ctx, s, cfg, manifests, baselines, policy, l, gateClient{o.progress, o.limits, prof}, &failed)
	}
	if err != nil {
		return err
	}
	if err := hist.after(out, policy, baselines); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	paths := gateReportPaths(cfg, baseDir, out, s.getenv)
	if prof != nil {
		paths.kernels = prof.Kernels
	}
	paths.data.ServerFailure = reportedFailure(failed)
	if paths.data.Artifact, err = gateArtifact(o.artifact, s.getenv); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	atRate, _ := pipeline.WithBaselineRate(baselines, out.Results)
	gateAttachBaselines(paths.data, atRate)
	hist.trend(paths.data)
	return gateFinish(ctx, s, cfg, out, paths)
}

// gateServing reports whether any workload is a serving one (needs a
// server); kind: command workloads run their own command.
func gateServing(ms []*workload.Manifest) bool {
	for _, m := range ms {
		if !m.IsCommand() {
			return true
		}
	}
	return false
}

// gateClient is how gate's load generator reports and judges trials: the
// progress period and the trial validity limits of its flags.
type gateClient struct {
	progress time.Duration
	limits   metrics.Limits
	// profile takes the kernel profile after the verdict (nil: none).
	profile *gateProfile
}

// gateMeasure runs the manifests in one session (gate/session): serving
// ones against the configured server, launched first when server.command
// is set, scraping its /metrics around every trial and sending the API key
// (PERFGATE_API_KEY, then OPENAI_API_KEY); kind: command ones through their
// command, with its output files under <output>/commands/. A launched
// server that dies or stops answering makes the run fail (exit 3): *failed
// then describes it for the results and the report, and a server that
// never became ready still leaves every cell's result saying why
// (pipeline.NeverRan).
func gateMeasure(ctx context.Context, s *Streams, cfg config.Config, ms []*workload.Manifest, baselines []*result.Result, p verdict.Policy, l *config.Loaded, gc gateClient, failed **server.Failure) (*pipeline.Outcome, error) {
	eng, err := measureEngine(cfg.Server.Engine, "server.engine", cfg.Server.Command)
	if err != nil {
		return nil, err
	}
	so := s.measure(session.Options{
		URL: cfg.Server.URL, Engine: eng, ReadyTimeout: cfg.Server.ReadyTimeout,
		CommandDir: filepath.Join(cfg.Output, "commands"),
		Load:       loadgen.Config{ProgressInterval: gc.progress, Warmups: -1, Grace: gateGrace, Limits: gc.limits},
	})
	if gateServing(ms) && len(cfg.Server.Command) > 0 {
		so.Command, so.Env, so.Workdir, so.Log = cfg.Server.Command, cfg.Server.Env, cfg.Server.Workdir, cfg.Server.Log
	}
	opts := pipeline.Options{Baselines: baselines, Policy: p, Budget: cfg.Trials.Budget, Log: s.Err}
	if l.Source("trials.min") != "default" {
		opts.MinTrials = cfg.Trials.Min
	}
	if l.Source("trials.max") != "default" {
		opts.MaxTrials = cfg.Trials.Max
	}
	opts.Restarts = cfg.Trials.Restarts
	var out *pipeline.Outcome
	err = session.RunStarts(ctx, so, func(ctx context.Context, sess *session.Session, restart session.Restart) error {
		trials := sess.Trials()
		if len(so.Command) > 0 {
			opts.Restart = restartTrials(restart)
		}
		if err := pipeline.Preflight(ctx, trials, ms, baselines, p); err != nil {
			return &ExitError{Code: ExitInvalid, Err: err}
		}
		var err error
		if out, err = pipeline.Run(ctx, trials, ms, opts); err != nil {
			return fmt.Errorf("gate: %w", err)
		}
		if out.RunErr == nil {
			gc.profile.after(ctx, trials, sess.URL, config.APIKey(s.getenv), ms, out)
		}
		return nil
	})
	if err == nil {
		return out, nil
	}
	if len(so.Command) == 0 || errors.As(err, new(*session.InvalidError)) {
		return nil, measureSetup(err, "--url")
	}
	f, died := session.Failure(err)
	if out == nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return nil, err
		}
		if !died {
			if f, died = session.Interrupted(err); !died {
				return nil, exitf(ExitRunFailed, "server.command: %w", err)
			}
			// A cancelled job still leaves its results, report and
			// comment, saying why nothing was measured.
		}
		*failed = &f
		return pipeline.NeverRan(ms, baselines, p, f.Summary, f.Tail, result.Tool{Name: "perfgate", Version: Version})
	}
	if died {
		// The server's failure is the news, not the "run interrupted" its
		// cancelled context produced in the cell it cut short (the
		// session marked that cell).
		out.RunErr = errors.New(f.Summary)
		*failed = &f
	}
	return out, nil
}

// gateJudge reads the results already on disk (perfgate merge output)
// and judges them (pipeline.Judge). When workloads are configured, their
// cells are the expected set, so a shard that never uploaded shows up as
// missing instead of vanishing.
func gateJudge(dir string, baselines []*result.Result, ms []*workload.Manifest, p verdict.Policy) (*pipeline.Outcome, error) {
	srcs, err := merge.Read([]string{dir})
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	merged, err := merge.Results(srcs)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	var results []*result.Result
	for _, m := range merged {
		results = append(results, m.Result)
	}
	return pipeline.Judge(results, baselines, ms, p)
}

// gateBaselines reads baselines/<profile>/*.json. A missing directory is
// not an error here: every cell is then reported as missing its baseline,
// which fails closed with a message saying how to record one.
func gateBaselines(dir string) ([]*result.Result, error) {
	if st, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("baselines: %s is not a directory", dir)
	}
	rs, err := result.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("baselines: %w", err)
	}
	return rs, nil
}
