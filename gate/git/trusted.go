package git

import (
	"context"
	"fmt"
	"os"
)

// BaseQuery is what names the trusted side of a change: a merge base given
// by flag or environment, else the pull request's base branch, else the
// checkout's remote.
type BaseQuery struct {
	// Dir is a directory inside the checkout whose baselines are judged
	// (the store's profile directory, or "." when the store came from its
	// own branch, which the change cannot touch).
	Dir string
	// What names Explicit in errors: "--merge-base" or
	// "PERFGATE_MERGE_BASE". Explicit is its value, "" when neither is set.
	What, Explicit string
	// BaseRef is $GITHUB_BASE_REF, "" outside a pull request.
	BaseRef string
	// UnderReview says the run judges a change (trust.UnderReview): a push
	// or scheduled run measures the branch itself and trusts its checkout.
	UnderReview bool
	// Environ is the environment git runs in.
	Environ []string
}

// TrustedBase is the merge base a gate judges against: its commit ("" when
// none is known), the test of "promoted at an ancestor of it" (nil when
// the checkout cannot answer), and a note for the report when the
// baselines were taken as checked out. Every error is bad input or a
// checkout that cannot establish what was asked for, and names what to
// pass or fetch: the gate fails closed on it.
type TrustedBase struct {
	Commit   string
	Ancestor func(string) bool
	Note     string
}

// ResolveTrustedBase checks q's names (ValidRev, ValidBranch) and
// establishes the merge base in the checkout holding q.Dir (Repo.MergeBase,
// fetching what a shallow clone lacks). Without a merge base asked for and
// outside review it returns the zero TrustedBase: the checked-out baselines
// are the trusted side.
func ResolveTrustedBase(ctx context.Context, q BaseQuery) (TrustedBase, error) {
	if q.Explicit != "" {
		if err := ValidRev(q.What, q.Explicit); err != nil {
			return TrustedBase{}, err
		}
	} else if q.BaseRef != "" {
		if err := ValidBranch(q.BaseRef); err != nil {
			return TrustedBase{}, fmt.Errorf("GITHUB_BASE_REF: %w", err)
		}
	}
	if st, err := os.Stat(q.Dir); err != nil || !st.IsDir() {
		return TrustedBase{Commit: q.Explicit}, nil // no baselines: every cell fails closed as missing
	}
	if q.Explicit == "" && q.BaseRef == "" && !q.UnderReview {
		return TrustedBase{}, nil
	}
	r, ok := Find(ctx, q.Dir, q.Environ)
	if !ok {
		switch {
		case q.Explicit != "":
			return TrustedBase{Commit: q.Explicit, Note: fmt.Sprintf("the baselines (%s) are not in a git checkout: the merge base %s picks their history entry, but they could not be checked for changes since it", q.Dir, short(q.Explicit))}, nil
		case q.BaseRef != "":
			return TrustedBase{}, fmt.Errorf("inside a pull request (GITHUB_BASE_REF=%s) the baselines %s must be in the git checkout, so that the gate can tell main's baselines from the pull request's: check the repository out (actions/checkout with fetch-depth: 0) or pass --merge-base", q.BaseRef, q.Dir)
		}
		return TrustedBase{}, nil
	}
	mb, err := r.MergeBase(ctx, q.What, q.Explicit, q.BaseRef)
	if err != nil {
		return TrustedBase{}, err
	}
	if mb == "" {
		return TrustedBase{Note: "no merge base known (no --merge-base, PERFGATE_MERGE_BASE or GITHUB_BASE_REF, and the checkout has no remote origin): the checked-out baselines were trusted as they are; pass --merge-base so that baselines a change re-recorded are refused"}, nil
	}
	return TrustedBase{Commit: mb, Ancestor: r.Ancestry(ctx, mb)}, nil
}

// short is a sha as messages show it.
func short(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}
