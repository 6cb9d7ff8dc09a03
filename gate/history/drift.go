package history

import (
	"fmt"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Reference configures the drift guard's reference window: nightly
// promotion of every passing run lets a series of changes, each inside
// the tolerance, move the baseline without ever failing; comparing the
// candidate with older runs of the history at the same tolerance catches
// the sum.
type Reference struct {
	// Days: the window is the newest Runs sessions promoted at least Days
	// before the candidate started. 0 turns the drift guard off.
	Days float64
	// Runs is how many sessions the window holds.
	Runs int
}

// DefaultReference is the documented window: the newest 3 runs promoted
// at least 30 days before the candidate.
func DefaultReference() Reference { return Reference{Days: 30, Runs: 3} }

// Window returns the reference window [from, to] of c for a candidate
// started at now. While the history is younger than Days, the window is
// its oldest Runs sessions, provided more sessions follow them (else the
// window would be the baseline itself and say nothing new). The window
// never reaches back before the newest accepted promotion (Session.
// Accepted): a change of level someone deliberately accepted is not drift.
// ok is false when there is no window or the guard is off.
func (c *Cell) Window(now time.Time, ref Reference) (from, to int, ok bool) {
	if ref.Days <= 0 || ref.Runs < 1 || len(c.Sessions) == 0 {
		return 0, 0, false
	}
	floor := 0
	for i, s := range c.Sessions {
		if s.Accepted != "" {
			floor = i
		}
	}
	cutoff := now.Add(-time.Duration(ref.Days * float64(24*time.Hour)))
	to = -1
	for i := floor; i < len(c.Sessions); i++ {
		if !c.Sessions[i].PromotedAt.After(cutoff) {
			to = i
		}
	}
	if to < 0 {
		if len(c.Sessions)-floor <= ref.Runs {
			return 0, 0, false
		}
		return floor, floor + ref.Runs - 1, true
	}
	return max(floor, to-ref.Runs+1), to, true
}

// DriftWindow is one cell's reference window, as results and in words.
type DriftWindow struct {
	Cell string
	// Name describes the window: "3 runs promoted 2026-10-01..2026-10-03
	// (a00000a..a00000c)".
	Name string
	// Sessions are the window's runs as result files (Cell.Results): the
	// verdict takes them as a baseline of several sessions, so their
	// spread is the reference's between-session noise.
	Sessions []*result.Result
}

// Drift is the drift guard's finding: the comparison of the candidate with
// the reference windows and, per regressed cell, a message naming it.
type Drift struct {
	Comparison *verdict.Comparison
	Messages   []string
}

// CheckDrift compares the candidates with the reference windows under p,
// at the same tolerances. Cells without a window are not compared (they
// count as allowed missing, never as invalid). The drift guard is a second
// family of tests at p.Alpha: with it, a gate run's chance of any false
// regression is at most twice Alpha (docs/baselines.md).
func CheckDrift(windows []DriftWindow, cand []*result.Result, p verdict.Policy) (*Drift, error) {
	if len(windows) == 0 {
		return &Drift{}, nil
	}
	names := map[string]string{}
	var ref []*result.Result
	for _, w := range windows {
		names[w.Cell] = w.Name
		ref = append(ref, w.Sessions...)
	}
	var cs []*result.Result
	for _, c := range cand {
		if _, ok := names[c.Workload.Cell]; ok {
			cs = append(cs, c)
		}
	}
	p.AllowMissing = true
	p.MaxBaselineAgeDays = 0 // a reference window is old on purpose
	cmp, err := verdict.Compare(ref, cs, p, verdict.Look{})
	if err != nil {
		return nil, fmt.Errorf("drift guard: %w", err)
	}
	d := &Drift{Comparison: cmp}
	for _, cell := range cmp.Cells {
		if cell.Gated && cell.Outcome == verdict.Regression {
			d.Messages = append(d.Messages, fmt.Sprintf("cumulative drift: %s %s is %+.1f%s against the reference window (%s), beyond its tolerance of %.1f%s",
				cell.Workload, cell.Label, cell.Change, unit(cell.Absolute), names[cell.Workload], cell.Tolerance, unit(cell.Absolute)))
		}
	}
	return d, nil
}

// Regressed reports whether the drift guard found a regression.
func (d *Drift) Regressed() bool { return d != nil && len(d.Messages) > 0 }

func unit(abs bool) string {
	if abs {
		return " points"
	}
	return " %"
}
