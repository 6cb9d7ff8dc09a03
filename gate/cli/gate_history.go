package cli

import (
	"context"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/git"
	"github.com/perfgate/perfgate/gate/history"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trust"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gateHistory is what the gate takes from the baseline history: the
// trusted side of the comparison (gate/trust decides it; this file only
// reads the store and asks git).
type gateHistory struct {
	side *trust.Side
}

// trend gives the report each compared cell's trend from the history the
// verdict already read.
func (g *gateHistory) trend(d *report.Data) {
	attachTrend(d, g.side.Cell)
}

// gateHistoryBefore prepares a gate run from the history: it establishes
// the merge base (fetching what a shallow checkout lacks, failing closed
// when it cannot), refuses a baseline re-recorded inside the pull request
// (unless allowed), and lets trust.Before pick the baseline sessions and
// apply the trusted rules and settings to p.
func gateHistoryBefore(ctx context.Context, cfg config.Config, o gateOptions, p *verdict.Policy, baselines []*result.Result) (*gateHistory, []*result.Result, error) {
	store := baseline.Store{Root: cfg.Baselines}
	dir := store.Dir(cfg.Profile)
	var notes []string
	checkout := dir
	if o.baselinesBranch != "" {
		// The store came from its branch, which the change under review
		// cannot touch: the merge base is the checkout's, and there is
		// nothing in the checkout to check for re-recorded baselines.
		checkout = "."
	}
	mergeBase, ancestor, err := gateTrustedBase(ctx, checkout, o, o.getenv, &notes)
	if err != nil {
		return nil, nil, err
	}
	if !o.allowBaselineChange {
		if err := trust.RefusePromotedInPR(dir, baselines); err != nil {
			return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
		}
		if g, ok := git.Find(ctx, dir, o.environ); ok && mergeBase != "" && o.baselinesBranch == "" {
			changed, diffErr := g.ChangedSince(ctx, dir, mergeBase)
			if err := trust.RefuseRerecorded(dir, mergeBase, changed, diffErr); err != nil {
				return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
			}
		}
	}
	side, judged, err := trustedSide(store, cfg, mergeBase, ancestor, p, baselines, o.now())
	if err != nil {
		return nil, nil, err
	}
	side.Warnings = append(notes, side.Warnings...)
	return &gateHistory{side: side}, judged, nil
}

// trustedSide reads the profile's history and decides the trusted side of
// a comparison against baselines: gate and compare both call it, so they
// judge the same files alike.
func trustedSide(store baseline.Store, cfg config.Config, mergeBase string, ancestor func(string) bool, p *verdict.Policy, baselines []*result.Result, now time.Time) (*trust.Side, []*result.Result, error) {
	cells, _, err := loadHistory(store, cfg.Profile)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	side, judged := trust.Before(trust.Input{
		Baselines: baselines,
		Cells:     cells,
		MergeBase: mergeBase,
		Ancestor:  ancestor,
		Reference: history.Reference{Days: cfg.History.ReferenceDays, Runs: cfg.History.ReferenceRuns},
		Now:       now,
	}, p)
	return side, judged, nil
}

// gateTrustedBase establishes the merge base of the change and the
// ancestry test against it (git.ResolveTrustedBase). Without a merge base
// asked for (no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF) it
// returns "" and, where the report should say so, a note that the
// baselines were taken as checked out.
func gateTrustedBase(ctx context.Context, dir string, o gateOptions, getenv func(string) string, notes *[]string) (string, func(string) bool, error) {
	what, explicit := "--merge-base", o.mergeBase
	if explicit == "" {
		what, explicit = "PERFGATE_MERGE_BASE", getenv("PERFGATE_MERGE_BASE")
	}
	tb, err := git.ResolveTrustedBase(ctx, git.BaseQuery{Dir: dir, What: what, Explicit: explicit,
		BaseRef: getenv("GITHUB_BASE_REF"), UnderReview: trust.UnderReview(getenv), Environ: o.environ})
	if err != nil {
		return "", nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	if tb.Note != "" {
		*notes = append(*notes, tb.Note)
	}
	return tb.Commit, tb.Ancestor, nil
}

// after adds the trusted side's notes to the comparison and runs the
// drift guard (trust.Side.After).
func (g *gateHistory) after(out *pipeline.Outcome, p verdict.Policy, bases []*result.Result) error {
	if out == nil {
		return nil
	}
	return g.side.After(out.Comparison, out.Results, bases, p)
}
