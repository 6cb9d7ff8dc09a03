package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// MaxSegment bounds the sessions a current segment holds: a year of
// nightly runs at one level says no more about tomorrow's session than
// its last month does, and an unbounded segment would let a slow drift
// inside the noise widen the between-session estimate.
const MaxSegment = 30

// detectWindow bounds the sessions searched for the current segment's
// left edge: steps older than it cannot bound a segment of MaxSegment, and
// a gate run should not permute a year of nightly runs per metric.
const detectWindow = 4 * MaxSegment

// Segment is a run of sessions [From, To] (inclusive, indices into
// Cell.Sessions) with no detected step inside, and the steps that bound
// it on the left (the newest one before it, if any).
type Segment struct {
	From, To int
	// After is the step the segment starts at, nil when the segment
	// reaches back to the history's start (or MaxSegment).
	After *Step
}

// Len is the number of sessions in the segment.
func (s Segment) Len() int { return s.To - s.From + 1 }

// CurrentSegment returns the segment that ends at session to: the
// sessions after the newest step, before or at to, of any of metrics (the
// gated ones; a step in any of them means the level the baseline should
// represent changed) and from the newest accepted promotion on (Session.
// Accepted), at most MaxSegment of them. ok is false when c has
// no session at or before to.
func (c *Cell) CurrentSegment(metrics []string, to int, d Detector) (Segment, bool) {
	if to >= len(c.Sessions) {
		to = len(c.Sessions) - 1
	}
	if to < 0 {
		return Segment{}, false
	}
	seg := Segment{From: max(0, to-detectWindow+1), To: to}
	for i := seg.From; i <= to; i++ {
		if c.Sessions[i].Accepted != "" {
			seg.From = i // a deliberately accepted level starts a segment
		}
	}
	for _, id := range metrics {
		s := c.Series(id, seg.From, to)
		for _, st := range c.Steps(s, d) {
			if st.Session > seg.From && st.Session <= to {
				step := st
				seg.From, seg.After = st.Session, &step
			}
		}
	}
	if seg.Len() > MaxSegment {
		seg.From = seg.To - MaxSegment + 1
	}
	return seg, true
}

// Find returns the index of the newest session of commit sha (a full sha
// or a prefix of at least 7 characters), or -1.
func (c *Cell) Find(sha string) int {
	if len(sha) < 7 {
		return -1
	}
	for i := len(c.Sessions) - 1; i >= 0; i-- {
		if cm := c.Sessions[i].Commit; cm != "" && (strings.HasPrefix(cm, sha) || strings.HasPrefix(sha, cm) && len(cm) >= 7) {
			return i
		}
	}
	return -1
}

// Results returns sessions [from, to] of c as result files, one per
// session, for the verdict's baseline arm: the baseline file itself for
// the session it was promoted from (see sameRun), and for
// the others a result built from the history line with base's workload,
// server and (when the line has none, as v1 lines) fingerprint. Sessions
// of another workload hash than base's are left out.
func (c *Cell) Results(base *result.Result, from, to int) []*result.Result {
	var out []*result.Result
	for i := max(from, 0); i <= to && i < len(c.Sessions); i++ {
		s := c.Sessions[i]
		if s.WorkloadHash != base.Workload.Hash {
			continue
		}
		if s.sameRun(base) {
			out = append(out, base)
			continue
		}
		out = append(out, s.result(base))
	}
	return out
}

// sameRun reports whether s is the session base was promoted from: the
// same start and, when both record one, the same commit and promotion
// time (two promotions of one result file share a start).
func (s Session) sameRun(base *result.Result) bool {
	if !s.StartedAt.Equal(base.StartedAt) {
		return false
	}
	if p := base.Provenance; p != nil {
		if p.GitSHA != "" && s.Commit != "" && p.GitSHA != s.Commit {
			return false
		}
		if !p.PromotedAt.IsZero() && !s.PromotedAt.IsZero() && !p.PromotedAt.Equal(s.PromotedAt) {
			return false
		}
	}
	return true
}

// result builds a result file from the session with base as template.
func (s Session) result(base *result.Result) *result.Result {
	r := &result.Result{
		Schema: result.Schema, Tool: base.Tool, Workload: base.Workload, Server: base.Server,
		Fingerprint: s.Fingerprint, StartedAt: s.StartedAt, FinishedAt: s.StartedAt,
		Complete: true, Source: "perfgate history",
		Provenance: &result.Provenance{
			GitSHA: s.Commit, GitRef: s.Ref, PromotedAt: s.PromotedAt,
			ServerVersion: s.ServerVersion, How: "history line", Warnings: s.Warnings,
		},
	}
	if r.Fingerprint == nil {
		r.Fingerprint = base.Fingerprint
	}
	r.Server.Version = s.ServerVersion
	for i, t := range s.Trials {
		r.Trials = append(r.Trials, result.Trial{Index: i, Valid: true, Values: t})
	}
	return r
}

// Describe names sessions [from, to] for a report: "3 runs promoted
// 2026-10-01..2026-10-03 (abc1234..def5678)".
func (c *Cell) Describe(from, to int) string {
	if from < 0 || to >= len(c.Sessions) || from > to {
		return "no runs"
	}
	a, b := c.Sessions[from], c.Sessions[to]
	n := to - from + 1
	runs := "runs"
	if n == 1 {
		runs = "run"
	}
	dates := day(a.PromotedAt)
	if n > 1 {
		dates += ".." + day(b.PromotedAt)
	}
	commits := shortSHA(a.Commit)
	if n > 1 && b.Commit != a.Commit {
		commits += ".." + shortSHA(b.Commit)
	}
	if commits == "" || commits == ".." {
		return fmt.Sprintf("%d %s promoted %s", n, runs, dates)
	}
	return fmt.Sprintf("%d %s promoted %s (%s)", n, runs, dates, commits)
}

func day(t time.Time) string {
	if t.IsZero() {
		return "(no date)"
	}
	return t.UTC().Format("2006-01-02")
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// SegmentBaselines is the baseline arm of the two-level noise model: the
// sessions of the current segment ending at session at (see
// CurrentSegment), as result files with base as template (see Results),
// oldest first. Without history it is base alone.
func (c *Cell) SegmentBaselines(base *result.Result, metrics []string, at int, d Detector) ([]*result.Result, Segment) {
	seg, ok := c.CurrentSegment(metrics, at, d)
	if !ok {
		return []*result.Result{base}, Segment{}
	}
	rs := c.Results(base, seg.From, seg.To)
	if len(rs) == 0 {
		return []*result.Result{base}, seg
	}
	return rs, seg
}

// ShortNote is the gate's caveat for a current segment that starts at a
// step and holds fewer sessions than a between-session estimate needs
// (MinSessions) or than the calibration has (calibrated, 0 when the cell
// is not calibrated): its sessions alone say little about how far
// sessions differ, so the verdict leans on the calibration's noise (or
// the documented default) instead, and the note says so. Empty when the
// segment is long enough or starts at the history's beginning.
func (s Segment) ShortNote(cell string, calibrated int) string {
	if s.After == nil || s.Len() >= max(MinSessions, calibrated) {
		return ""
	}
	runs := "runs"
	if s.Len() == 1 {
		runs = "run"
	}
	source := "the documented default between-session noise is assumed (run `perfgate calibrate` to measure it)"
	if calibrated > 0 {
		source = fmt.Sprintf("its between-session noise comes mostly from the calibration (%d sessions)", calibrated)
	}
	return fmt.Sprintf("the newest segment of %s, since the step of %s at run %d, has only %d %s: %s; it firms up as more runs are promoted",
		cell, s.After.Metric, s.From+1, s.Len(), runs, source)
}
