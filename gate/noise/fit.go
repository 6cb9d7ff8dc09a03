package noise

import (
	"fmt"
	"math"
	"sort"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// The calibration fit: `perfgate calibrate` measures every workload cell
// in several server sessions and this file turns those sessions into the
// one-way random-effects estimates (OneWay) of each (cell, metric) and the
// table of what a gate with that noise resolves. It lives beside the model
// it fits, so calibrate (gate/cli) only reads the sessions and writes the
// noise file.

// CellFit is one workload cell's fit: the workload hash the sessions
// measured and the estimate of every metric with a better direction.
type CellFit struct {
	WorkloadHash string
	Metrics      map[string]Estimate
}

// Fit is the fit of every cell and the table calibrate prints.
type Fit struct {
	Cells map[string]CellFit
	Table Table
}

// FitSessions fits the one-way model to every (cell, metric) with a better
// direction (counts and peaks are never gated, so their noise is not
// needed), over the valid trials of each session: sessions[k][cell] is
// session k's result of cell. The table lists the gated metrics, with
// predictions for the gate's trials per arm: gateTrials when set, else the
// workload's trials.min. Cells whose gate rules do not resolve, metrics
// that cannot be fitted and disturbed sessions are the table's notes.
func FitSessions(ms []*workload.Manifest, sessions []map[string]*result.Result, p verdict.Policy, gateTrials int) Fit {
	out := Fit{Cells: map[string]CellFit{}}
	type row struct {
		cell, id string
		abs      bool
		e        Estimate
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
			out.Table.Notes = append(out.Table.Notes, fmt.Sprintf("%s: its gate rules do not resolve (%v); no predictions", m.Cell, err))
		}
		cell := CellFit{WorkloadHash: m.Hash, Metrics: map[string]Estimate{}}
		var gated []string
		for _, id := range sortedIDs(ids) {
			if mt, ok := metrics.Lookup(id); !ok || mt.Direction == metrics.Informational {
				continue
			}
			abs := verdict.Absolute(id)
			e, err := estimate(m.Cell, id, abs, sessions)
			if err != nil {
				if rules[id].Gated {
					out.Table.Notes = append(out.Table.Notes, fmt.Sprintf("%s: %s: %v", m.Cell, id, err))
				}
				continue
			}
			cell.Metrics[id] = e
			if r, ok := rules[id]; ok && r.Gated {
				n := gateTrials
				if n == 0 {
					n = max(m.Trials.Min, 2)
				}
				rows = append(rows, row{m.Cell, id, abs, e, n, r.Tolerance})
				gated = append(gated, id)
			}
		}
		if len(cell.Metrics) > 0 {
			out.Cells[m.Cell] = cell
		}
		for _, k := range Disturbed(m.Cell, gated, sessions) {
			out.Table.Notes = append(out.Table.Notes, fmt.Sprintf("%s: session %d: its trials spread more than %dx those of every other session in most gated metrics (a disturbed machine?); the estimates include it: remove its session directory and fit again with --from, or rerun calibrate when the machine is quiet",
				m.Cell, k, DisturbedFactor))
		}
	}
	t := &out.Table
	t.Alpha, t.Looks, t.Family = p.Alpha, max(p.MaxLooks, 1), max(len(rows), 1)
	t.CellAlpha = p.Alpha / float64(t.Looks) / float64(t.Family)
	for _, r := range rows {
		d := Design{CandidateTrials: r.trials, BaselineTrials: r.trials, BaselineSessions: 1,
			Criterion: verdict.Criterion{LookAlpha: p.Alpha / float64(t.Looks), Family: t.Family, PassAlpha: p.PassAlpha}}
		t.Add(r.cell, r.id, metrics.Label(r.id), r.abs, r.e, d, r.tol)
	}
	return out
}

// estimate fits one (cell, metric): one group per session, of its valid
// trials' values on the test scale.
func estimate(cell, id string, abs bool, sessions []map[string]*result.Result) (Estimate, error) {
	groups := make([][]float64, 0, len(sessions))
	for i, sess := range sessions {
		r := sess[cell]
		if r == nil {
			continue
		}
		x, ok := verdict.ToTestScale(r.Samples(id), abs)
		if !ok {
			return Estimate{}, fmt.Errorf("session %d has a value <= 0, whose log does not exist", i+1)
		}
		groups = append(groups, x)
	}
	return OneWay(groups)
}

func sortedIDs(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DisturbedFactor is how many times wider than every other session's a
// session's spread must be, in most gated metrics, to be called disturbed.
// A noisy neighbour or a stalled machine widens every latency metric of
// the session it hits at once; for undisturbed sessions of 3 trials the
// chance that one sample standard deviation exceeds another's tenfold is
// about 1 %, and that it does so in most metrics at once far less.
const DisturbedFactor = 10

// Disturbed returns the sessions (1-based) of cell whose trials spread
// more than DisturbedFactor times the widest other session's in at least
// half (and at least 2) of the gated metrics ids.
func Disturbed(cell string, ids []string, sessions []map[string]*result.Result) []int {
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
			x, ok := verdict.ToTestScale(r.Samples(id), abs)
			if !ok || len(x) < 2 {
				continue
			}
			sd[k] = verdict.SampleSD(x)
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
			if others > 0 && sd[k] > DisturbedFactor*others {
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
