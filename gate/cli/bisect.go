package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/bisect"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/workload"
)

func init() { register(newBisectCmd) }

// bisectFlagKeys binds bisect's server flags to perfgate.yaml's server
// and policy settings, as ab's do.
var bisectFlagKeys = map[string]string{
	"output":        "output",
	"server-cmd":    "server.command",
	"server-env":    "server.env",
	"url":           "server.url",
	"ready-timeout": "server.ready_timeout",
	"engine":        "server.engine",
}

// bisectOptions are bisect's flags that are not configuration settings.
type bisectOptions struct {
	configFile          string
	good, bad, repo     string
	workloads           []string
	metric, buildCmd    string
	alpha, tolerance    float64
	minShare            float64
	blocks, moreBlocks  int
	maxBlocks, budget   int
	blockTrials         int
	warmups             int
	limits              metrics.Limits // the limit flags; read through the configuration (limitKeys)
	grace, progressEach time.Duration
}

// newBisectCmd builds `perfgate bisect`: the commit between a good and a
// bad one that made a metric worse (docs/bisect.md).
func newBisectCmd(s *Streams) *cobra.Command {
	var o bisectOptions
	cmd := &cobra.Command{
		Use:   "bisect --good SHA --bad SHA -w WORKLOAD --server-cmd '... {sha}' [--build-cmd '... {sha}'] [--metric tpot_ms.p50] -o DIR",
		Short: "Find the commit that made a metric worse, by interleaved A/B steps with a bounded error",
		Long: `bisect searches the first-parent commits from --good to --bad for the one
that made --metric worse. Each step runs the range's midpoint against both
ends in interleaved blocks (the paired verdict of perfgate ab, each block a
fresh start of the commit's server), with three outcomes: like good, like
bad, or undecided (more blocks, up to --max-blocks per experiment and
--budget for the search). A step whose two halves both hold a part of the
change searches both, so a change spread over two commits names both with
their share. The chance of naming a wrong commit is at most --alpha.

{sha} in --build-cmd and --server-cmd is replaced by the commit's full id.
The build runs once per commit (DIR/builds/<sha>.ok marks it done); the
server command is started for every block. Every experiment is kept under
DIR/pairs/, so a rerun, or a search for another --metric, measures no block
twice, and an interrupted search continues where it stopped.

It writes DIR/bisect-<metric>.json and DIR/bisect-<metric>.md (for the
nightly issue). Exit codes: 0 a culprit found, 1 none found (the ends do not
differ, or the budget ran out), 2 invalid input, 3 stopped (a build or
server failed, or an interrupt). See docs/bisect.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return bisectMain(cmd.Context(), s, cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.configFile, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	f.StringVar(&o.good, "good", "", "the last commit known good (required)")
	f.StringVar(&o.bad, "bad", "", "the first commit known bad (required)")
	f.StringVar(&o.repo, "repo", ".", "the git repository the commits are in")
	f.StringArrayVarP(&o.workloads, "workload", "w", nil, "the workload file (one workload cell)")
	f.StringVar(&o.metric, "metric", "tpot_ms.p50", "the metric whose worsening is searched for")
	f.StringP("output", "o", "", "output directory (default: the configuration's output, perfgate-out)")
	f.StringVar(&o.buildCmd, "build-cmd", "", "command that builds commit {sha}, run once per commit (e.g. 'pip install --target /wheels/{sha} ...')")
	f.String("server-cmd", "", "command that serves commit {sha}, started for every block")
	f.StringArray("server-env", nil, "NAME=value added to the server's environment (repeatable)")
	f.String("url", "", "where a launched server is measured when its log does not print its address")
	f.Duration("ready-timeout", 0, "how long to wait for each start to become ready")
	f.String("engine", "", "the server's engine: auto (default), vllm, sglang, ollama, llamacpp, tgi or openai")
	f.Float64Var(&o.alpha, "alpha", bisect.DefaultAlpha, "bound on the chance of naming a wrong commit")
	f.Float64Var(&o.tolerance, "tolerance", 0, "a change between the ends below this fraction is no difference (default: the metric's tolerance)")
	f.Float64Var(&o.minShare, "min-share", bisect.DefaultMinShare, "the share of the ends' change a part must hold to be searched on its own")
	f.IntVar(&o.blocks, "blocks", bisect.DefaultBlocks, "blocks of each experiment's first look")
	f.IntVar(&o.moreBlocks, "more-blocks", bisect.DefaultMoreBlocks, "blocks each further look adds while a step is undecided")
	f.IntVar(&o.maxBlocks, "max-blocks", bisect.DefaultMaxBlocks, "most blocks of one experiment")
	f.IntVar(&o.budget, "budget", bisect.DefaultBudget, "most blocks of the whole search")
	f.IntVar(&o.blockTrials, "block-trials", ab.DefaultBlockTrials, "trials per block")
	f.IntVar(&o.warmups, "warmups", -1, "warmup requests before each trial (-1: the workload's)")
	limitFlags(f, &o.limits)
	f.DurationVar(&o.grace, "grace", loadgen.DefaultGrace, "after Ctrl-C, how long in-flight requests may finish")
	f.DurationVar(&o.progressEach, "progress-interval", loadgen.DefaultProgressInterval, "period of progress lines when stderr is not a terminal")
	return cmd
}

// bisectPlan is what bisectMain resolved before the first block.
type bisectPlan struct {
	cfg     config.Config
	m       *workload.Manifest
	commits []bisect.Commit
	server  []string // the server command with {sha}
	build   []string // the build command with {sha}; nil: none
	opts    bisect.Options
}

func bisectMain(ctx context.Context, s *Streams, cmd *cobra.Command, o bisectOptions) error {
	p, err := bisectResolve(ctx, s, cmd, o)
	if err != nil {
		return err
	}
	protectHeaders(s, []*workload.Manifest{p.m})
	release, err := outputDir("bisect: --output", p.cfg.Output, "pairs", "builds")
	if err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	defer release()
	so := s.measure(session.Options{
		Workdir: p.cfg.Server.Workdir, ReadyTimeout: p.cfg.Server.ReadyTimeout,
		Load: loadgen.Config{
			Warmups: o.warmups, CacheSalt: true, Terminal: runIsTerminal(s.Err), ProgressInterval: o.progressEach,
			Limits: p.cfg.Limits.Metrics(), Grace: o.grace,
		},
	})
	b := &bisectBench{s: s, p: p, so: so, dir: p.cfg.Output, blockTrials: o.blockTrials, exps: map[bisect.Pair]*abExperiment{}}
	start := time.Now()
	p.opts.Progress = func(pr bisect.Progress) { bisectProgress(s, p.commits, pr, time.Since(start)) }
	res, runErr := bisect.Search(ctx, p.commits, b, p.opts)
	if res == nil {
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("bisect: %w", runErr)}
	}
	paths, err := bisectWrite(p.cfg.Output, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "%s: %s\nGPU time %s in %d blocks; wrote %s and %s\n", res.Status, res.Message,
		bisect.Hours(res.GPUSeconds), res.Blocks, paths[0], paths[1])
	for _, c := range res.Culprits {
		fmt.Fprintf(s.Out, "culprit %s %q by %s: %s [%s, %s] against its parent, %.0f %% of the step\n", c.Commit.SHA, c.Commit.Subject,
			c.Commit.Author, bisectPct(c.Effect.Worse), bisectPct(c.Effect.Low), bisectPct(c.Effect.High), 100*c.Share)
	}
	switch {
	case runErr != nil:
		return exitf(ExitRunFailed, "bisect: %v", runErr)
	case res.Status == bisect.Found:
		return nil
	default:
		return &ExitError{Code: ExitRegression}
	}
}

func bisectPct(x float64) string { return fmt.Sprintf("%+.1f %%", x) }

// bisectWrite writes the search's JSON and markdown, named by the metric so
// a search for another metric in the same directory keeps both.
func bisectWrite(dir string, res *bisect.Result) ([2]string, error) {
	base := filepath.Join(dir, "bisect-"+strings.ReplaceAll(res.Metric, "/", "_"))
	paths := [2]string{base + ".json", base + ".md"}
	var js, md bytes.Buffer
	if err := bisect.JSON(&js, res); err != nil {
		return paths, err
	}
	if err := bisect.Markdown(&md, res); err != nil {
		return paths, err
	}
	for i, data := range [][]byte{js.Bytes(), md.Bytes()} {
		if err := result.WriteFileAtomic(paths[i], data); err != nil {
			return paths, fmt.Errorf("bisect: writing %s: %w", paths[i], err)
		}
	}
	return paths, nil
}

// bisectProgress prints where the search stands, with its ETA in GPU time.
func bisectProgress(s *Streams, cs []bisect.Commit, pr bisect.Progress, wall time.Duration) {
	what := fmt.Sprintf("step %d", pr.Step)
	if pr.Step == 0 {
		what = "the ends"
	}
	fmt.Fprintf(s.Err, "bisect: %s, look %d: range %s..%s (%d commits); %d blocks, %s GPU (%s wall) so far; about %d step(s) left, ETA %s GPU\n",
		what, pr.Look, shortSHA(cs[pr.Lo+1].SHA), shortSHA(cs[pr.Hi].SHA), pr.Hi-pr.Lo, pr.Blocks, bisect.Hours(pr.GPUSeconds),
		wall.Round(time.Second), pr.StepsLeft, bisect.Hours(pr.ETASeconds))
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// shaPlaceholder is the placeholder's name in messages.
const shaPlaceholder = "{sha}"

// bisectResolve loads and checks everything before anything runs: the
// configuration, the workload, the commits, the commands.
func bisectResolve(ctx context.Context, s *Streams, cmd *cobra.Command, o bisectOptions) (*bisectPlan, error) {
	l, err := s.loadConfig(o.configFile, cmd, bisectFlagKeys)
	if err != nil {
		return nil, err
	}
	p := &bisectPlan{cfg: l.Config}
	switch {
	case o.good == "" || o.bad == "":
		return nil, exitf(ExitInvalid, "bisect: --good and --bad are required (the last good and the first bad commit, e.g. from perfgate history)")
	case len(o.workloads) != 1:
		return nil, exitf(ExitInvalid, "bisect: -w takes one workload file (got %d): a search follows one metric of one workload", len(o.workloads))
	case len(p.cfg.Server.Command) == 0:
		return nil, exitf(ExitInvalid, "bisect: --server-cmd is required: the command that serves commit %s", shaPlaceholder)
	case o.blockTrials < 1:
		return nil, exitf(ExitInvalid, "bisect: --block-trials %d: must be at least 1", o.blockTrials)
	case o.warmups < -1:
		return nil, exitf(ExitInvalid, "bisect: --warmups %d: must be >= 0 (or -1 for the workload's)", o.warmups)
	}
	p.server = p.cfg.Server.Command
	if o.buildCmd != "" {
		if p.build, err = config.SplitArgv(o.buildCmd); err != nil {
			return nil, exitf(ExitInvalid, "bisect: --build-cmd: %w", err)
		}
	}
	if !hasSHA(p.server) && !hasSHA(p.build) {
		return nil, exitf(ExitInvalid, "bisect: neither --build-cmd nor --server-cmd holds %s: every commit would run the same server", shaPlaceholder)
	}
	policy, err := gatePolicy(l)
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	wl := workload.Loader{Warn: func(e *workload.Error) { fmt.Fprintln(s.Err, e) }}
	ms, err := wl.LoadPaths(o.workloads)
	if err != nil {
		n := validatePrint(s, err)
		return nil, exitf(ExitInvalid, "invalid workloads: %d problem(s)", n)
	}
	if len(ms) != 1 || ms[0].IsCommand() {
		return nil, exitf(ExitInvalid, "bisect: -w %s: want one serving workload cell, got %d cell(s)", o.workloads[0], len(ms))
	}
	p.m = ms[0]
	session.DefaultGPUs(ms, session.GPUs(p.cfg.Server.GPUs, p.server))
	if p.commits, err = gitRange(ctx, o.repo, o.good, o.bad); err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: fmt.Errorf("bisect: %w", err)}
	}
	p.opts = bisect.Options{Metric: o.metric, Policy: policy, Tolerance: o.tolerance, Alpha: o.alpha, MinShare: o.minShare,
		Blocks: o.blocks, MoreBlocks: o.moreBlocks, MaxBlocks: o.maxBlocks, Budget: o.budget}
	if err := p.opts.Validate(len(p.commits)); err != nil {
		return nil, exitf(ExitInvalid, "bisect: %w (--metric, --alpha, --min-share, --tolerance, --blocks, --more-blocks, --max-blocks, --budget)", err)
	}
	fmt.Fprintf(s.Err, "bisect: %d commits after %s up to %s; %s\n", len(p.commits)-1, shortSHA(p.commits[0].SHA),
		shortSHA(p.commits[len(p.commits)-1].SHA), bisectBoundLine(len(p.commits)-1, o.alpha))
	return p, nil
}

// bisectBoundLine states the error bound before the search starts.
func bisectBoundLine(n int, alpha float64) string {
	return fmt.Sprintf("a wrong commit is named with a chance of at most %.0f %% (%d decisions, each at %.2f %%)",
		100*alpha, bisect.MaxSteps(n), 100*bisect.StepAlpha(n, alpha))
}

func hasSHA(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, shaPlaceholder) {
			return true
		}
	}
	return false
}

// withSHA is argv with {sha} replaced by sha.
func withSHA(argv []string, sha string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, shaPlaceholder, sha)
	}
	return out
}
