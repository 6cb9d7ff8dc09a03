// Package profiling takes the kernel profile a run keeps beside its
// verdict: it picks the workload to profile (the worst regressed one, or
// the first that always wants one), bounds it to a short trial, and runs
// that trial between the engine's /start_profile and /stop_profile. The
// engine writes the torch-profiler trace itself, into a directory only the
// caller knows how to read: finding the new trace file (Newest) is a pure
// choice over the listings the caller takes, and reading it is package
// trace's. The verdict never depends on a profile; every failure here is
// an error for the report, never for the gate.
package profiling

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// Trial is one profiled trial against one server.
type Trial struct {
	// URL is the server's base URL.
	URL string
	// Client sends the profiler requests (nil: http.DefaultClient);
	// APIKey, when set, goes with them as a bearer token, as with every
	// other request to the server.
	Client *http.Client
	APIKey string
	// Profiler names the endpoints (engine.Profile.Profiler).
	Profiler *engine.Profiler
	// Trials runs the trial (the session's, so the result is measured
	// the way the gate measures).
	Trials pipeline.Trials
}

// Run starts the profiler, runs one trial of m, and stops the profiler,
// which makes the engine write its trace. The stop is sent even when the
// trial failed, so the engine does not keep profiling.
func (t Trial) Run(ctx context.Context, m *workload.Manifest) error {
	if t.Profiler == nil {
		return fmt.Errorf("the engine serves no profiling endpoints")
	}
	if err := t.post(ctx, t.Profiler.Start); err != nil {
		return err
	}
	_, runErr := pipeline.Record(ctx, t.Trials, []*workload.Manifest{m}, 1)
	stopErr := t.post(context.WithoutCancel(ctx), t.Profiler.Stop)
	if runErr != nil {
		return fmt.Errorf("the profiled trial of %s: %w", m.Cell, runErr)
	}
	return stopErr
}

func (t Trial) post(ctx context.Context, e engine.Endpoint) error {
	url := strings.TrimRight(t.URL, "/") + e.Path
	req, err := http.NewRequestWithContext(ctx, e.Method, url, strings.NewReader(""))
	if err != nil {
		return err
	}
	if t.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
	}
	c := t.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", e.Method, e.Path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		err := fmt.Errorf("%s %s: %s %s", e.Method, e.Path, resp.Status, strings.TrimSpace(string(msg)))
		if resp.StatusCode == http.StatusNotFound && t.Profiler.Enable != "" {
			// vLLM serves the endpoints only when started for it.
			err = fmt.Errorf("%w: %s", err, t.Profiler.Enable)
		}
		return err
	}
	return nil
}

// Bound returns a copy of m that runs as a short profiled trial: its
// first n requests at their own arrival times, no warmups (they would be
// profiled too). n <= 0 or more than m has keeps them all.
func Bound(m *workload.Manifest, n int) *workload.Manifest {
	c := *m
	c.Warmups = nil
	if n > 0 && n < len(m.Requests) {
		c.Requests = m.Requests[:n:n]
	}
	return &c
}

// ModeOf is the profiling mode of m: its workload's own profiling: key,
// else def (perfgate.yaml's profiling.when).
func ModeOf(m *workload.Manifest, def trace.Mode) trace.Mode {
	if m.Profiling != "" {
		return m.Profiling
	}
	return def
}

// Choose is the workload a gate profiles after its verdict, nil for
// none: the worst regressed workload (explain.Worst), else the next
// regressed one, whose mode wants a profile of a regression; otherwise,
// whatever the verdict, the first workload whose mode is always. Only
// fixed-load serving cells are profiled: a capacity or share-of-saturation
// cell would search for its load inside the profile, and a command cell
// sends no request.
func Choose(c *verdict.Comparison, ms []*workload.Manifest, def trace.Mode) *workload.Manifest {
	byCell := map[string]*workload.Manifest{}
	for _, m := range ms {
		if profilable(m) {
			byCell[m.Cell] = m
		}
	}
	regressed := []string{explain.Worst(c)}
	if c != nil {
		for _, cell := range c.Cells {
			if cell.Gated && cell.Outcome == verdict.Regression {
				regressed = append(regressed, cell.Workload)
			}
		}
	}
	for _, cell := range regressed {
		if m := byCell[cell]; m != nil && ModeOf(m, def).Want(true) {
			return m
		}
	}
	for _, m := range ms {
		if profilable(m) && ModeOf(m, def) == trace.Always {
			return m
		}
	}
	return nil
}

func profilable(m *workload.Manifest) bool {
	return !m.IsCommand() && !m.IsCapacity() && m.SaturationShare == 0
}
