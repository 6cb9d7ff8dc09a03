package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/profiling"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// profileWait bounds the wait for an engine's trace after /stop_profile
// (vLLM's workers export it after the call returns); profilePoll is the
// period of the directory listing while waiting.
var (
	profileWait = 2 * time.Minute
	profilePoll = 250 * time.Millisecond
)

// gateProfile is a gate's kernel profile (profiling.* in perfgate.yaml,
// profiling: in workloads): after the verdict, one short profiled trial of
// the worst regressed workload on the candidate, diffed against the op
// summary stored beside the baseline. Kernels is the report's section;
// nothing here changes the verdict or the exit code.
type gateProfile struct {
	cfg     config.Profiling
	env     []string // server.env, where the engine's trace directory may be set
	getenv  func(string) string
	outDir  string         // the run's output directory: profiles/ goes there
	store   baseline.Store // the baselines, for their op summaries
	profile string
	log     io.Writer

	Kernels *verdict.KernelDiff
}

// after takes the profile when the outcome and the modes want one.
func (g *gateProfile) after(ctx context.Context, t pipeline.Trials, url, apiKey string, ms []*workload.Manifest, out *pipeline.Outcome) {
	if g == nil || out == nil || out.Comparison == nil {
		return
	}
	m := profiling.Choose(out.Comparison, ms, g.cfg.Mode())
	if m == nil {
		return
	}
	fmt.Fprintf(g.log, "profiling one trial of %s (profiling: %s; the verdict is already decided)\n", m.Cell, profiling.ModeOf(m, g.cfg.Mode()))
	k := g.take(ctx, t, url, apiKey, m, engineOf(out.Results, m.Cell))
	if k.Error != "" {
		fmt.Fprintf(g.log, "perfgate: warning: kernel profile of %s: %s\n", m.Cell, k.Error)
	}
	g.Kernels = k
}

// take runs the profiled trial and builds the kernel section.
func (g *gateProfile) take(ctx context.Context, t pipeline.Trials, url, apiKey string, m *workload.Manifest, eng engine.Name) *verdict.KernelDiff {
	ops, err := g.capture(ctx, t, url, apiKey, m, eng)
	if err != nil {
		return &verdict.KernelDiff{Workload: m.Cell, Error: err.Error()}
	}
	return g.diff(m, ops)
}

// capture runs the profiled trial of m, keeps its trace in the output
// directory and its op summary in <output>/profiles/ops/<cell>.json (what
// baseline update promotes), and returns the summary.
func (g *gateProfile) capture(ctx context.Context, t pipeline.Trials, url, apiKey string, m *workload.Manifest, eng engine.Name) (*baseline.Ops, error) {
	p, err := engine.Get(eng)
	if err != nil || p.Profiler == nil {
		return nil, fmt.Errorf("engine %s serves no profiling endpoints (profiles need vLLM or SGLang, docs/engines.md)", eng)
	}
	dir := g.traceDir(p.Profiler)
	if dir == "" {
		return nil, fmt.Errorf("no trace directory: %s", p.Profiler.Enable)
	}
	before, err := listTraces(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("profiling.dir %s: %v", dir, err)
	}
	seen := map[string]bool{}
	for _, e := range before {
		seen[e.Name] = true
	}
	requests := g.cfg.Requests
	if requests <= 0 {
		requests = config.DefaultProfileRequests
	}
	bounded := profiling.Bound(m, requests)
	tr := profiling.Trial{URL: url, APIKey: apiKey, Profiler: p.Profiler, Trials: t}
	if err := tr.Run(ctx, bounded); err != nil {
		return nil, err
	}
	found, err := waitTrace(ctx, dir, seen)
	if err != nil {
		return nil, err
	}
	path, err := g.keep(filepath.Join(dir, found.Name))
	if err != nil {
		return nil, err
	}
	cand, err := readTrace(path)
	if err != nil {
		return nil, err
	}
	ops := &baseline.Ops{Schema: baseline.OpsSchema, Cell: m.Cell, Hash: m.Hash, Requests: len(bounded.Requests), Trace: path, Summary: *cand}
	opsPath := filepath.Join(g.outDir, "profiles", "ops", result.FileName(m.Cell))
	if err := baseline.WriteOpsFile(opsPath, ops); err != nil && g.log != nil {
		fmt.Fprintf(g.log, "perfgate: warning: %v\n", err)
	}
	return ops, nil
}

// diff compares the candidate's op summary with the baseline's stored
// one; without a comparable one, the candidate's kernels alone, saying
// what would give a diff.
func (g *gateProfile) diff(m *workload.Manifest, cand *baseline.Ops) *verdict.KernelDiff {
	storePath := g.store.OpsPath(g.profile, m.Cell)
	// The comment names the file inside the baseline store, not on this
	// runner's disk.
	shown := filepath.ToSlash(filepath.Join(g.profile, "ops", result.FileName(m.Cell)))
	base, err := baseline.ReadOpsFile(storePath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return explain.CandidateKernels(m.Cell, cand.Trace, &cand.Summary, fmt.Sprintf("The baseline has no op summary (%s in the baseline store) to diff with: record the baselines with profiling.when: always (perfgate run --profiling always) and promote the run with perfgate baseline update --from its output.", shown))
	case err != nil:
		return explain.CandidateKernels(m.Cell, cand.Trace, &cand.Summary, fmt.Sprintf("The baseline's op summary is unreadable (%s): record the baselines again with profiling.when: always.", strings.ReplaceAll(err.Error(), storePath, shown)))
	case base.Hash != cand.Hash || base.Requests != cand.Requests:
		return explain.CandidateKernels(m.Cell, cand.Trace, &cand.Summary, fmt.Sprintf("The baseline's op summary (%s in the baseline store) profiled another version of the workload or another trial length (%d requests, this run %d): record the baselines again with profiling.when: always.", shown, base.Requests, cand.Requests))
	}
	return explain.Kernels(m.Cell, base.Trace, cand.Trace, &base.Summary, &cand.Summary, nil)
}

// traceDir is where the engine writes its traces: profiling.dir, else
// the engine's variable in server.env, else in perfgate's environment.
func (g *gateProfile) traceDir(p *engine.Profiler) string {
	if g.cfg.Dir != "" {
		return g.cfg.Dir
	}
	if env, err := server.ParseEnv(g.env); err == nil && env[p.DirEnv] != "" {
		return env[p.DirEnv]
	}
	if g.getenv != nil {
		return g.getenv(p.DirEnv)
	}
	return ""
}

// keep copies a trace written outside the output directory into
// <output>/profiles/, so the run's artifact carries it.
func (g *gateProfile) keep(path string) (string, error) {
	profiles := filepath.Join(g.outDir, "profiles")
	if abs, err := filepath.Abs(path); err == nil {
		if root, err := filepath.Abs(profiles); err == nil && strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return path, nil
		}
	}
	dst := filepath.Join(profiles, filepath.Base(path))
	if err := copyFile(dst, path); err != nil {
		return "", fmt.Errorf("copying the trace %s into the output directory: %w", path, err)
	}
	return dst, nil
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, trace.DefaultMaxBytes))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// readTrace summarises the trace file at path (streamed, bounded).
func readTrace(path string) (*trace.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return trace.Read(f, path, trace.Limits{})
}

// listTraces lists dir's files.
func listTraces(dir string) ([]profiling.Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []profiling.Entry
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		out = append(out, profiling.Entry{Name: de.Name(), Size: info.Size(), ModTime: info.ModTime()})
	}
	return out, nil
}

// waitTrace waits, within profileWait, for a new trace in dir that stops
// growing.
func waitTrace(ctx context.Context, dir string, before map[string]bool) (profiling.Entry, error) {
	deadline := time.Now().Add(profileWait)
	var prev profiling.Entry
	for {
		if entries, err := listTraces(dir); err == nil {
			if cur, ok := profiling.Newest(before, entries); ok {
				if profiling.Settled(prev, cur) {
					return cur, nil
				}
				prev = cur
			}
		}
		if time.Now().After(deadline) {
			if prev.Name != "" {
				return prev, fmt.Errorf("the trace %s kept growing for %v after /stop_profile", filepath.Join(dir, prev.Name), profileWait)
			}
			return prev, fmt.Errorf("no new trace in %s within %v of /stop_profile: is it the directory the server writes to (its profiler directory variable)?", dir, profileWait)
		}
		select {
		case <-ctx.Done():
			return prev, ctx.Err()
		case <-time.After(profilePoll):
		}
	}
}

// engineOf is the engine the cell's result ran against.
func engineOf(rs []*result.Result, cell string) engine.Name {
	for _, r := range rs {
		if r.Workload.Cell == cell && r.Server.Engine != "" {
			return engine.Name(r.Server.Engine)
		}
	}
	return engine.OpenAI
}
