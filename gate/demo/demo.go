// Package demo is perfgate's first-run experience: it starts the simulated
// vLLM server in process, records a baseline with the smoke workloads,
// injects a decode slowdown into the simulator, runs the same workloads as
// the candidate, and shows the verdict and the PR comment perfgate would
// post. Nothing leaves the machine: the server listens on 127.0.0.1.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server/scrape"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// Options tune the demo. The zero value plus Manifests and Dir works.
type Options struct {
	// Manifests are the workloads to run (the smoke set).
	Manifests []*workload.Manifest
	// Dir receives baseline/, candidate/ (result files), comparison.json,
	// report.txt and comment.md.
	Dir string
	// DecodeScale multiplies the simulator's decode cost for the
	// candidate; 0 means 1.15 (a 15 % decode slowdown). 1 runs an
	// unchanged candidate.
	DecodeScale float64
	// Preset is the simulator preset; "" means "fast".
	Preset string
	// Sim, when set, is the simulator configuration to use instead of the
	// preset (tests slow the steps down for a loaded machine).
	Sim *sim.Config
	// Trials overrides the workloads' trial counts when positive.
	Trials int
	// Version is the tool version recorded in results.
	Version string
	// Progress receives progress lines; nil discards.
	Progress io.Writer
	// Profile says when to profile one trial of the worst regressed
	// workload on each arm (the simulator writes a Chrome trace under
	// profiles/); "" is never.
	Profile trace.Mode
	// Limits decide trial validity; zero fields are metrics.DefaultLimits.
	// Tests on a loaded machine raise DispatchLagMs: there the client
	// wakes late now and then, which is not what they test.
	Limits metrics.Limits

	// kernels is the profiles' comparison render attaches (set by Run).
	kernels *verdict.KernelDiff
}

// Outcome is what the demo found and where it wrote it.
type Outcome struct {
	Comparison  *verdict.Comparison
	CommentPath string
	ReportPath  string
	// FullReportPath is the untrimmed markdown report (report.md), which
	// the comment's trim note names.
	FullReportPath string
}

// Run runs the demo, writing the terminal report to w.
func Run(ctx context.Context, w io.Writer, o Options) (*Outcome, error) {
	if len(o.Manifests) == 0 {
		return nil, errors.New("demo: no workloads")
	}
	if o.DecodeScale == 0 {
		o.DecodeScale = 1.15
	}
	if o.Preset == "" {
		o.Preset = "fast"
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	cfg, err := sim.Preset(o.Preset)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	if o.Sim != nil {
		cfg = *o.Sim
	}
	prof := &profiles{dir: o.Dir}
	srv, err := sim.NewServer(cfg, sim.Options{Profiles: prof.open})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer srv.Close()
	url, stop, err := serve(srv)
	if err != nil {
		return nil, fmt.Errorf("demo: starting the simulator: %w", err)
	}
	defer stop()
	// The scrape hook records the simulator's own /metrics around every
	// trial, so the comment shows the server-side context of a regression
	// as it would against vLLM.
	runner, err := loadgen.New(loadgen.Config{URL: url, ToolVersion: o.Version, Warmups: -1, CacheSalt: true,
		Hooks: []loadgen.TrialHook{&scrape.Hook{URL: url}}, Limits: o.Limits})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer runner.Close()
	// Capacity cells of the smoke set search for their load; every other
	// cell goes to the runner unchanged.
	trials := pipeline.Capacity{Serving: runner, Log: progress}

	fmt.Fprintf(progress, "simulator (preset %s) listening on %s\n", o.Preset, url)
	fmt.Fprintf(progress, "recording the baseline: %d workload(s)\n", len(o.Manifests))
	base, err := pipeline.Record(ctx, trials, o.Manifests, o.Trials)
	if err != nil {
		return nil, fmt.Errorf("demo: baseline run: %w", err)
	}
	for _, r := range base {
		if err := result.Write(filepath.Join(o.Dir, "baseline", result.FileName(r.Workload.Cell)), r); err != nil {
			return nil, err
		}
	}

	if err := srv.Update(func(c *sim.Config) { c.DecodeScale = o.DecodeScale }); err != nil {
		return nil, fmt.Errorf("demo: injecting the slowdown: %w", err)
	}
	fmt.Fprintf(progress, "running the candidate with decode cost x%g\n", o.DecodeScale)
	// Both arms run against one simulator process, so they share a server
	// session: there is no between-session term to assume. A stored
	// baseline from another server start would need calibration or the
	// documented default (docs/statistics.md).
	policy := verdict.DefaultPolicy()
	policy.AssumedBetween = map[string]float64{"*": 0}
	out, err := pipeline.Run(ctx, trials, o.Manifests, pipeline.Options{
		Baselines: base, Policy: policy, MinTrials: o.Trials, MaxTrials: o.Trials,
	})
	if err != nil {
		return nil, fmt.Errorf("demo: candidate run: %w", err)
	}
	if out.RunErr != nil {
		return nil, fmt.Errorf("demo: candidate run: %w", out.RunErr)
	}
	for _, r := range out.Results {
		if err := result.Write(filepath.Join(o.Dir, "candidate", result.FileName(r.Workload.Cell)), r); err != nil {
			return nil, err
		}
	}
	if o.Profile.Want(out.Comparison.Verdict == verdict.Regression) {
		o.kernels = profileArms(ctx, srv, url, trials, prof, o, out.Comparison, progress)
	}
	return render(w, o, base, out)
}

// render writes the reports: the terminal one to w and to report.txt, the
// PR comment to comment.md, the untrimmed markdown report to report.md
// (where a trimmed comment's note points: never at comment.md itself), the
// comparison to comparison.json.
func render(w io.Writer, o Options, base []*result.Result, out *pipeline.Outcome) (*Outcome, error) {
	d := &report.Data{
		Comparison: out.Comparison, Profile: "demo-sim-" + o.Preset,
		Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{},
		ResultPaths: map[string]string{}, BaselinePaths: map[string]string{},
		Footer: fmt.Sprintf("perfgate demo · simulated server, decode cost x%g", o.DecodeScale),
		OutDir: o.Dir, // the comment names files relative to it
	}
	for _, r := range base {
		d.Baselines[r.Workload.Cell] = r
		d.BaselinePaths[r.Workload.Cell] = filepath.Join(o.Dir, "baseline", result.FileName(r.Workload.Cell))
	}
	for _, r := range out.Results {
		d.Candidates[r.Workload.Cell] = r
		d.ResultPaths[r.Workload.Cell] = filepath.Join(o.Dir, "candidate", result.FileName(r.Workload.Cell))
	}
	res := &Outcome{Comparison: out.Comparison, CommentPath: filepath.Join(o.Dir, "comment.md"), ReportPath: filepath.Join(o.Dir, "report.txt"),
		FullReportPath: filepath.Join(o.Dir, "report.md")}
	d.FullReport = res.FullReportPath
	explain.Attach(out.Comparison, d.Baselines, d.Candidates, o.kernels)
	r, err := report.Render(d)
	if err != nil {
		return nil, err
	}
	for path, data := range map[string][]byte{res.ReportPath: r.Text, res.CommentPath: r.Comment, res.FullReportPath: r.Full, filepath.Join(o.Dir, "comparison.json"): r.JSON} {
		if err := result.WriteFileAtomic(path, data); err != nil {
			return nil, err
		}
	}
	if _, err := w.Write(r.Text); err != nil {
		return nil, err
	}
	return res, nil
}

// serve starts h on a loopback port and returns its URL and a stop func.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
