package pipeline

import (
	"context"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/capacity"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// probeLatency are the latency percentiles a probe records, the ones the
// report draws against the load.
var probeLatency = []string{"ttft_ms.p99", "tpot_ms.p99", "e2el_ms.p99"}

// prober is one capacity search's Prober: each probe is one trial of the
// serving Trials at the probed load, warmups first.
type prober struct {
	c      Capacity
	m      *workload.Manifest
	srv    result.Server
	trials []result.Trial // every probe's trial, for the search's totals
}

// Probe runs one trial at load: a rate under the cell's concurrency cap,
// or a concurrency at an unlimited rate; +Inf lifts both limits.
func (p *prober) Probe(ctx context.Context, load float64) (capacity.Measurement, error) {
	var pm *workload.Manifest
	switch {
	case math.IsInf(load, 1) && p.m.Capacity.Over == result.OverConcurrency:
		pm = p.m.At(load, 0)
	case p.m.Capacity.Over == result.OverConcurrency:
		pm = p.m.At(math.Inf(1), int(load))
	default:
		pm = p.m.At(load, p.m.Concurrency)
	}
	t, err := p.c.once(ctx, pm, p.srv)
	if err != nil && (ctx.Err() != nil || t.Completed+t.Failed == 0) {
		return capacity.Measurement{}, err
	}
	p.trials = append(p.trials, t)
	total := t.Completed + t.Failed
	good := int(math.Round(t.Values["goodput_ratio"] * float64(total)))
	ms := capacity.Measurement{Good: good, Total: total, Throughput: t.Values["request_throughput"], Invalid: t.InvalidReason,
		DurationS: t.DurationS, Errors: t.Errors}
	for _, id := range probeLatency {
		if v, ok := t.Values[id]; ok {
			if ms.Latency == nil {
				ms.Latency = map[string]float64{}
			}
			ms.Latency[id] = v
		}
	}
	what := fmt.Sprintf("%s %.4g", p.m.Capacity.Over, load)
	if math.IsInf(load, 1) {
		what = "saturation (rate inf)"
	}
	fmt.Fprintf(p.c.log(), "%s: probe %s: goodput %d/%d, %.4g req/s\n", p.m.Cell, what, good, total, ms.Throughput)
	return ms, nil
}

// searches appends n trials of a capacity cell, one search each. A
// trial's values are the capacity found (capacity_rps, or
// capacity_concurrency for a concurrency search), the saturation
// throughput and the number of probes; the search itself, with every
// probe, is Trial.Capacity. Probes are short runs at loads chosen to
// overload the server, so a probe's failed requests count against its
// goodput share and its invalid reason is kept with it, not turned into
// an invalid trial.
func (c Capacity) searches(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	for k := 0; k < n; k++ {
		p := &prober{c: c, m: m, srv: res.Server}
		found, err := capacity.Search(ctx, p, *m.Capacity)
		if err != nil {
			err = fmt.Errorf("%s: trial %d: %w", m.Cell, len(res.Trials), err)
			res.Complete, res.IncompleteReason = false, err.Error()
			// Keep the probes that ran: an interrupted or failed search
			// is an invalid trial, never a lost one.
			if found != nil && len(found.Probes) > 0 {
				t := searchTrial(len(res.Trials), m, found, p.trials)
				t.Valid, t.InvalidReason = false, "the capacity search did not finish: "+err.Error()
				res.Trials = append(res.Trials, t)
			}
			return err
		}
		res.Trials = append(res.Trials, searchTrial(len(res.Trials), m, found, p.trials))
	}
	return nil
}

// searchTrial is the trial record of one search.
func searchTrial(idx int, m *workload.Manifest, found *result.Capacity, probes []result.Trial) result.Trial {
	t := result.Trial{Index: idx, Valid: true, Capacity: found, Values: map[string]float64{}}
	for _, pt := range probes {
		t.DurationS += pt.DurationS
		t.Completed += pt.Completed
		t.Failed += pt.Failed
		for e, k := range pt.Errors {
			if t.Errors == nil {
				t.Errors = map[string]int{}
			}
			t.Errors[e] += k
		}
	}
	id := workload.MetricCapacityRPS
	if m.Capacity.Over == result.OverConcurrency {
		id = workload.MetricCapacityConcurrency
	}
	t.Values[id] = found.Capacity
	t.Values[workload.MetricSaturation] = found.Saturation
	t.Values["capacity_probes"] = float64(len(found.Probes))
	t.Warnings = append(t.Warnings, found.Warnings...)
	for _, pr := range found.Probes {
		if pr.Invalid != "" {
			t.Warnings = append(t.Warnings, fmt.Sprintf("probe at %s %.4g: %s", found.Over, pr.Load, pr.Invalid))
		}
	}
	if !(found.Saturation > 0) {
		t.Valid, t.InvalidReason = false, "the saturation probe completed no request"
	}
	return t
}
