package pipeline

import (
	"context"

	"github.com/perfgate/perfgate/gate/verdict"
)

// Looks is the one adaptive-looks loop, of perfgate gate (Run: more
// trials of the undecided workloads) and perfgate ab (more blocks of both
// arms). It judges the first look; while the verdict is inconclusive, some
// gated cell needs more data (Comparison.NeedsTrials), no run failed and
// looks remain, it has extend measure for the next look and judges again.
// The looks are declared up front (maxLooks, verdict.Look), so each spends its
// share of alpha whatever rule added the data.
//
// judge compares what was measured so far at look, runErr being the
// failure that stopped the measuring (a comparison of partial results).
// extend measures for look and says how much it added (cells run, blocks
// added) and the run failure; 0 added means nothing could be (budget,
// trial or block limits), and the last look stands; 0 added with an error
// is extend's own failure, not the run's. Looks returns the last
// comparison, its look, the run failure and its own error (judge's or
// extend's).
func Looks(ctx context.Context, maxLooks int, runErr error,
	judge func(look verdict.Look, runErr error) (*verdict.Comparison, error),
	extend func(ctx context.Context, look verdict.Look, cmp *verdict.Comparison) (added int, runErr error),
) (*verdict.Comparison, verdict.Look, error, error) {
	look := verdict.Look{Index: 1, Max: max(maxLooks, 1)}
	for {
		cmp, err := judge(look, runErr)
		if err != nil {
			return nil, look, runErr, err
		}
		if runErr != nil || look.Index >= look.Max || cmp.Verdict != verdict.Inconclusive || len(cmp.NeedsTrials()) == 0 {
			return cmp, look, runErr, nil
		}
		next := verdict.Look{Index: look.Index + 1, Max: look.Max}
		added, err := extend(ctx, next, cmp)
		if added == 0 {
			return cmp, look, nil, err
		}
		look, runErr = next, err
	}
}
