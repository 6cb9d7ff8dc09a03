package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/examples"
	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/bootstrap"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/gitstore"
	"github.com/perfgate/perfgate/workloads"
)

func init() { register(newInitCmd) }

// initOptions are init's flags.
type initOptions struct {
	dir, profile, serverCmd, baselines, out string
	branch                                  string // init_branch.go
	workloads, serverEnv                    []string
	restarts, trials                        int
	readyTimeout, startup, maxGPU           time.Duration
	rules                                   bootstrap.Rules
	dispatchLagMs                           float64
	force, acceptNoisy                      bool
}

// newInitCmd builds `perfgate init`: the one command a team runs on its
// GPU runner to go from nothing to a PR check that decides (docs/init.md).
func newInitCmd(s *Streams) *cobra.Command {
	o := initOptions{rules: bootstrap.DefaultRules()}
	cmd := &cobra.Command{
		Use:   "init --server-cmd CMD [--workloads smoke|NAME|FILE...] [--profile P]",
		Short: "Set up perfgate on a GPU runner: config, workflows, calibration, first baseline, and the PR check that decides",
		Long: `init is run once on the GPU runner. It writes perfgate.yaml (engine detected
from the command, the workloads given: "smoke" or names from the shipped set
are copied into workloads/, paths are used as they are), then calibrates
(--restarts server starts of --trials trials: perfgate calibrate), chooses the
PR check from the measured noise, records a first baseline with the trials it
needs (perfgate run + perfgate baseline update), writes the workflows (PR
check, nightly, release) under .github/workflows/, and ends with one table:
per gated metric the smallest change a PR check decides, its GPU time, and
what more trials, blocks or nightly history would decide.

It chooses a stored baseline when some trial count up to --max-trials lets an
unchanged build pass every gated metric at its tolerance in 90 % of runs; else
an interleaved A/B of the PR against its merge base (perfgate ab) when up to
--max-blocks blocks do (and --max-gpu allows); else a stored baseline at the
tolerances calibration shows decidable. It never overwrites a file without
--force, and names the files it would. See docs/init.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return initMain(cmd.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", ".", "the repository root init writes into")
	f.StringVar(&o.profile, "profile", "default", "baseline profile: hardware + model + serving config")
	f.StringVar(&o.serverCmd, "server-cmd", "", "command that launches the server (required: calibration restarts it)")
	f.StringArrayVar(&o.serverEnv, "server-env", nil, "NAME=value added to the server's environment (repeatable)")
	f.StringSliceVar(&o.workloads, "workloads", []string{"smoke"}, `workloads: "smoke", names of shipped workloads (q7b-512-256-c32), or files/globs`)
	f.StringVar(&o.baselines, "baselines", "baselines", "baseline store directory, relative to --dir, when the store is kept in the tree (--branch \"\" or no git checkout)")
	f.StringVar(&o.branch, "branch", gitstore.DefaultBranch, "git branch the baselines are kept on, where the nightly records (committed locally; push it); \"\" keeps them in the tree (--baselines)")
	f.StringVarP(&o.out, "output", "o", "perfgate-init", "directory for the calibration's and the baseline run's results, relative to --dir")
	f.IntVar(&o.restarts, "restarts", 5, "calibration: server starts, at least 3")
	f.IntVar(&o.trials, "trials", 3, "calibration: trials per start, at least 2")
	f.IntVar(&o.rules.MinTrials, "min-trials", o.rules.MinTrials, "fewest trials per arm of a stored-baseline PR check")
	f.IntVar(&o.rules.MaxTrials, "max-trials", o.rules.MaxTrials, "most trials per arm of a stored-baseline PR check")
	f.IntVar(&o.rules.BlockTrials, "block-trials", o.rules.BlockTrials, "trials per block of an A/B PR check")
	f.IntVar(&o.rules.MaxBlocks, "max-blocks", o.rules.MaxBlocks, "most blocks of an A/B PR check")
	f.IntVar(&o.rules.MaxRestarts, "max-restarts", o.rules.MaxRestarts, "most server starts per arm of a restarted stored PR check (trials.restarts; below 2: none)")
	f.DurationVar(&o.maxGPU, "max-gpu", bootstrap.DefaultRules().MaxGPU, "most GPU time one PR check may take, start-ups priced at --startup (0: no bound)")
	f.DurationVar(&o.startup, "startup", 0, "a server start-up's time for the GPU-time figures (0: as measured by the calibration)")
	f.DurationVar(&o.readyTimeout, "ready-timeout", 0, "how long to wait for each start to become ready (default 10m)")
	f.Float64Var(&o.dispatchLagMs, "max-dispatch-lag-ms", 0, "passed to calibrate and run: a trial whose dispatch lag p99 exceeds this is invalid (0: their default)")
	f.BoolVar(&o.force, "force", false, "overwrite files an earlier init (or anyone) wrote")
	f.BoolVar(&o.acceptNoisy, "accept-noisy", false, "passed to baseline update: keep a first baseline whose spread is far above the calibration's, with a recorded warning")
	return cmd
}

// initFiles are the paths init writes, relative to --dir.
type initFiles struct {
	config    string
	workloads map[string][]byte // copied from the shipped set
	workflows []string
	measured  []string // written by calibrate and baseline update
}

func initMain(ctx context.Context, s *Streams, o initOptions) error {
	if strings.TrimSpace(o.serverCmd) == "" {
		return exitf(ExitInvalid, "init: --server-cmd is required: calibration restarts the server, which only a server perfgate launches allows")
	}
	argv, err := config.SplitArgv(o.serverCmd)
	if err != nil || len(argv) == 0 {
		return exitf(ExitInvalid, "init: --server-cmd %q: %v", o.serverCmd, err)
	}
	if err := baseline.ValidateProfile(o.profile); err != nil {
		return exitf(ExitInvalid, "init: --profile: %w", err)
	}
	if o.restarts < 3 || o.trials < 2 {
		return exitf(ExitInvalid, "init: --restarts %d --trials %d: calibration needs at least 3 starts of 2 trials", o.restarts, o.trials)
	}
	o.rules.MaxGPU = o.maxGPU
	wls, copies, err := initWorkloads(o.dir, o.workloads)
	if err != nil {
		return exitf(ExitInvalid, "init: --workloads: %w", err)
	}
	files := initFiles{config: config.DefaultFile, workloads: copies}
	for _, w := range bootstrap.WorkflowsFor(bootstrap.Stored) {
		files.workflows = append(files.workflows, filepath.Join(".github", "workflows", w.Name))
	}
	setting, store, branch := initStore(ctx, s, o)
	files.measured = []string{mustRel(o.dir, store.NoisePath(o.profile))}
	if existing, _ := filepath.Glob(filepath.Join(store.Dir(o.profile), "*.json")); len(existing) > 0 {
		for _, p := range existing {
			files.measured = append(files.measured, mustRel(o.dir, p))
		}
	}
	if clash := initClashes(o.dir, files); len(clash) > 0 && !o.force {
		return exitf(ExitInvalid, "init: would overwrite %s; rerun with --force to replace them (the baselines' history is appended to, not replaced)", strings.Join(clash, ", "))
	}
	for name, data := range copies {
		if err := initWrite(o.dir, name, data); err != nil {
			return err
		}
	}
	setup := bootstrap.Setup{Profile: o.profile, Workloads: wls, ServerCommand: argv, ServerEnv: o.serverEnv, Restarts: o.restarts, TrialsPerRestart: o.trials, Baselines: setting}
	if name, ok := engine.FromArgv(argv); ok {
		setup.Engine = string(name)
	}
	// perfgate.yaml is written before measuring, with the policy's
	// defaults, and calibrate reads it: a configuration left in the
	// directory by an earlier init or by hand must not steer this one.
	// It is rewritten with the plan once calibration has decided it.
	if err := initWrite(o.dir, files.config, bootstrap.Config(setup, nil)); err != nil {
		return err
	}
	// The progress line is written from its own goroutine while the
	// commands write their own lines: one lock keeps the stream whole.
	ls := *s
	ls.Err = &lockedWriter{w: s.Err}
	m := &initMeasure{s: &ls, o: o, setup: setup, store: store, start: time.Now()}
	plan, err := m.run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out)
	if err := bootstrap.WriteTable(s.Out, plan); err != nil {
		return fmt.Errorf("init: writing the table: %w", err)
	}
	if len(plan.Undecidable) > 0 {
		fmt.Fprintf(s.Err, "perfgate: warning: init: %s cannot be decided on this runner as calibrated: the PR check will report them inconclusive; calibrate on a quiet runner or with more --restarts (rerun init with --force) to decide them\n",
			strings.Join(plan.Undecidable, ", "))
	}
	if branch != "" {
		commit, err := initPublish(ctx, s, o, store, branch)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "\nwrote %s and %s; committed the calibration and a first baseline to the local branch %s (%.12s), where the nightly records\n",
			files.config, strings.Join(files.workflows, ", "), branch, commit)
		fmt.Fprintf(s.Out, "next: commit them and push the branch too (git push origin %s); check the workloads with `perfgate validate workloads/`; docs/init.md says what the first week looks like\n", branch)
		return nil
	}
	fmt.Fprintf(s.Out, "\nwrote %s, %s, calibration %s and a first baseline in %s\n", files.config,
		strings.Join(files.workflows, ", "), mustRel(o.dir, store.NoisePath(o.profile)), mustRel(o.dir, store.Dir(o.profile)))
	fmt.Fprintf(s.Out, "next: commit them (check the workloads with `perfgate validate workloads/`); docs/init.md says what the first week looks like\n")
	return nil
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// initWrite writes data to dir/name, creating its directory.
func initWrite(dir, name string, data []byte) error {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	return nil
}

// initClashes are the files init would write that exist already. A
// shipped workload copied before, byte for byte the same, is no clash: a
// rerun after a failed calibration finds it.
func initClashes(dir string, f initFiles) []string {
	var out []string
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	if exists(f.config) {
		out = append(out, f.config)
	}
	for name, data := range f.workloads {
		if old, err := os.ReadFile(filepath.Join(dir, name)); err == nil && !bytes.Equal(old, data) {
			out = append(out, name)
		}
	}
	for _, name := range append(append([]string{}, f.workflows...), f.measured...) {
		if exists(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// initWorkloads resolves --workloads: "smoke" is the shipped smoke set,
// a name of a shipped workload (with or without .yaml) is that file; both
// are copied to workloads/ under dir. Anything else is a file or glob used
// where it is (relative to dir). It returns the paths perfgate.yaml lists
// and the copies to write.
func initWorkloads(dir string, given []string) ([]string, map[string][]byte, error) {
	var list []string
	copies := map[string][]byte{}
	add := func(shippedPath string) error {
		data, err := fs.ReadFile(workloads.Shipped, shippedPath)
		if err != nil {
			return err
		}
		name := path.Join("workloads", path.Base(shippedPath))
		copies[name] = data
		list = append(list, name)
		return nil
	}
	for _, g := range given {
		g = strings.TrimSpace(g)
		switch {
		case g == "":
			continue
		case g == "smoke":
			names, _ := fs.Glob(workloads.Shipped, "smoke/*.yaml")
			for _, n := range names {
				if err := add(n); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		name := strings.TrimSuffix(g, ".yaml") + ".yaml"
		if !strings.Contains(g, "/") {
			found := false
			for _, cand := range []string{name, "smoke/" + name} {
				if _, err := fs.Stat(workloads.Shipped, cand); err == nil {
					if err := add(cand); err != nil {
						return nil, nil, err
					}
					found = true
					break
				}
			}
			if found {
				continue
			}
		}
		// A glob is expanded here, so calibrate and run (whose -w takes
		// files and directories) get the same files perfgate.yaml lists.
		matches, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil || len(matches) == 0 {
			return nil, nil, fmt.Errorf("%q is neither \"smoke\", a shipped workload (%s) nor a file under %s", g, strings.Join(initShippedNames(), ", "), dir)
		}
		for _, m := range matches {
			list = append(list, filepath.ToSlash(mustRel(dir, m)))
		}
	}
	if len(list) == 0 {
		return nil, nil, fmt.Errorf("no workloads given")
	}
	return list, copies, nil
}

// initShippedNames lists the shipped workloads by the names init takes.
func initShippedNames() []string {
	var out []string
	for _, pat := range []string{"*.yaml", "smoke/*.yaml"} {
		names, _ := fs.Glob(workloads.Shipped, pat)
		for _, n := range names {
			out = append(out, strings.TrimSuffix(path.Base(n), ".yaml"))
		}
	}
	return out
}

// mustRel is p relative to dir when it can be, else p.
func mustRel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return r
	}
	return p
}

// initExamples is the embedded examples/ tree the workflows come from.
var initExamples fs.FS = examples.FS

// initArgs is the flags calibrate and run share with init.
func initArgs(o initOptions) []string {
	var a []string
	for _, e := range o.serverEnv {
		a = append(a, "--server-env", e)
	}
	if o.readyTimeout > 0 {
		a = append(a, "--ready-timeout", o.readyTimeout.String())
	}
	if o.dispatchLagMs > 0 {
		a = append(a, "--max-dispatch-lag-ms", strconv.FormatFloat(o.dispatchLagMs, 'f', -1, 64))
	}
	return a
}
