package noise

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Table is what `perfgate calibrate` prints: per workload cell and gated
// metric, the two kinds of noise and what a gate at that noise resolves.
// Add computes every figure; WriteText only formats them.
type Table struct {
	// Restarts and TrialsPerRestart describe the calibration.
	Restarts, TrialsPerRestart int
	// Alpha, Looks and Family are the gate's family-wise level, its
	// looks and the number of gated cells; CellAlpha = Alpha/Looks/Family.
	Alpha     float64
	Looks     int
	Family    int
	CellAlpha float64
	Rows      []Row
	// AllPass is the probability that an unchanged build passes every row
	// at once, were the rows' noise independent (the product of their
	// PassProb).
	AllPass float64
	// Notes are the metrics that could not be estimated, and why.
	Notes []string
}

// Row is one (cell, metric) of the table.
type Row struct {
	Cell, Metric, Label string
	Absolute            bool
	Estimate            Estimate
	// Trials is the gate's trials per arm the prediction is for, and
	// Tolerance the metric's tolerance (a fraction, or points of a ratio).
	Trials     int
	Tolerance  float64
	Prediction Prediction
	// Reached says the design already resolves the tolerance.
	Reached bool
	// PassProb is the probability that an unchanged build passes the row
	// at its tolerance (Components.PassProbability).
	PassProb float64
}

// Add fits nothing new: it predicts, for estimate e of (cell, metric) and
// the gate's design d, what the gate resolves at tolerance tol, and
// appends the row.
func (t *Table) Add(cell, metric, label string, absolute bool, e Estimate, d Design, tol float64) {
	c := e.Components()
	ts := ScaleTolerance(tol, absolute)
	p := c.Predict(d, ts)
	pass := c.PassProbability(d, ts)
	t.Rows = append(t.Rows, Row{Cell: cell, Metric: metric, Label: label, Absolute: absolute, Estimate: e,
		Trials: d.CandidateTrials, Tolerance: tol, Prediction: p, Reached: p.MDE <= ts && p.PassTolerance <= ts, PassProb: pass})
	if len(t.Rows) == 1 {
		t.AllPass = 1
	}
	if !math.IsNaN(pass) {
		t.AllPass *= pass
	}
}

// WriteText renders the table with aligned columns and footnotes.
func WriteText(w io.Writer, t *Table) error {
	var b strings.Builder
	fmt.Fprintf(&b, "calibration: %d server starts x %d trials each\n", t.Restarts, t.TrialsPerRestart)
	fmt.Fprintf(&b, "predictions: the gate's trials per arm (n), a baseline from one session, alpha %g over %d look(s) and %d gated cell(s): %.2g per cell, power 80 %%\n\n",
		t.Alpha, t.Looks, t.Family, t.CellAlpha)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tmetric\twithin CV\tbetween CV (df)\tn\tdetectable\tpasses 90 % at\ttolerance\tP(pass)\tto reach the tolerance")
	truncated := false
	for _, r := range t.Rows {
		mark := ""
		if r.Estimate.Truncated {
			mark, truncated = "*", true
		}
		p := r.Prediction
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s (%s)\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Cell, r.Label,
			spread(r.Estimate.WithinVar, r.Absolute), spread(r.Estimate.BetweenVar, r.Absolute), mark, dfText(r.Estimate.BetweenDF),
			r.Trials, change(p.Detectable, r.Absolute), change(p.PassTolerance, r.Absolute),
			plain(r.Tolerance, r.Absolute), prob(r.PassProb), reach(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n")
	b.WriteString("detectable: the smallest worsening found as a regression 80 % of the time (significant and beyond the tolerance)\n")
	b.WriteString("passes 90 % at: the smallest tolerance at which an unchanged build passes 90 % of the time\n")
	b.WriteString("P(pass): the probability that an unchanged build passes the row at its tolerance\n")
	if len(t.Rows) > 0 {
		fmt.Fprintf(&b, "an unchanged build passes all %d rows together with probability %s (were their noise independent)\n", len(t.Rows), prob(t.AllPass))
	}
	if truncated {
		b.WriteString("* the between-session estimate came out negative and is set to 0: the sessions agreed better than their trials predict; more restarts make it firmer\n")
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reach says what it would take to resolve the row's tolerance.
func reach(r Row) string {
	p := r.Prediction
	switch {
	case r.Reached:
		return "reached"
	case p.BelowFloor:
		return fmt.Sprintf("not by trials or sessions: the session floor is %s", change(p.Floor, r.Absolute))
	case p.Trials == 0 && p.Sessions == 0:
		return fmt.Sprintf("more than %d trials per arm", MaxTrials)
	}
	var parts []string
	if p.Trials > 0 {
		parts = append(parts, fmt.Sprintf("%d trials per arm", p.Trials))
	}
	if p.Sessions > 0 {
		parts = append(parts, fmt.Sprintf("%d baseline sessions", p.Sessions))
	}
	return strings.Join(parts, " or ")
}

// spread formats a variance as a CV in percent, or a standard deviation in
// points for absolute metrics.
func spread(v float64, absolute bool) string {
	if absolute {
		return fmt.Sprintf("%.2f pt", 100*CV(v, true))
	}
	return fmt.Sprintf("%.1f %%", 100*CV(v, false))
}

// change formats a test-scale difference as a change.
func change(x float64, absolute bool) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "-"
	}
	if absolute {
		return fmt.Sprintf("%.2f pt", 100*x)
	}
	return fmt.Sprintf("%.1f %%", 100*Change(x, false))
}

// plain formats a tolerance (a fraction, or a difference of ratios).
func plain(tol float64, absolute bool) string {
	if absolute {
		return fmt.Sprintf("%.2f pt", 100*tol)
	}
	return fmt.Sprintf("%.1f %%", 100*tol)
}

// dfText shows degrees of freedom with one decimal, or two significant
// digits below 1 (a Satterthwaite df of 0.04 is not 0, which means
// unknown).
func dfText(df float64) string {
	if df < 1 {
		return fmt.Sprintf("%.2g", df)
	}
	return fmt.Sprintf("%.1f", df)
}

// prob formats a probability as a percentage.
func prob(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*p)
}
