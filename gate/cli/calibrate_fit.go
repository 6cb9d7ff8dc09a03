package cli

import (
	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/noise"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// calibrateFitted is the fit of every cell as calibrate writes it: the
// noise file's cells and the printed table.
type calibrateFitted struct {
	cells map[string]baseline.NoiseCell
	table noise.Table
}

// calibrateFit wires the calibration fit (noise.FitSessions, beside the
// model it fits) to the noise file's encoding (baseline.NoiseCell).
func calibrateFit(ms []*workload.Manifest, sessions []map[string]*result.Result, p verdict.Policy, gateTrials int) calibrateFitted {
	fit := noise.FitSessions(ms, sessions, p, gateTrials)
	out := calibrateFitted{cells: map[string]baseline.NoiseCell{}, table: fit.Table}
	for name, c := range fit.Cells {
		cell := baseline.NoiseCell{WorkloadHash: c.WorkloadHash, Metrics: map[string]baseline.NoiseMetric{}}
		for id, e := range c.Metrics {
			scale := baseline.ScaleLog
			if verdict.Absolute(id) {
				scale = baseline.ScaleAbsolute
			}
			cell.Metrics[id] = baseline.NoiseMetric{Scale: scale, WithinVar: e.WithinVar, WithinDF: e.WithinDF,
				BetweenVar: e.BetweenVar, BetweenDF: e.BetweenDF, Truncated: e.Truncated, RawBetweenVar: e.RawBetween,
				Sessions: e.Sessions, Trials: e.Trials}
		}
		out.cells[name] = cell
	}
	return out
}
