package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/profiling"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
)

// profiles is where the simulator's traces go: profiles/<arm>/ of the
// output directory, the arm being the one profiled at the time.
type profiles struct {
	dir  string
	mu   sync.Mutex
	arm  string
	last string // the last trace written
}

// open is the simulator's Options.Profiles.
func (p *profiles) open(name string) (io.WriteCloser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	dir := filepath.Join(p.dir, "profiles", p.arm)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p.last = filepath.Join(dir, filepath.Base(name))
	return os.Create(p.last)
}

// profileArms runs one profiled trial of the worst regressed workload on
// each arm (the candidate's slowdown first, then the baseline's cost) and
// compares the traces. Whatever goes wrong is the diff's Error: the
// verdict is already decided and never depends on a profile.
func profileArms(ctx context.Context, srv *sim.Server, url string, trials pipeline.Trials, p *profiles, o Options, c *verdict.Comparison, progress io.Writer) *verdict.KernelDiff {
	m := profiling.Choose(c, o.Manifests, o.Profile)
	if m == nil {
		// The demo was asked to profile: the worst regressed cell, else
		// the first one a profile can run.
		m = profiling.Choose(c, o.Manifests, trace.Always)
	}
	if m == nil {
		return &verdict.KernelDiff{Error: "no workload to profile"}
	}
	cell := m.Cell
	tr := profiling.Trial{URL: url, Profiler: engine.Must(engine.VLLM).Profiler, Trials: trials}
	sums := map[string]*trace.Summary{}
	paths := map[string]string{}
	for _, arm := range []struct {
		name  string
		scale float64
	}{{"candidate", o.DecodeScale}, {"baseline", 1}} {
		fmt.Fprintf(progress, "profiling one trial of %s on the %s\n", cell, arm.name)
		if err := srv.Update(func(c *sim.Config) { c.DecodeScale = arm.scale }); err != nil {
			return &verdict.KernelDiff{Workload: cell, Error: err.Error()}
		}
		p.mu.Lock()
		p.arm, p.last = arm.name, ""
		p.mu.Unlock()
		if err := tr.Run(ctx, m); err != nil {
			return &verdict.KernelDiff{Workload: cell, Error: fmt.Sprintf("profiled trial on the %s: %v", arm.name, err)}
		}
		p.mu.Lock()
		path := p.last
		p.mu.Unlock()
		f, err := os.Open(path)
		if err != nil {
			return &verdict.KernelDiff{Workload: cell, Error: err.Error()}
		}
		sum, err := trace.Read(f, path, trace.Limits{})
		f.Close()
		if err != nil {
			return explain.Kernels(cell, "", "", nil, nil, err)
		}
		sums[arm.name], paths[arm.name] = sum, path
	}
	return explain.Kernels(cell, paths["baseline"], paths["candidate"], sums["baseline"], sums["candidate"], nil)
}
