package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/config"
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
		if err := gateRefusePromotedInPR(dir, baselines); err != nil {
			return nil, nil, err
		}
		if g, ok := findCheckout(ctx, dir, o.environ); ok && mergeBase != "" && o.baselinesBranch == "" {
			if err := gateRefuseRerecorded(g, dir, mergeBase); err != nil {
				return nil, nil, err
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

// gateTrustedBase establishes the merge base of the change (see
// mergebase.go) and the ancestry test against it. Without a merge base
// asked for (no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF) it
// returns "" and a note that the baselines were taken as checked out.
func gateTrustedBase(ctx context.Context, dir string, o gateOptions, getenv func(string) string, notes *[]string) (string, func(string) bool, error) {
	what, explicit := "--merge-base", o.mergeBase
	if explicit == "" {
		what, explicit = "PERFGATE_MERGE_BASE", getenv("PERFGATE_MERGE_BASE")
	}
	if explicit != "" {
		if err := validRev(what, explicit); err != nil {
			return "", nil, &ExitError{Code: ExitInvalid, Err: err}
		}
	}
	baseRef := getenv("GITHUB_BASE_REF")
	if explicit == "" && baseRef != "" {
		if err := validBranch("GITHUB_BASE_REF", baseRef); err != nil {
			return "", nil, &ExitError{Code: ExitInvalid, Err: err}
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return explicit, nil, nil // no baselines: every cell fails closed as missing
	}
	if explicit == "" && baseRef == "" && !trust.UnderReview(getenv) {
		return "", nil, nil
	}
	g, ok := findCheckout(ctx, dir, o.environ)
	if !ok {
		switch {
		case explicit != "":
			*notes = append(*notes, fmt.Sprintf("the baselines (%s) are not in a git checkout: the merge base %s picks their history entry, but they could not be checked for changes since it", dir, short7(explicit)))
			return explicit, nil, nil
		case baseRef != "":
			return "", nil, exitf(ExitInvalid, "inside a pull request (GITHUB_BASE_REF=%s) the baselines %s must be in the git checkout, so that the gate can tell main's baselines from the pull request's: check the repository out (actions/checkout with fetch-depth: 0) or pass --merge-base", baseRef, dir)
		}
		return "", nil, nil
	}
	mb, err := g.resolveMergeBase(what, explicit, baseRef)
	if err != nil {
		return "", nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	if mb == "" {
		*notes = append(*notes, "no merge base known (no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF, and the checkout has no remote origin): the checked-out baselines were trusted as they are; pass --merge-base so that baselines a change re-recorded are refused")
		return "", nil, nil
	}
	return mb, g.ancestry(mb), nil
}

// after adds the trusted side's notes to the comparison and runs the
// drift guard (trust.Side.After).
func (g *gateHistory) after(out *pipeline.Outcome, p verdict.Policy, bases []*result.Result) error {
	if out == nil {
		return nil
	}
	return g.side.After(out.Comparison, out.Results, bases, p)
}

// gateRefusePromotedInPR refuses baselines promoted from a pull request
// ref: a pull request that re-records its own baseline would judge itself.
func gateRefusePromotedInPR(dir string, bs []*result.Result) error {
	for _, b := range bs {
		if b.Provenance != nil && strings.HasPrefix(b.Provenance.GitRef, "refs/pull/") {
			return exitf(ExitInvalid, "baseline %s was promoted from the pull request ref %s: a baseline re-recorded inside a pull request is refused (pass --allow-baseline-change, Action input allow-baseline-change, to accept it)",
				filepath.Join(dir, result.FileName(b.Workload.Cell)), b.Provenance.GitRef)
		}
	}
	return nil
}

// gateRefuseRerecorded refuses any change under the profile's baseline
// directory since the merge base (whatever ref the promotion claims). A
// diff git cannot make is a refusal too: the gate never trusts baselines
// it could not check.
func gateRefuseRerecorded(g gitCheckout, dir, mergeBase string) error {
	changed, err := g.changedSince(dir, mergeBase)
	if err != nil {
		return exitf(ExitInvalid, "could not check the baselines %s against the merge base %s (%v): fetch it (actions/checkout with fetch-depth: 0, or git fetch origin %s)", dir, short7(mergeBase), err, mergeBase)
	}
	if len(changed) > 0 {
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
