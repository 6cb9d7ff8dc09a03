package pipeline

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/perfgate/perfgate/gate/capacity"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// Capacity runs the cells whose load is found at run time on top of the
// serving Trials: a kind: capacity cell runs one capacity search per trial
// (each probe one trial of Serving at the probed load), a serving cell
// whose rate is a share of saturation (`80%-of-saturation`) runs an
// unlimited-rate trial first and then its trials at that share of the
// throughput it measured. Every other cell goes to Serving unchanged, so
// the CLI wraps its load generator once and every command gets both.
type Capacity struct {
	Serving Trials
	// Log receives one line per probe; nil discards.
	Log io.Writer
}

var _ Trials = Capacity{}

// dynamic reports whether m's load is chosen at run time.
func dynamic(m *workload.Manifest) bool { return m.IsCapacity() || m.SaturationShare > 0 }

// Prepare waits for the server as Serving does.
func (c Capacity) Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error) {
	if dynamic(m) {
		m = m.At(math.Inf(1), m.Concurrency)
	}
	return c.Serving.Prepare(ctx, m)
}

// NewResult returns Serving's empty result for m.
func (c Capacity) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	return c.Serving.NewResult(m, srv)
}

// RunTrials appends n trials of m to res.
func (c Capacity) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	switch {
	case m.IsCapacity():
		return c.searches(ctx, m, res, n)
	case m.SaturationShare > 0:
		return c.twoStep(ctx, m, res, n)
	}
	return c.Serving.RunTrials(ctx, m, res, n)
}

func (c Capacity) log() io.Writer {
	if c.Log == nil {
		return io.Discard
	}
	return c.Log
}

// twoStep runs the trials of a share-of-saturation cell. Saturation is
// measured once per result, before its first trial, and kept in
// res.Saturation: the trials of later looks run at the same absolute
// rate, so one result's trials are repetitions of one load point.
func (c Capacity) twoStep(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	if res.Saturation == nil {
		t, err := c.once(ctx, m.At(math.Inf(1), m.Concurrency), res.Server)
		if err != nil {
			err = fmt.Errorf("%s: saturation run: %w", m.Cell, err)
			res.Complete, res.IncompleteReason = false, err.Error()
			return err
		}
		sat := t.Values["request_throughput"]
		if !(sat > 0) {
			err := fmt.Errorf("%s: saturation run completed no request (%s)", m.Cell, t.InvalidReason)
			res.Complete, res.IncompleteReason = false, err.Error()
			return err
		}
		rate := math.Max(workload.MinRate, m.SaturationShare*sat)
		res.Saturation = &result.Saturation{Share: m.SaturationShare, ThroughputRPS: sat, RateRPS: rate, Requests: len(m.Requests), DurationS: t.DurationS}
		fmt.Fprintf(c.log(), "%s: saturation %.4g req/s; running at %s = %.4g req/s\n", m.Cell, sat, capacity.FormatShare(m.SaturationShare), rate)
	}
	return c.Serving.RunTrials(ctx, m.At(res.Saturation.RateRPS, m.Concurrency), res, n)
}

// once runs one trial of pm and returns it. A trial that ran but ended in
// an error that is the server's (every request failed) is returned with
// the error, so a probe can count it as a share of 0; an interrupt or a
// failure before any trial is only an error.
func (c Capacity) once(ctx context.Context, pm *workload.Manifest, srv result.Server) (result.Trial, error) {
	scratch := c.Serving.NewResult(pm, srv)
	err := c.Serving.RunTrials(ctx, pm, scratch, 1)
	if len(scratch.Trials) == 0 {
		if err == nil {
			err = fmt.Errorf("no trial recorded")
		}
		return result.Trial{}, err
	}
	return scratch.Trials[0], err
}
