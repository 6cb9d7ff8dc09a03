// Package trust decides what a change is judged against: which session of
// each cell's history is its baseline, the sessions of the current segment
// that make up the baseline arm, the rules and settings stored with the
// baselines on the trusted side (the default branch), and the drift guard
// that runs after the comparison. `perfgate gate` (with or without --from)
// and `perfgate compare` on a baseline store both call it, so the same
// files get the same comparison whichever command judges them.
//
// The package is pure: the caller reads the store and asks git; what git
// knows arrives as the merge base and an ancestry test.
package trust

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Input is what the trusted side is built from.
type Input struct {
	// Baselines are the store's baseline files (one per cell).
	Baselines []*result.Result
	// Cells are the cells' histories (history.FromLines of the store's
	// history files).
	Cells []*history.Cell
	// MergeBase is the commit the change branched from ("" unknown: each
	// cell is judged against its newest session).
	MergeBase string
	// Ancestor says whether a commit is an ancestor of MergeBase; nil
	// says no for every commit.
	Ancestor func(sha string) bool
	// Reference is the drift guard's window (config history.*).
	Reference history.Reference
	// Now dates the baselines' age in the notes.
	Now time.Time
}

// Side is the trusted side of one comparison: per cell the history it was
// judged from, and the notes the comment carries about it.
type Side struct {
	cells    map[string]*history.Cell
	ref      history.Reference
	Warnings []string
}

// Cell returns the history of cell name, nil when it has none.
func (s *Side) Cell(name string) *history.Cell { return s.cells[name] }

// How a cell's baseline session was chosen (PickSession).
const (
	PickedNewest   = "newest"
	PickedExact    = "exact"
	PickedAncestor = "ancestor"
)

// Before prepares a comparison: it sets the trusted rules and settings on
// p (the stricter of the stored and the checked-out ones, naming each
// looser one it ignored), picks each cell's baseline session (the merge
// base's history entry when there is one, else the newest entry that is an
// ancestor of it, else the newest) and returns, as the baseline arm, the
// sessions of the history's current segment that ends there (see
// history.SegmentBaselines). p.Noise holds the calibration on entry; the
// history's own priors are not added, since the segment's sessions are in
// the arm and the verdict estimates their between-session spread itself.
func Before(in Input, p *verdict.Policy) (*Side, []*result.Result) {
	s := &Side{cells: map[string]*history.Cell{}, ref: in.Reference}
	for _, c := range in.Cells {
		s.cells[c.Name] = c
	}
	ancestor := in.Ancestor
	if ancestor == nil {
		ancestor = func(string) bool { return false }
	}
	s.Warnings = append(s.Warnings, ApplySettings(p, in.Baselines, &s.ref)...)
	calib := p.Noise
	p.Trusted = map[string][]verdict.Rule{}
	chosen := map[string]string{}
	var judged, picked []*result.Result
	// One detector for the whole comparison: its family is every (cell,
	// gated metric) series searched, so an unchanged profile announces a
	// step in at most alpha of gate runs; the calibration's between-session
	// noise lets a young history's test borrow strength.
	det := history.DefaultDetector()
	det.Noise = calib
	for _, b := range in.Baselines {
		det.Family += len(gatedOf(p, b))
	}
	for _, b := range in.Baselines {
		name := b.Workload.Cell
		if b.Provenance != nil {
			for _, r := range b.Provenance.Rules {
				p.Trusted[name] = append(p.Trusted[name], verdict.Rule{Metric: r.Metric, Gated: r.Gated, Tolerance: r.Tolerance})
			}
			for _, w := range b.Provenance.Warnings {
				s.Warnings = append(s.Warnings, fmt.Sprintf("the baseline of %s was promoted with a warning: %s", name, w))
			}
		}
		c := s.cells[name]
		if c == nil || len(c.Sessions) == 0 {
			judged, picked = append(judged, b), append(picked, b)
			continue
		}
		at, how := PickSession(c, in.MergeBase, ancestor)
		chosen[name] = how
		one := b
		if rs := c.Results(b, at, at); len(rs) == 1 {
			one = rs[0]
		}
		picked = append(picked, one)
		gated := gatedOf(p, one)
		rs, seg := c.SegmentBaselines(b, gated, at, det)
		calibrated := 0
		for _, pr := range calib[name] {
			calibrated = max(calibrated, pr.Sessions)
		}
		if note := seg.ShortNote(name, calibrated); note != "" {
			s.Warnings = append(s.Warnings, note)
		}
		rs = recent(rs, one, s.ref.Days)
		judged = append(judged, rs...)
		if len(rs) > 1 {
			from := seg.To - len(rs) + 1
			msg := fmt.Sprintf("the baseline of %s is the %d sessions %s", name, len(rs), c.Describe(from, seg.To))
			if seg.After != nil && seg.After.Session == from {
				msg += fmt.Sprintf(", since the step of %s at %s", seg.After.Metric, short7(seg.After.Commit))
			}
			s.Warnings = append(s.Warnings, msg)
		}
		for _, n := range history.CheckNoise(one, c, calib[name], gated, *p) {
			s.Warnings = append(s.Warnings, "the baseline is noisier than usual: "+n.String())
		}
	}
	if len(p.Trusted) == 0 {
		p.Trusted = nil
	}
	s.Warnings = append(s.Warnings, baselineNames(picked, chosen, in.MergeBase, in.Now)...)
	return s, judged
}

// gatedOf lists the metrics gated for b's cell, sorted.
func gatedOf(p *verdict.Policy, b *result.Result) []string {
	rules, _ := p.Resolve(b.Workload.Spec)
	return verdict.GatedIDs(rules)
}

// recent keeps the sessions promoted less than days before the session
// judged against (the reference window's edge: older runs are the drift
// guard's, not the baseline's); days 0 keeps them all.
func recent(rs []*result.Result, at *result.Result, days float64) []*result.Result {
	if days <= 0 || at.Provenance == nil || at.Provenance.PromotedAt.IsZero() {
		return rs
	}
	edge := at.Provenance.PromotedAt.Add(-time.Duration(days * float64(24*time.Hour)))
	var out []*result.Result
	for _, r := range rs {
		if r.Provenance == nil || r.Provenance.PromotedAt.After(edge) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return rs[len(rs)-1:]
	}
	return out
}

// PickSession chooses the session of c a change is judged against: the
// history entry of the merge base itself, else the newest entry whose
// commit is an ancestor of the merge base (the baseline main had when the
// change branched off; needs the commits in the checkout), else the
// newest entry.
func PickSession(c *history.Cell, mergeBase string, ancestor func(string) bool) (int, string) {
	newest := len(c.Sessions) - 1
	if mergeBase == "" {
		return newest, PickedNewest
	}
	if i := c.Find(mergeBase); i >= 0 {
		return i, PickedExact
	}
	for i := newest; i >= 0; i-- {
		if sha := c.Sessions[i].Commit; sha != "" && ancestor(sha) {
			return i, PickedAncestor
		}
	}
	return newest, PickedNewest
}

// baselineNames says which commit each baseline is, how it was chosen and
// how old it is, one line per commit.
func baselineNames(bs []*result.Result, chosen map[string]string, mergeBase string, now time.Time) []string {
	byCommit := map[string][]string{}
	when := map[string]time.Time{}
	how := map[string]string{}
	for _, b := range bs {
		sha, at := "(no commit recorded)", b.StartedAt
		if b.Provenance != nil {
			if b.Provenance.GitSHA != "" {
				sha = b.Provenance.GitSHA
			}
			at = b.Provenance.PromotedAt
		}
		byCommit[sha] = append(byCommit[sha], b.Workload.Cell)
		when[sha] = at
		how[sha] = chosen[b.Workload.Cell]
	}
	shas := slices.Sorted(maps.Keys(byCommit))
	var out []string
	for _, sha := range shas {
		what := "the newest baseline"
		switch {
		case how[sha] == PickedExact:
			what = "the baseline of the merge base"
		case how[sha] == PickedAncestor:
			what = fmt.Sprintf("the newest baseline before the merge base %s", short7(mergeBase))
		case mergeBase != "":
			what = fmt.Sprintf("the newest baseline (no history entry at or before the merge base %s)", short7(mergeBase))
		}
		age := "of unknown age"
		if t := when[sha]; !t.IsZero() {
			age = fmt.Sprintf("promoted %s, %.0f days ago", t.UTC().Format("2006-01-02"), now.Sub(t).Hours()/24)
		}
		name := sha
		if !strings.HasPrefix(sha, "(") {
			name = "commit " + short7(sha)
		}
		out = append(out, fmt.Sprintf("judged against %s: %s, %s (%s)", what, name, age, strings.Join(byCommit[sha], ", ")))
	}
	return out
}

func short7(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
