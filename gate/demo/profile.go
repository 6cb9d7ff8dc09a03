package demo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
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
	cell := explain.Worst(c)
	if cell == "" && len(o.Manifests) > 0 {
		cell = o.Manifests[0].Cell // profile: always on a pass
	}
	var m *workload.Manifest
	for _, x := range o.Manifests {
		if x.Cell == cell {
			m = x
		}
	}
	if m == nil {
		return &verdict.KernelDiff{Workload: cell, Error: "no workload to profile"}
	}
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
		if err := post(ctx, url+"/start_profile"); err != nil {
			return &verdict.KernelDiff{Workload: cell, Error: err.Error()}
		}
		_, runErr := pipeline.Record(ctx, trials, []*workload.Manifest{m}, 1)
		if err := post(ctx, url+"/stop_profile"); err != nil || runErr != nil {
			return &verdict.KernelDiff{Workload: cell, Error: fmt.Sprintf("profiled trial on the %s: %v", arm.name, firstErr(runErr, err))}
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

func post(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(""))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("POST %s: %s %s", url, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
