package cli

import (
	"fmt"
	"sort"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/noise"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// calibrateFitted is the fit of every cell: the noise file's cells and
// the printed table.
type calibrateFitted struct {
	cells map[string]baseline.NoiseCell
	table noise.Table
}

// calibrateFit fits the one-way model to every (cell, metric) with a
// better direction (counts and peaks are never gated, so their noise is
// not needed), over the valid trials of each session. The table lists the
// gated metrics, with predictions for the gate's trials per arm: gateTrials
// when set, else the workload's trials.min.
func calibrateFit(ms []*workload.Manifest, sessions []map[string]*result.Result, p verdict.Policy, gateTrials int) calibrateFitted {
	out := calibrateFitted{cells: map[string]baseline.NoiseCell{}}
	type row struct {
		cell, id string
		abs      bool
		e        noise.Estimate
		trials   int
		tol      float64
	}
	var rows []row
	for _, m := range ms {
		var spec []byte
		ids := map[string]bool{}
		for _, sess := range sessions {
			r := sess[m.Cell]
			if r == nil {
				continue
			}
			spec = r.Workload.Spec
			for _, t := range r.ValidTrials() {
				for id := range t.Values {
					ids[id] = true
				}
			}
		}
		rules, err := p.Resolve(spec)
		if err != nil {
			out.table.Notes = append(out.table.Notes, fmt.Sprintf("%s: its gate rules do not resolve (%v); no predictions", m.Cell, err))
		}
		cell := baseline.NoiseCell{WorkloadHash: m.Hash, Metrics: map[string]baseline.NoiseMetric{}}
		for _, id := range sortedSet(ids) {
			if mt, ok := metrics.Lookup(id); !ok || mt.Direction == metrics.Informational {
				continue
			}
			abs := verdict.Absolute(id)
			e, err := calibrateEstimate(m.Cell, id, abs, sessions)
			if err != nil {
				if rules[id].Gated {
					out.table.Notes = append(out.table.Notes, fmt.Sprintf("%s: %s: %v", m.Cell, id, err))
				}
				continue
			}
			scale := baseline.ScaleLog
			if abs {
				scale = baseline.ScaleAbsolute
			}
			cell.Metrics[id] = baseline.NoiseMetric{Scale: scale, WithinVar: e.WithinVar, WithinDF: e.WithinDF,
				BetweenVar: e.BetweenVar, BetweenDF: e.BetweenDF, Truncated: e.Truncated, Sessions: e.Sessions, Trials: e.Trials}
			if r, ok := rules[id]; ok && r.Gated {
				n := gateTrials
				if n == 0 {
					n = max(m.Trials.Min, 2)
				}
				rows = append(rows, row{m.Cell, id, abs, e, n, r.Tolerance})
			}
		}
		if len(cell.Metrics) > 0 {
			out.cells[m.Cell] = cell
		}
	}
	t := &out.table
	t.Alpha, t.Looks, t.Family = p.Alpha, max(p.MaxLooks, 1), max(len(rows), 1)
	t.CellAlpha = p.Alpha / float64(t.Looks) / float64(t.Family)
	for _, r := range rows {
		d := noise.Design{CandidateTrials: r.trials, BaselineTrials: r.trials, BaselineSessions: 1,
			CellAlpha: t.CellAlpha, Power: 0.8, PassAlpha: p.PassAlpha, PassRate: 0.9}
		t.Add(r.cell, r.id, metrics.Label(r.id), r.abs, r.e, d, r.tol)
	}
	return out
}

// calibrateEstimate fits one (cell, metric): one group per session, of its
// valid trials' values on the test scale.
func calibrateEstimate(cell, id string, abs bool, sessions []map[string]*result.Result) (noise.Estimate, error) {
	groups := make([][]float64, 0, len(sessions))
	for i, sess := range sessions {
		r := sess[cell]
		if r == nil {
			continue
		}
		var vals []float64
		for _, t := range r.ValidTrials() {
			if v, ok := t.Values[id]; ok {
				vals = append(vals, v)
			}
		}
		x, ok := noise.Scale(vals, abs)
		if !ok {
			return noise.Estimate{}, fmt.Errorf("session %d has a value <= 0, whose log does not exist", i+1)
		}
		groups = append(groups, x)
	}
	return noise.OneWay(groups)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
