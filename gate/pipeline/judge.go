package pipeline

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// Judge is the judging step of `perfgate gate --from`: it compares
// candidate results measured earlier (a merged shard directory, read by
// the caller) with the baselines, without running anything. When
// manifests are given, only their cells' baselines are compared, as Run
// does for the cells it runs.
//
// The comparison is made at the look the results were last judged at
// (verdict.LookOf over result.Looks and the trials' looks): results of a
// gate that took extra looks were tested at alpha / looks there, and
// re-judging them at the full alpha would let a verdict flip from
// inconclusive to regression on the same files. The baseline side of a
// comparison at the baseline's absolute rate is built from the share
// cell's baseline as Run builds it (WithBaselineRate). Like Run, it records the
// look in every result it is given. An incomplete result is a failed run
// (Outcome.RunErr), which never passes.
func Judge(candidates, baselines []*result.Result, manifests []*workload.Manifest, p verdict.Policy) (*Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	base := baselines
	if len(manifests) > 0 {
		base = selectBaselines(baselines, manifests)
	}
	look := verdict.LookOf(candidates, p)
	cmp, err := compareAtRates(base, candidates, p, look, nil)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Results: candidates}
	out.judged(cmp, look.Index)
	for _, r := range candidates {
		for _, t := range r.Trials {
			if t.Look > 0 {
				out.ExtraTrials++
			}
		}
		if !r.Complete && out.RunErr == nil {
			out.RunErr = fmt.Errorf("%s: incomplete run: %s", r.Workload.Cell, r.IncompleteReason)
		}
	}
	return out, nil
}
