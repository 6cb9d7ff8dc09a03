package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// abLooks runs the first look's blocks and judges them; while the verdict
// is inconclusive and --max-blocks and --budget allow, it extends the
// order (ab.Extend keeps it balanced) and judges again. As in perfgate
// gate's pipeline the looks are declared up front (verdict.Look), so each
// spends its share of alpha whatever rule added the blocks. The outcome's
// Results are B's, RunErr the failure that stopped the experiment.
func abLooks(ctx context.Context, s *Streams, x *abExperiment, p *abPlan) (*pipeline.Outcome, error) {
	order, err := ab.Order(p.blocks, p.seed)
	if err != nil {
		return nil, exitf(ExitInvalid, "ab: --blocks %d: %w", p.blocks, err)
	}
	maxLooks := 1
	if p.maxBlocks > p.blocks && p.cfg.Trials.Budget > 0 {
		maxLooks = p.policy.MaxLooks
	}
	start := time.Now()
	deadline := start.Add(p.cfg.Trials.Budget)
	judge := func(look verdict.Look, runErr error) (*verdict.Comparison, error) {
		if runErr != nil {
			abStopped(x, runErr)
		}
		return abCompare(x, p, look, runErr)
	}
	// More blocks only while some gated cell is undecided and more
	// blocks can decide it (Comparison.NeedsTrials: not a resident cell
	// that the between-session term alone keeps undecided).
	extend := func(ctx context.Context, look verdict.Look, _ *verdict.Comparison) (int, error) {
		perBlock := time.Since(start) / time.Duration(len(order))
		more := ab.MoreBlocks(p.maxBlocks-len(order), look.Max-look.Index+1, perBlock, time.Until(deadline))
		if more < 2 {
			return 0, nil
		}
		fmt.Fprintf(s.Err, "ab: inconclusive: look %d/%d: %d more blocks (at most %d in all)\n", look.Index, look.Max, more, p.maxBlocks)
		have := len(order)
		var err error
		if order, err = ab.Extend(order, more, p.seed); err != nil {
			return 0, fmt.Errorf("ab: extending the order: %w", err)
		}
		x.look = look.Index - 1
		return more, x.run(ctx, order, have)
	}
	cmp, look, runErr, err := pipeline.Looks(ctx, maxLooks, x.run(ctx, order, 0), judge, extend)
	if err != nil {
		return nil, err
	}
	out := &pipeline.Outcome{Comparison: cmp, Looks: look.Index, RunErr: runErr}
	// The experiment is over: only now may a file say complete.
	if err := x.write(true); err != nil {
		return nil, err
	}
	out.Results = abNonNil(x.results[1])
	for _, rs := range x.results {
		for _, r := range abNonNil(rs) {
			for _, t := range r.Trials {
				if t.Look > 0 {
					out.ExtraTrials++
				}
			}
		}
	}
	return out, nil
}

// abStopped marks every result of the experiment incomplete when a block
// failed: half a balanced order is not a balanced order, so neither arm's
// file may pass a gate or become a baseline, whichever arm's block failed.
// A cell an arm never ran gets an incomplete result without trials, as
// perfgate gate writes for a server that never became ready, so both
// arms' directories and the report name every workload.
func abStopped(x *abExperiment, err error) {
	reason := fmt.Sprintf("the A/B experiment stopped in %v", err)
	now := time.Now().UTC()
	for i, rs := range x.results {
		for j, r := range rs {
			if r == nil {
				m := x.arms[i].manifest(x.ms[j])
				r = pipeline.ByKind{}.NewResult(m, result.Server{})
				r.Tool = result.Tool{Name: "perfgate", Version: Version}
				r.Source, r.StartedAt, r.FinishedAt = "perfgate ab", now, now
				if x.failure != nil && x.failedArm == i {
					r.Server.LogTail = x.failure.Tail
				}
				rs[j] = r
			}
			if r.Complete {
				r.Complete, r.IncompleteReason = false, reason
			}
		}
	}
	if werr := x.write(false); werr != nil {
		fmt.Fprintf(x.s.Err, "perfgate: %v\n", werr)
	}
}

// abCompare is the paired verdict of B vs A at look. The look is recorded
// in every result (as the gate's pipeline does), so a later compare of
// the written files tests them at this look's alpha. When the
// experiment failed before both arms had results the paired comparison
// has nothing to pair; the unpaired one then reports every cell as not
// compared, for a report that says what happened.
func abCompare(x *abExperiment, p *abPlan, look verdict.Look, runErr error) (*verdict.Comparison, error) {
	a, b := abNonNil(x.results[0]), abNonNil(x.results[1])
	for _, rs := range [][]*result.Result{a, b} {
		for _, r := range rs {
			r.Looks = &result.Looks{Index: look.Index, Max: look.Max}
		}
	}
	cmp, err := ab.Compare(a, b, ab.Options{Policy: p.policy, Look: look, Resident: p.resident})
	if err != nil && runErr != nil {
		cmp, err = verdict.Compare(a, b, p.policy, look)
	}
	if err != nil {
		return nil, exitf(ExitInvalid, "ab: %w", err)
	}
	if werr := x.write(false); werr != nil {
		return nil, werr
	}
	return cmp, nil
}

func abNonNil(rs []*result.Result) []*result.Result {
	var out []*result.Result
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}
