package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gateHistory is what the gate takes from the baseline history: which
// session each cell is judged against, the rules and noise learned from
// the trusted side, and the drift guard's reference windows.
type gateHistory struct {
	cells    map[string]*history.Cell
	ref      history.Reference
	warnings []string
}

// trend gives the report each compared cell's trend from the history the
// verdict already read.
func (g *gateHistory) trend(d *report.Data) {
	attachTrend(d, func(name string) *history.Cell { return g.cells[name] })
}

// gateHistoryBefore prepares a gate run from the history: it refuses a
// baseline re-recorded inside the pull request (unless allowed), picks
// each cell's baseline session (the merge base's history entry when there
// is one, else the newest) and returns, as the baseline arm, the sessions
// of the history's current segment that ends there (see
// history.SegmentBaselines); it sets the trusted rules on the policy and
// notes baselines noisier than usual. p.Noise holds the calibration
// (noisePriors) on entry; the history's own priors are not added, since
// the segment's sessions are in the arm and the verdict estimates their
// between-session spread itself (adding both would count them twice).
func gateHistoryBefore(ctx context.Context, cfg config.Config, o gateOptions, p *verdict.Policy, baselines []*result.Result) (*gateHistory, []*result.Result, error) {
	g := &gateHistory{cells: map[string]*history.Cell{}, ref: history.Reference{Days: cfg.History.ReferenceDays, Runs: cfg.History.ReferenceRuns}}
	store := baseline.Store{Root: cfg.Baselines}
	mergeBase := gateMergeBase(ctx, o, &g.warnings)
	if !o.allowBaselineChange {
		if err := gateRefuseRerecorded(ctx, store.Dir(cfg.Profile), mergeBase, baselines); err != nil {
			return nil, nil, err
		}
	}
	cells, _, err := loadHistory(store, cfg.Profile)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	for _, c := range cells {
		g.cells[c.Name] = c
	}
	calib := p.Noise
	p.Trusted = map[string][]verdict.Rule{}
	ancestor := gateAncestry(ctx, mergeBase)
	chosen := map[string]string{} // cell -> how its baseline was chosen
	var judged, picked []*result.Result
	// One detector for the whole run: its family is every (cell, gated
	// metric) series searched, so an unchanged profile announces a step
	// in at most alpha of gate runs; the calibration's between-session
	// noise lets a young history's test borrow strength.
	det := history.DefaultDetector()
	det.Noise = calib
	for _, b := range baselines {
		det.Family += len(gatedOf(p, b))
	}
	for _, b := range baselines {
		name := b.Workload.Cell
		if b.Provenance != nil {
			for _, r := range b.Provenance.Rules {
				p.Trusted[name] = append(p.Trusted[name], verdict.Rule{Metric: r.Metric, Gated: r.Gated, Tolerance: r.Tolerance})
			}
			for _, w := range b.Provenance.Warnings {
				g.warnings = append(g.warnings, fmt.Sprintf("the baseline of %s was promoted with a warning: %s", name, w))
			}
		}
		c := g.cells[name]
		if c == nil || len(c.Sessions) == 0 {
			judged, picked = append(judged, b), append(picked, b)
			continue
		}
		at, how := gatePickSession(c, mergeBase, ancestor)
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
			g.warnings = append(g.warnings, note)
		}
		rs = gateRecent(rs, one, cfg.History.ReferenceDays)
		judged = append(judged, rs...)
		if len(rs) > 1 {
			from := seg.To - len(rs) + 1
			msg := fmt.Sprintf("the baseline of %s is the %d sessions %s", name, len(rs), c.Describe(from, seg.To))
			if seg.After != nil && seg.After.Session == from {
				msg += fmt.Sprintf(", since the step of %s at %s", seg.After.Metric, short7(seg.After.Commit))
			}
			g.warnings = append(g.warnings, msg)
		}
		for _, n := range history.CheckNoise(one, c, calib[name], gated, *p) {
			g.warnings = append(g.warnings, "the baseline is noisier than usual: "+n.String())
		}
	}
	if len(p.Trusted) == 0 {
		p.Trusted = nil
	}
	g.warnings = append(g.warnings, gateBaselineNames(picked, chosen, mergeBase)...)
	return g, judged, nil
}

// gatedOf lists the metrics gated for b's cell, sorted.
func gatedOf(p *verdict.Policy, b *result.Result) []string {
	rules, _ := p.Resolve(b.Workload.Spec)
	var gated []string
	for id, r := range rules {
		if r.Gated {
			gated = append(gated, id)
		}
	}
	sort.Strings(gated)
	return gated
}

// gateRecent keeps the sessions promoted less than days before the
// session judged against (the reference window's edge: older runs are the
// drift guard's, not the baseline's); days 0 keeps them all.
func gateRecent(rs []*result.Result, at *result.Result, days float64) []*result.Result {
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

// How a cell's baseline session was chosen (gatePickSession).
const (
	pickedNewest   = "newest"
	pickedExact    = "exact"
	pickedAncestor = "ancestor"
)

// gatePickSession chooses the session of c a change is judged against: the
// history entry of the merge base itself, else the newest entry whose
// commit is an ancestor of the merge base (the baseline main had when the
// change branched off; needs the commits in the checkout), else the
// newest entry.
func gatePickSession(c *history.Cell, mergeBase string, ancestor func(string) bool) (int, string) {
	newest := len(c.Sessions) - 1
	if mergeBase == "" {
		return newest, pickedNewest
	}
	if i := c.Find(mergeBase); i >= 0 {
		return i, pickedExact
	}
	for i := newest; i >= 0; i-- {
		if sha := c.Sessions[i].Commit; sha != "" && ancestor(sha) {
			return i, pickedAncestor
		}
	}
	return newest, pickedNewest
}

// gateAncestry returns a test of "commit is an ancestor of mergeBase" by
// git; without git, or for commits the checkout lacks, it says no.
// Answers are cached: the cells of one promotion share its commit.
func gateAncestry(ctx context.Context, mergeBase string) func(string) bool {
	known := map[string]bool{}
	return func(sha string) bool {
		if mergeBase == "" {
			return false
		}
		if v, ok := known[sha]; ok {
			return v
		}
		v := exec.CommandContext(ctx, "git", "merge-base", "--is-ancestor", sha, mergeBase).Run() == nil
		known[sha] = v
		return v
	}
}

// gateBaselineNames says which commit each baseline is, how it was chosen
// and how old it is, one line per commit.
func gateBaselineNames(bs []*result.Result, chosen map[string]string, mergeBase string) []string {
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
	var out []string
	for _, sha := range sortedStrings(byCommit) {
		what := "the newest baseline"
		switch {
		case how[sha] == pickedExact:
			what = "the baseline of the merge base"
		case how[sha] == pickedAncestor:
			what = fmt.Sprintf("the newest baseline before the merge base %s", short7(mergeBase))
		case mergeBase != "":
			what = fmt.Sprintf("the newest baseline (no history entry at or before the merge base %s)", short7(mergeBase))
		}
		age := "of unknown age"
		if t := when[sha]; !t.IsZero() {
			age = fmt.Sprintf("promoted %s, %.0f days ago", t.UTC().Format("2006-01-02"), time.Since(t).Hours()/24)
		}
		name := sha
		if !strings.HasPrefix(sha, "(") {
			name = "commit " + short7(sha)
		}
		out = append(out, fmt.Sprintf("judged against %s: %s, %s (%s)", what, name, age, strings.Join(byCommit[sha], ", ")))
	}
	return out
}

// after adds the history's notes to the comparison and runs the drift
// guard: a candidate that passes against its baseline but is beyond the
// tolerance against the reference window fails, naming the window.
func (g *gateHistory) after(out *pipeline.Outcome, p verdict.Policy, bases []*result.Result) error {
	if out == nil || out.Comparison == nil {
		return nil
	}
	c := out.Comparison
	c.Warnings = append(c.Warnings, g.warnings...)
	byCell := map[string]*result.Result{}
	for _, b := range bases {
		byCell[b.Workload.Cell] = b
	}
	var windows []history.DriftWindow
	for _, r := range out.Results {
		h, b := g.cells[r.Workload.Cell], byCell[r.Workload.Cell]
		if h == nil || b == nil {
			continue
		}
		if from, to, ok := h.Window(r.StartedAt, g.ref); ok {
			windows = append(windows, history.DriftWindow{Cell: h.Name, Name: h.Describe(from, to), Sessions: h.Results(b, from, to)})
		}
	}
	d, err := history.CheckDrift(windows, out.Results, p)
	if err != nil || !d.Regressed() {
		return err
	}
	c.Warnings = append(d.Messages, c.Warnings...)
	if c.Verdict != verdict.Regression {
		c.Verdict = verdict.Regression
		h := *d.Comparison.Headline
		h.Label += " (cumulative drift against " + windowOf(d, h.Workload, windows) + ")"
		c.Headline = &h
		c.Regressions += d.Comparison.Regressions
	}
	return nil
}

func windowOf(d *history.Drift, cell string, ws []history.DriftWindow) string {
	for _, w := range ws {
		if w.Cell == cell {
			return w.Name
		}
	}
	return "the reference window"
}

// gateMergeBase is the commit the pull request branched from: --merge-base
// or PERFGATE_MERGE_BASE, else (inside a pull request's Actions run)
// `git merge-base HEAD origin/$GITHUB_BASE_REF`; "" when unknown.
func gateMergeBase(ctx context.Context, o gateOptions, warnings *[]string) string {
	if o.mergeBase != "" {
		return o.mergeBase
	}
	if v := gateGetenv("PERFGATE_MERGE_BASE"); v != "" {
		return v
	}
	base := gateGetenv("GITHUB_BASE_REF")
	if base == "" {
		return ""
	}
	out, err := exec.CommandContext(ctx, "git", "merge-base", "HEAD", "origin/"+base).Output()
	if err != nil {
		*warnings = append(*warnings, fmt.Sprintf("could not find the merge base with origin/%s (%v; fetch with fetch-depth: 0 or pass merge-base): judged against the newest baseline", base, err))
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gateRefuseRerecorded refuses baselines recorded inside a pull request:
// those promoted from a pull request ref, and, when the merge base is
// known, any change under the profile's baseline directory since it. A
// pull request that re-records its own baseline would judge itself.
func gateRefuseRerecorded(ctx context.Context, dir, mergeBase string, bs []*result.Result) error {
	for _, b := range bs {
		if b.Provenance != nil && strings.HasPrefix(b.Provenance.GitRef, "refs/pull/") {
			return exitf(ExitInvalid, "baseline %s was promoted from the pull request ref %s: a baseline re-recorded inside a pull request is refused (pass --allow-baseline-change, Action input allow-baseline-change, to accept it)",
				filepath.Join(dir, result.FileName(b.Workload.Cell)), b.Provenance.GitRef)
		}
	}
	if mergeBase == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, "git", "diff", "--name-only", mergeBase, "--", ".")
	cmd.Dir = dir // inside the checkout whatever the working directory
	out, err := cmd.Output()
	if err != nil {
		return nil // not a git checkout, or the merge base is not fetched
	}
	if changed := strings.Fields(string(out)); len(changed) > 0 {
		return exitf(ExitInvalid, "this change re-records baselines (%s changed since the merge base %s): refused, since a pull request must not set its own baseline (pass --allow-baseline-change, Action input allow-baseline-change, to accept it)",
			strings.Join(changed, ", "), short7(mergeBase))
	}
	return nil
}

func short7(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

func sortedStrings[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
