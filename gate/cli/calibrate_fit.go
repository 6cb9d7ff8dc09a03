package cli

import (
	"fmt"
	"math"
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
				BetweenVar: e.BetweenVar, BetweenDF: e.BetweenDF, Truncated: e.Truncated, RawBetweenVar: e.RawBetween,
				Sessions: e.Sessions, Trials: e.Trials}
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
		var gated []string
		for _, r := range rows {
			if r.cell == m.Cell {
				gated = append(gated, r.id)
			}
		}
		for _, k := range calibrateDisturbed(m.Cell, gated, sessions) {
			out.table.Notes = append(out.table.Notes, fmt.Sprintf("%s: session %d: its trials spread more than %dx those of every other session in most gated metrics (a disturbed machine?); the estimates include it: remove its session directory and fit again with --from, or rerun calibrate when the machine is quiet",
				m.Cell, k, disturbedFactor))
		}
	}
	t := &out.table
	t.Alpha, t.Looks, t.Family = p.Alpha, max(p.MaxLooks, 1), max(len(rows), 1)
	t.CellAlpha = p.Alpha / float64(t.Looks) / float64(t.Family)
	for _, r := range rows {
		d := noise.Design{CandidateTrials: r.trials, BaselineTrials: r.trials, BaselineSessions: 1,
			CellAlpha: t.CellAlpha, PassAlpha: p.PassAlpha}
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
		x, ok := noise.Scale(r.Samples(id), abs)
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

// disturbedFactor is how many times wider than every other session's a
// session's spread must be, in most gated metrics, to be called disturbed.
// A noisy neighbour or a stalled machine widens every latency metric of
// the session it hits at once; for undisturbed sessions of 3 trials the
// chance that one sample standard deviation exceeds another's tenfold is
// about 1 %, and that it does so in most metrics at once far less.
const disturbedFactor = 10

// calibrateDisturbed returns the sessions (1-based) of cell whose trials
// spread more than disturbedFactor times the widest other session's in
// at least half (and at least 2) of the gated metrics ids.
func calibrateDisturbed(cell string, ids []string, sessions []map[string]*result.Result) []int {
	if len(sessions) < 2 || len(ids) == 0 {
		return nil
	}
	wide := make([]int, len(sessions))
	for _, id := range ids {
		abs := verdict.Absolute(id)
		sd := make([]float64, len(sessions))
		for k, sess := range sessions {
			sd[k] = -1
			r := sess[cell]
			if r == nil {
				continue
			}
			x, ok := noise.Scale(r.Samples(id), abs)
			if !ok || len(x) < 2 {
				continue
			}
			sd[k] = sampleSD(x)
		}
		for k := range sd {
			if sd[k] <= 0 {
				continue
			}
			others := 0.0
			for j := range sd {
				if j != k {
					others = math.Max(others, sd[j])
				}
			}
			if others > 0 && sd[k] > disturbedFactor*others {
				wide[k]++
			}
		}
	}
	var out []int
	for k, n := range wide {
		if n >= 2 && 2*n >= len(ids) {
			out = append(out, k+1)
		}
	}
	return out
}

func sampleSD(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}
