package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newABCmd) }

// abFlagKeys binds ab's flags to configuration settings (perfgate.yaml's
// ab, server, policy, trials and github sections), so a flag overrides
// PERFGATE_* variables, which override the file. The names are the ones
// action.yml passes.
var abFlagKeys = map[string]string{
	"workloads":            "workloads", // -w is added to it, see abResolve
	"output":               "output",
	"profile":              "profile",
	"server-cmd":           "server.command",
	"server-env":           "server.env",
	"server-log":           "server.log",
	"url":                  "server.url",
	"ready-timeout":        "server.ready_timeout",
	"gpus":                 "server.gpus",
	"engine":               "server.engine",
	"a-cmd":                "ab.a.command",
	"b-cmd":                "ab.b.command",
	"a-env":                "ab.a.env",
	"b-env":                "ab.b.env",
	"a-args":               "ab.a.args",
	"b-args":               "ab.b.args",
	"a-url":                "ab.a.url",
	"b-url":                "ab.b.url",
	"blocks":               "ab.blocks",
	"block-trials":         "ab.block_trials",
	"seed":                 "ab.seed",
	"max-blocks":           "ab.max_blocks",
	"budget":               "trials.budget",
	"alpha":                "policy.alpha",
	"comment":              "github.comment",
	"fail-on-inconclusive": "github.fail_on_inconclusive",
	"profiling":            "profiling.when",
}

// abOptions are the flags that are not configuration settings.
type abOptions struct {
	configFile string
	warmups    int
	limits     metrics.Limits // the limit flags; read through the configuration (limitKeys)
	grace      time.Duration
	progress   time.Duration
	artifact   string
}

// newABCmd builds `perfgate ab`: two arms on one runner, interleaved in
// a balanced block order, judged by a paired verdict (docs/ab.md).
func newABCmd(s *Streams) *cobra.Command {
	var o abOptions
	cmd := &cobra.Command{
		Use:   "ab -w FILE|DIR... (--a-cmd CMD --b-cmd CMD | --server-cmd CMD --a-env/--b-env/--a-args/--b-args | --a-url URL --b-url URL) -o DIR",
		Short: "Interleaved A/B of two servers (or benchmark commands) on one runner, with a paired verdict",
		Long: `ab runs two arms on the same runner in blocks of a balanced order (ABBA BAAB,
or a seeded random balanced order with --seed), so a linear drift of the runner
cancels, and decides whether B differs from A with a paired verdict: the same
tolerances, directions, Holm family over every gated (workload, metric) cell,
adaptive looks and exit codes as perfgate gate, without any stored baseline.

An arm is a server command (--a-cmd, --b-cmd), or --server-cmd with an
overlay per arm (--a-env NAME=value, --a-args "..." appended to the command),
or the URL of a server already up (--a-url, --b-url). A launched arm is
restarted for every block: launch, readiness, warmups, --block-trials trials
of every workload, stop; its start-up time is recorded per block (the price
of the design). With two URLs the arms alternate one trial at a time.
kind: command workloads interleave their benchmark command the same way,
--a-cmd/--b-cmd replacing it and the overlays applying to it.

It writes to the output directory:

  a/<cell>.json, b/<cell>.json  each arm's results (arm, block order, blocks)
  comparison.json               the paired comparison of B vs A
  report.md, comment.md         the full report and the PR comment
  report.txt                    the terminal report

Exit codes: 0 pass, 1 regression (B worse than A), 2 invalid input,
3 the run failed (a server died in a block: partial results are written and
never pass), 4 inconclusive with --fail-on-inconclusive. See docs/ab.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return abMain(cmd.Context(), s, cmd, o) },
	}
	cmd.AddCommand(newABPlanCmd(s))
	f := cmd.Flags()
	f.StringVar(&o.configFile, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	f.StringArrayP("workload", "w", nil, "workload file or directory (repeatable)")
	f.StringSlice("workloads", nil, "workload files or globs, comma-separated (as perfgate gate takes them)")
	f.StringP("output", "o", "", "output directory (default: the configuration's output, perfgate-out)")
	f.String("profile", "", "profile named in the PR comment's marker")
	f.String("server-cmd", "", "server command of both arms, with --a-env/--b-env and --a-args/--b-args overlays")
	f.StringArray("server-env", nil, "NAME=value added to both arms' server environment (repeatable)")
	f.String("server-log", "", "file that receives the servers' output; each block gets its own file beside it")
	f.String("url", "", "where a launched server is measured when its log does not print its address")
	f.Duration("ready-timeout", 0, "how long to wait for each start to become ready")
	f.Int("gpus", 0, "GPUs the server uses, for per-GPU throughput of workloads that set no gpus")
	f.String("engine", "", "the servers' engine: auto (default), vllm, sglang, ollama, llamacpp, tgi or openai (docs/engines.md)")
	for _, arm := range []string{"a", "b"} {
		up := map[string]string{"a": "A", "b": "B"}[arm]
		f.String(arm+"-cmd", "", "command that launches arm "+up+"'s server (kind: command workloads: replaces the benchmark command)")
		f.StringArray(arm+"-env", nil, "NAME=value added to arm "+up+"'s environment (repeatable)")
		f.String(arm+"-args", "", "arguments appended to arm "+up+"'s command, split like --server-cmd")
		f.String(arm+"-url", "", "base URL of arm "+up+"'s server: one that is already up, or where its command serves")
	}
	f.Int("blocks", 0, fmt.Sprintf("blocks in the balanced order, both arms together (default %d)", ab.DefaultBlocks))
	f.Int("block-trials", 0, fmt.Sprintf("trials of every workload per block (default %d; 1 with two URLs)", ab.DefaultBlockTrials))
	f.Int("seed", 0, "seed of a random balanced order (0: the fixed ABBA BAAB order)")
	f.Int("max-blocks", 0, "most blocks over all looks: more are run only while a gated metric is undecided (0: none)")
	f.Duration("budget", 0, "wall-clock budget for the extra blocks of later looks")
	f.Float64("alpha", 0, "family-wise false-regression rate of the experiment")
	f.String("comment", string(config.CommentAlways), "inside GitHub Actions, when to post the PR comment: always, on-change, not-pass or never")
	f.Lookup("comment").NoOptDefVal = string(config.CommentAlways)
	f.String("profiling", "", "after the verdict, profile one short trial of the worst regressed workload on both arms: never (default), on-regression or always (profiling.when; docs/report.md)")
	f.Bool("fail-on-inconclusive", false, "exit 4 when the verdict is inconclusive (otherwise 0 with a warning)")
	f.IntVar(&o.warmups, "warmups", -1, "warmup requests before each trial (-1: the workload's)")
	limitFlags(f, &o.limits)
	f.DurationVar(&o.grace, "grace", loadgen.DefaultGrace, "after Ctrl-C, how long in-flight requests may finish")
	f.DurationVar(&o.progress, "progress-interval", loadgen.DefaultProgressInterval, "period of progress lines when stderr is not a terminal")
	f.StringVar(&o.artifact, "artifact", "", "inside GitHub Actions, the artifact the output directory is uploaded as (the Action sets it)")
	return cmd
}

// abPlan is what abMain resolved before the first block.
type abPlan struct {
	cfg         config.Config
	ms          []*workload.Manifest
	arms        [2]abArm
	policy      verdict.Policy
	blocks      int
	maxBlocks   int
	blockTrials int
	seed        uint64
	resident    bool
}

// abMain is perfgate ab: configuration, workloads and arms, the blocks and
// their looks, then the reports and the exit code.
func abMain(ctx context.Context, s *Streams, cmd *cobra.Command, o abOptions) error {
	p, err := abResolve(s, cmd, o)
	if err != nil {
		return err
	}
	protectHeaders(s, p.ms)
	release, err := outputDir("ab: --output", p.cfg.Output, "a", "b")
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	defer release()
	so := s.measure(session.Options{
		Workdir: p.cfg.Server.Workdir, ReadyTimeout: p.cfg.Server.ReadyTimeout, Log: p.cfg.Server.Log,
		Load: loadgen.Config{
			Warmups: o.warmups, CacheSalt: true, Terminal: runIsTerminal(s.Err), ProgressInterval: o.progress,
			Limits: p.cfg.Limits.Metrics(), Grace: o.grace,
		},
	})
	x := newABExperiment(s, p.ms, p.arms, p.blockTrials, so, p.cfg.Output, p.seed)
	var out *pipeline.Outcome
	err = x.withResident(ctx, 0, func(ctx context.Context) error {
		var err error
		if out, err = abLooks(ctx, s, x, p); err == nil {
			x.kernels = abProfile(ctx, x, p, out) // profile_ab.go
		}
		return err
	})
	if err != nil {
		return err
	}
	return abFinish(ctx, s, p, x, out, o.artifact)
}

// abResolve loads and checks everything before anything starts.
func abResolve(s *Streams, cmd *cobra.Command, o abOptions) (*abPlan, error) {
	l, err := s.loadConfig(o.configFile, cmd, abFlagKeys)
	if err != nil {
		return nil, err
	}
	p := &abPlan{cfg: l.Config}
	// -w (run's spelling, repeatable) and --workloads (gate's, a list)
	// are one setting: either overrides the file, both add up.
	if f := cmd.Flags().Lookup("workload"); f.Changed {
		w, _ := cmd.Flags().GetStringArray("workload")
		if !cmd.Flags().Changed("workloads") {
			p.cfg.Workloads = nil
		}
		p.cfg.Workloads = append(w, p.cfg.Workloads...)
	}
	switch {
	case o.warmups < -1:
		return nil, exitf(ExitInvalid, "ab: --warmups %d: must be >= 0 (or -1 for the workload's)", o.warmups)
	case o.grace <= 0 || o.progress <= 0:
		return nil, exitf(ExitInvalid, "ab: --grace and --progress-interval must be positive")
	case len(p.cfg.Workloads) == 0:
		return nil, exitf(ExitInvalid, "ab: -w FILE|DIR is required (or workloads in %s)", config.DefaultFile)
	}
	if p.policy, err = gatePolicy(l); err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	wl := workload.Loader{Warn: func(e *workload.Error) { fmt.Fprintln(s.Err, e) }}
	if p.ms, err = wl.LoadPaths(p.cfg.Workloads); err != nil {
		n := validatePrint(s, err)
		return nil, exitf(ExitInvalid, "invalid workloads: %d problem(s)", n)
	}
	if len(p.ms) == 0 {
		return nil, exitf(ExitInvalid, "ab: no workload cells to run")
	}
	serving := gateServing(p.ms)
	for _, m := range p.ms {
		if m.IsCommand() == serving {
			return nil, exitf(ExitInvalid, "ab: %s: serving and kind: command workloads cannot share one experiment (an arm is a server for the one, a benchmark command for the other); run them apart", m.Cell)
		}
	}
	if p.arms, err = abArms(p.cfg, !serving); err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	for i := range p.arms {
		if p.arms[i].engine, err = measureEngine(p.cfg.Server.Engine, "server.engine", p.arms[i].command); err != nil {
			return nil, err
		}
	}
	// GPUs from arm A's command when none are configured: both arms serve
	// the same workloads on the same runner.
	session.DefaultGPUs(p.ms, session.GPUs(p.cfg.Server.GPUs, p.arms[0].command))
	p.resident = serving && p.arms[0].resident()
	p.blocks, p.blockTrials, p.maxBlocks = p.cfg.AB.Blocks, p.cfg.AB.BlockTrials, p.cfg.AB.MaxBlocks
	if p.blockTrials == 0 {
		p.blockTrials = ab.DefaultBlockTrials
		if p.resident {
			// Two resident servers alternate trial by trial: as many
			// trials per arm as the default design, in blocks of one.
			p.blockTrials = 1
		}
	}
	if p.blocks == 0 {
		p.blocks = ab.DefaultBlocks
		if p.resident && l.Source("ab.block_trials") == "default" {
			p.blocks = ab.DefaultBlocks * ab.DefaultBlockTrials
		}
	}
	if p.maxBlocks > 0 && p.maxBlocks < p.blocks {
		return nil, exitf(ExitInvalid, "ab: --max-blocks %d: below the %d blocks of the first look", p.maxBlocks, p.blocks)
	}
	p.seed = uint64(p.cfg.AB.Seed)
	return p, nil
}
