package cli

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/bootstrap"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// initMeasure runs init's measuring stages through the commands that own
// them (calibrate, run, baseline update), so init measures exactly as
// they do, and decides between them.
type initMeasure struct {
	s     *Streams
	o     initOptions
	setup bootstrap.Setup
	store baseline.Store
	start time.Time

	mu    sync.Mutex
	stage string
	total int
}

// run calibrates, decides, writes perfgate.yaml, records the first
// baseline and writes the workflows.
func (m *initMeasure) run(ctx context.Context) (*bootstrap.Plan, error) {
	o, w := m.o, len(m.setup.Workloads)
	out := filepath.Join(o.dir, o.out)
	calDir, baseDir := filepath.Join(out, "calibration"), filepath.Join(out, "baseline")
	// The first baseline's trials are not known until calibration says
	// what the tolerances need; the ETA counts the fewest until then.
	m.setStage("calibration", o.restarts*o.trials*w+o.rules.MinTrials*w)
	stop := m.progress(out)
	defer stop()

	args := []string{"calibrate", "--config", filepath.Join(o.dir, "perfgate.yaml"), "--server-cmd", o.serverCmd, "--profile", o.profile, "--baselines", m.store.Root,
		"--restarts", strconv.Itoa(o.restarts), "--trials", strconv.Itoa(o.trials), "-o", calDir}
	args = append(append(args, m.workloadArgs("--workloads")...), initArgs(o)...)
	if m.setup.Engine != "" {
		args = append(args, "--engine", m.setup.Engine)
	}
	calStart := time.Now()
	if err := m.sub(ctx, "calibration", args); err != nil {
		return nil, err
	}
	calWall := time.Since(calStart)
	n, err := m.store.ReadNoise(o.profile)
	if err != nil {
		return nil, fmt.Errorf("init: reading the calibration: %w", err)
	}
	// The sessions as calibrate --from reads them: complete, one workload
	// hash per cell.
	_, sessions, err := calibrateRead(calDir)
	if err != nil {
		return nil, fmt.Errorf("init: reading the calibration's sessions: %w", err)
	}
	policy := verdict.DefaultPolicy()
	ms := initMetrics(n, sessions, &policy)
	r := o.rules
	r.Family, r.LookAlpha, r.PassAlpha = len(ms), policy.Alpha/float64(max(policy.MaxLooks, 1)), policy.PassAlpha
	costs := bootstrap.CostsOf(sessions, calWall, o.restarts)
	if o.startup > 0 {
		costs.Startup = o.startup
	}
	plan, err := bootstrap.Decide(ms, r, costs)
	if err != nil {
		return nil, exitf(ExitRunFailed, "init: %v; the calibration's results are in %s", err, calDir)
	}
	if err := initWrite(o.dir, "perfgate.yaml", bootstrap.Config(m.setup, &plan)); err != nil {
		return nil, err
	}

	m.setStage(fmt.Sprintf("first baseline (%d trials)", plan.Trials), o.restarts*o.trials*w+plan.Trials*w)
	args = []string{"run", "--server-cmd", o.serverCmd, "--trials", strconv.Itoa(plan.Trials), "-o", baseDir}
	if plan.Mode == bootstrap.Restarted || plan.Mode == bootstrap.RestartedWidened {
		// The baseline is measured as the PR check measures the
		// candidate: over as many server starts.
		args = append(args, "--restarts", strconv.Itoa(plan.Restarts))
	}
	args = append(append(args, m.workloadArgs("-w")...), initArgs(o)...)
	if m.setup.Engine != "" {
		args = append(args, "--engine", m.setup.Engine)
	}
	if err := m.sub(ctx, "baseline run", args); err != nil {
		return nil, err
	}
	args = []string{"baseline", "update", "--from", baseDir, "--profile", o.profile, "--baselines", m.store.Root,
		"--config", filepath.Join(o.dir, "perfgate.yaml")}
	if o.acceptNoisy {
		args = append(args, "--accept-noisy")
	}
	if err := m.sub(ctx, "baseline update", args); err != nil {
		return nil, err
	}
	for _, wf := range bootstrap.WorkflowsFor(plan.Mode) {
		data, err := bootstrap.RenderWorkflow(initExamples, wf, o.profile, &plan)
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		if err := initWrite(o.dir, filepath.Join(".github", "workflows", wf.Name), data); err != nil {
			return nil, err
		}
	}
	return &plan, nil
}

// sub runs one perfgate command as the command line would, keeping its
// exit code, and says which stage failed and where its results are.
func (m *initMeasure) sub(ctx context.Context, stage string, args []string) error {
	fmt.Fprintf(m.s.Err, "init: %s: perfgate %s\n", stage, strings.Join(args, " "))
	root := NewRoot(m.s)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(m.s.Err, "init: the %s failed; what it measured is under %s, and rerunning init with --force starts over\n",
			stage, filepath.Join(m.o.dir, m.o.out))
		return err
	}
	return nil
}

// workloadArgs are the workload paths as flag pairs, relative to the
// working directory.
func (m *initMeasure) workloadArgs(flag string) []string {
	var a []string
	for _, w := range m.setup.Workloads {
		a = append(a, flag, filepath.Join(m.o.dir, w))
	}
	return a
}

func (m *initMeasure) setStage(stage string, total int) {
	m.mu.Lock()
	m.stage, m.total = stage, total
	m.mu.Unlock()
}

// progress prints a progress line for the whole bootstrap whenever a cell
// finishes (its result file appears under out) and every 30 s otherwise.
// It returns the function that stops it.
func (m *initMeasure) progress(out string) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		last, lastAt := -1, time.Time{}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			trials := initTrialsDone(out, m.start)
			if trials == last && time.Since(lastAt) < 30*time.Second {
				continue
			}
			m.mu.Lock()
			p := bootstrap.Progress{Stage: m.stage, Done: trials, Total: m.total, Elapsed: time.Since(m.start)}
			m.mu.Unlock()
			fmt.Fprintln(m.s.Err, p.Line())
			last, lastAt = trials, time.Now()
		}
	}()
	return func() { close(done); wg.Wait() }
}

// initTrialsDone counts the trials in the result files under out written
// since start (an earlier init's stay in the directory).
func initTrialsDone(out string, start time.Time) int {
	n := 0
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return nil
		}
		if info, err := d.Info(); err != nil || info.ModTime().Before(start) {
			return nil
		}
		if r, err := result.Read(p); err == nil {
			n += len(r.Trials)
		}
		return nil
	})
	return n
}

// initMetrics are the gated (cell, metric) pairs the calibration has noise
// for, with the tolerance each workload's rules give it.
func initMetrics(n *baseline.Noise, sessions []map[string]*result.Result, p *verdict.Policy) []bootstrap.Metric {
	var out []bootstrap.Metric
	for cell, nc := range n.Cells {
		r := sessions[0][cell]
		if r == nil {
			continue
		}
		rules, err := p.Resolve(r.Workload.Spec)
		if err != nil {
			continue
		}
		for id, rule := range rules {
			nm, ok := nc.Metrics[id]
			if !rule.Gated || !ok {
				continue
			}
			out = append(out, bootstrap.Metric{Cell: cell, ID: id, Label: metrics.Label(id), Absolute: verdict.Absolute(id),
				Tolerance: rule.Tolerance, Noise: verdict.Prior{WithinVar: nm.WithinVar, WithinDF: nm.WithinDF,
					BetweenVar: nm.BetweenVar, BetweenDF: nm.BetweenDF, Source: "calibration"}})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cell != out[j].Cell {
			return out[i].Cell < out[j].Cell
		}
		return out[i].ID < out[j].ID
	})
	return out
}
