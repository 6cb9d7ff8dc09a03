// Package history reads a profile's baseline history (the lines `perfgate
// baseline update` appends, one per promoted run) as a series of sessions
// per workload cell, and answers what the gate needs from it: where a
// cell's level stepped (change points), how much sessions of the current
// level differ from each other (verdict.Priors with Source "history"),
// which sessions form the baseline (the current segment), what the
// reference window for the drift guard is, and whether a run offered for
// promotion is far noisier than the sessions before it.
//
// It is pure: it reads the lines and results it is given, does no I/O,
// and is deterministic (the change-point test is parametric, with no random
// draws), so `perfgate history` prints the same steps for the same files.
package history

import (
	"maps"
	"slices"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Session is one promoted run of one cell.
type Session struct {
	Commit        string
	Ref           string
	PromotedAt    time.Time
	StartedAt     time.Time
	ServerVersion string
	WorkloadHash  string
	Fingerprint   map[string]string
	Trials        []map[string]float64
	Summary       map[string]baseline.Summary
	Warnings      []string
	// Accepted is the reason a deliberate change of level was accepted
	// at this promotion (empty for ordinary ones).
	Accepted string
}

// Cell is one workload cell's history, oldest first. Only the sessions of
// the newest workload hash are kept: a session of another hash measured
// other requests and is no point of the same series. Dropped counts them.
type Cell struct {
	Name     string
	Sessions []Session
	Dropped  int
}

// FromLines builds a cell's history from its history file's lines.
func FromLines(cell string, lines []baseline.HistoryLine) *Cell {
	c := &Cell{Name: cell}
	if len(lines) == 0 {
		return c
	}
	hash := lines[len(lines)-1].WorkloadHash
	for _, l := range lines {
		if l.WorkloadHash != hash {
			c.Dropped++
			continue
		}
		sum := l.Summary
		if sum == nil {
			sum = baseline.Summarise(l.Trials)
		}
		c.Sessions = append(c.Sessions, Session{
			Commit: l.GitSHA, Ref: l.GitRef, PromotedAt: l.PromotedAt, StartedAt: l.StartedAt,
			ServerVersion: l.ServerVersion, WorkloadHash: l.WorkloadHash, Fingerprint: l.Fingerprint,
			Trials: l.Trials, Summary: sum, Warnings: l.Warnings, Accepted: l.Accepted,
		})
	}
	return c
}

// Series is one metric of a cell across sessions, on the verdict's test
// scale (log values for relative metrics, raw for ratio metrics): Mean[i]
// is the level of session Session[i], SD[i] its within-session spread over
// N[i] trials. Sessions without the metric are skipped.
type Series struct {
	Cell     string
	Metric   string
	Absolute bool
	Session  []int
	Mean     []float64
	SD       []float64
	N        []int
}

// Series returns metric's series over sessions [from, to] (inclusive).
func (c *Cell) Series(metric string, from, to int) Series {
	s := Series{Cell: c.Name, Metric: metric, Absolute: verdict.Absolute(metric)}
	for i := max(from, 0); i <= to && i < len(c.Sessions); i++ {
		sum, ok := c.Sessions[i].Summary[metric]
		if !ok || sum.N == 0 {
			continue
		}
		s.Session = append(s.Session, i)
		s.Mean = append(s.Mean, sum.Mean)
		s.SD = append(s.SD, sum.SD)
		s.N = append(s.N, sum.N)
	}
	return s
}

// Metrics lists the metric ids some session of c carries, sorted.
func (c *Cell) Metrics() []string {
	set := map[string]bool{}
	for _, s := range c.Sessions {
		for id := range s.Summary {
			set[id] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
