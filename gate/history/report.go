package history

import (
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/metrics"
)

// ReportSchema identifies the JSON encoding of Report.
const ReportSchema = "perfgate.history/report-v1"

// Report is what `perfgate history` shows: every cell's sessions, each
// gated metric's series and its detected steps. It is finished data;
// the renderers (Text, Markdown, CSV, JSON) only format it.
type Report struct {
	Schema   string       `json:"schema"`
	Profile  string       `json:"profile"`
	Detector Detector     `json:"detector"`
	Cells    []CellReport `json:"cells"`
}

// CellReport is one cell of a Report.
type CellReport struct {
	Cell     string        `json:"cell"`
	Sessions []SessionInfo `json:"sessions"`
	// Dropped counts sessions of an older workload hash, left out.
	Dropped int            `json:"dropped,omitempty"`
	Metrics []MetricReport `json:"metrics"`
}

// SessionInfo is one session as shown: its 1-based Run number in the
// cell's history, commit, promotion date and trial count.
type SessionInfo struct {
	Run      int       `json:"run"`
	Commit   string    `json:"commit,omitempty"`
	Date     time.Time `json:"date"`
	Trials   int       `json:"trials"`
	Warnings []string  `json:"warnings,omitempty"`
}

// MetricReport is one metric's series: per session (by Run) its level on
// the metric's own scale (the geometric mean of the trials for relative
// metrics, the mean for ratio metrics) and its spread (CV in percent, or
// SD in points), and the steps found in it.
type MetricReport struct {
	Metric string  `json:"metric"`
	Label  string  `json:"label"`
	Unit   string  `json:"unit"`
	Points []Level `json:"points"`
	Steps  []Step  `json:"steps,omitempty"`
	// Noise is what the gate learns from the current segment (the runs
	// after the cell's newest step): nil with fewer than MinSessions.
	Noise *Noise `json:"noise,omitempty"`
}

// Noise is a metric's noise over a cell's current segment: both CVs in
// percent (points for ratio metrics) and the between-session degrees of
// freedom, from runs FromRun..ToRun.
type Noise struct {
	FromRun   int     `json:"from_run"`
	ToRun     int     `json:"to_run"`
	Within    float64 `json:"within"`
	Between   float64 `json:"between"`
	BetweenDF float64 `json:"between_df"`
}

// Level is one session's value of a metric.
type Level struct {
	Run    int     `json:"run"`
	Value  float64 `json:"value"`
	Spread float64 `json:"spread"`
	N      int     `json:"n"`
}

// Build assembles the report of cells for metrics (those a cell lacks are
// left out of its report), detecting steps with d; a d without a Family
// gets one of every series shown.
func Build(profile string, cells []*Cell, ids []string, d Detector) *Report {
	if d.Family == 0 {
		// Every (cell, metric) series shown is tested: the family-wise
		// level covers them all.
		for _, c := range cells {
			for _, id := range ids {
				if s := c.Series(id, 0, len(c.Sessions)-1); len(s.Mean) > 0 {
					d.Family++
				}
			}
		}
	}
	r := &Report{Schema: ReportSchema, Profile: profile, Detector: d}
	for _, c := range cells {
		cr := CellReport{Cell: c.Name, Dropped: c.Dropped}
		for _, s := range c.Sessions {
			cr.Sessions = append(cr.Sessions, SessionInfo{Run: len(cr.Sessions) + 1, Commit: s.Commit, Date: s.PromotedAt, Trials: len(s.Trials), Warnings: s.Warnings})
		}
		seg, segOK := c.CurrentSegment(ids, len(c.Sessions)-1, d)
		for _, id := range ids {
			s := c.Series(id, 0, len(c.Sessions)-1)
			if len(s.Mean) == 0 {
				continue
			}
			mr := MetricReport{Metric: id, Label: metrics.Label(id)}
			if m, ok := metrics.Lookup(id); ok {
				mr.Unit = m.Unit
			}
			for i, mean := range s.Mean {
				l := Level{Run: s.Session[i] + 1, N: s.N[i]}
				if s.Absolute {
					l.Value, l.Spread = mean, 100*s.SD[i]
				} else {
					l.Value, l.Spread = math.Exp(mean), 100*math.Sqrt(math.Expm1(sq(s.SD[i])))
				}
				mr.Points = append(mr.Points, l)
			}
			mr.Steps = c.Steps(s, d)
			if pr, ok := c.Prior(id, seg.From, seg.To); segOK && ok {
				scale := func(v float64) float64 { return 100 * math.Sqrt(v) }
				mr.Noise = &Noise{FromRun: seg.From + 1, ToRun: seg.To + 1, Within: scale(pr.WithinVar), Between: scale(pr.BetweenVar), BetweenDF: pr.BetweenDF}
			}
			cr.Metrics = append(cr.Metrics, mr)
		}
		r.Cells = append(r.Cells, cr)
	}
	return r
}
