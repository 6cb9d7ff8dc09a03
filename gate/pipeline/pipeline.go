// Package pipeline is what `perfgate gate` does between loading the
// workloads and rendering the report: run every workload's first trials,
// compare with the baselines, and while gated cells stay inconclusive and
// the budget allows, run more trials for those workloads only and compare
// again. It keeps the family-wise error bound valid across the extra
// looks by declaring the number of looks up front (verdict.Look): each
// look spends Alpha/MaxLooks, whatever rule chose the extra trials.
//
// The package does no I/O of its own: trials run through the Trials
// interface (loadgen.Runner in the CLI, a fake in tests) and progress goes
// to the io.Writer it is given.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// Trials runs trials of a workload against the server under test. The
// load generator's Runner implements it.
type Trials interface {
	// Prepare waits for the server and discovers what it serves.
	Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error)
	// NewResult returns an empty result for m against srv.
	NewResult(m *workload.Manifest, srv result.Server) *result.Result
	// RunTrials appends n trials of m to res. On failure res is marked
	// incomplete and keeps what finished.
	RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error
}

// Options are the knobs of one gate run.
type Options struct {
	// Baselines are the baseline results; only cells of the manifests
	// being run are compared (a shard compares its own part).
	Baselines []*result.Result
	Policy    verdict.Policy
	// MinTrials is the number of trials of the first look per workload;
	// 0 uses each manifest's trials.min.
	MinTrials int
	// MaxTrials caps trials per workload over all looks; 0 uses each
	// manifest's trials.max. It is raised to MinTrials if smaller.
	MaxTrials int
	// Restarts is the number of server starts the first look is spread
	// over (0: the largest of the manifests' trials.restarts); Restart
	// ends the current start and opens the next (session.RunStarts). Nil
	// Restart with more than one start asked for: one session, with a
	// warning in the comparison saying what would restart it.
	Restarts int
	Restart  func() (context.Context, Trials, error)
	// Budget bounds the wall-clock time spent on extra trials; 0 means
	// no extra trials at all.
	Budget time.Duration
	// Log receives one line per step; nil discards.
	Log io.Writer
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Outcome is what a gate run produced.
type Outcome struct {
	// Results are the candidate results, one per manifest that started,
	// in manifest order.
	Results []*result.Result
	// Comparison is the last look's comparison (nil only when nothing
	// could be compared because the run failed before any result).
	Comparison *verdict.Comparison
	// RunErr is the first run failure (server unreachable or dead,
	// interrupted). The results are then partial and the gate fails.
	RunErr error
	// Looks is the number of comparisons made (for Judge, the look of
	// the comparison, counting those the results went through before);
	// ExtraTrials the trials added after the first look.
	Looks       int
	ExtraTrials int
}

// judged makes cmp the outcome's comparison, at its looks-th look, and
// records that look in every result (result.Looks), so a later `gate
// --from` or `compare` of the written files tests them at this look's
// alpha (verdict.LookOf), not at the full alpha.
func (o *Outcome) judged(cmp *verdict.Comparison, looks int) {
	o.Comparison, o.Looks = cmp, looks
	for _, r := range o.Results {
		r.Looks = &result.Looks{Index: cmp.Look.Index, Max: cmp.Look.Max}
	}
}

// Run runs the manifests and compares them with the baselines.
func Run(ctx context.Context, t Trials, manifests []*workload.Manifest, o Options) (*Outcome, error) {
	if len(manifests) == 0 {
		return nil, errors.New("no workloads to run")
	}
	if err := o.Policy.Validate(); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	// A share-of-saturation cell with a baseline rate runs a second time
	// at that rate (baserate.go).
	manifests, rateWarnings := withBaselineRate(manifests, o.Baselines)
	out := &Outcome{}
	budgets := make([]budget, len(manifests))
	canExtend := false
	for i, m := range manifests {
		budgets[i] = trialBudget(m, o)
		canExtend = canExtend || budgets[i].max > budgets[i].min
	}
	look := verdict.Look{Index: 1, Max: 1}
	if canExtend && o.Budget > 0 {
		look.Max = o.Policy.MaxLooks
	}

	// First look: every workload's minimum trials, over the server
	// starts o.Restarts asks for (starts.go).
	cost := map[string]time.Duration{} // measured wall time per trial, by cell
	ctx, t, starts, restartWarnings := firstLook(ctx, t, manifests, budgets, o, out, cost, log, now)
	rateWarnings = append(rateWarnings, restartWarnings...)
	base := selectBaselines(o.Baselines, manifests)
	judge := func(look verdict.Look, _ error) (*verdict.Comparison, error) {
		cmp, err := compareAtRates(base, out.Results, o.Policy, look, rateWarnings)
		if err != nil {
			return nil, err
		}
		out.judged(cmp, look.Index)
		return cmp, nil
	}
	// Extra looks: only workloads with an inconclusive gated cell, only
	// while the overall verdict is inconclusive (a regression or an
	// invalid comparison is final), within trials.max and the time budget.
	deadline := now().Add(o.Budget)
	extend := func(ctx context.Context, look verdict.Look, cmp *verdict.Comparison) (int, error) {
		undecided := map[string]bool{}
		for _, cell := range cmp.NeedsTrials() {
			undecided[cell] = true
		}
		remaining := look.Max - look.Index + 1
		ran := 0
		for i, m := range manifests {
			if !undecided[m.Cell] {
				continue
			}
			res := out.Results[i]
			have := len(res.Trials)
			n := extraTrials(have, budgets[i].max, remaining)
			if left := deadline.Sub(now()); n > 0 && cost[m.Cell] > 0 {
				n = min(n, int(left/cost[m.Cell]))
			}
			if n <= 0 {
				continue
			}
			// "look 2/3: trial 6 of at most 8": where the extra look stands
			// against both limits, so a CI log reader sees how far it may go.
			fmt.Fprintf(log, "%s: inconclusive: look %d/%d: trial %d of at most %d (%d more now)\n", m.Cell, look.Index, look.Max, have+1, budgets[i].max, n)
			start := now()
			err := t.RunTrials(ctx, m, res, n)
			cost[m.Cell] = perTrial(now().Sub(start), n)
			for k := have; k < len(res.Trials); k++ {
				res.Trials[k].Look = look.Index - 1
			}
			StampStart(res, have, starts, starts) // extra looks run in the last start
			out.ExtraTrials += len(res.Trials) - have
			ran++
			if err != nil {
				return ran, fmt.Errorf("%s: %w", m.Cell, err)
			}
		}
		return ran, nil
	}
	_, _, runErr, err := Looks(ctx, look.Max, out.RunErr, judge, extend)
	out.RunErr = runErr
	return out, err
}

// compareAtRates is CompareAtRates with the warnings of the run's setup
// recorded first in the comparison.
func compareAtRates(base, cand []*result.Result, p verdict.Policy, look verdict.Look, warnings []string) (*verdict.Comparison, error) {
	cmp, _, err := CompareAtRates(base, cand, p, look)
	if err != nil {
		return nil, err
	}
	cmp.Warnings = append(append([]string(nil), warnings...), cmp.Warnings...)
	return cmp, nil
}

// budget is one workload's trial counts.
type budget struct{ min, max int }

func trialBudget(m *workload.Manifest, o Options) budget {
	b := budget{min: m.Trials.Min, max: m.Trials.Max}
	if o.MinTrials > 0 {
		b.min = o.MinTrials
	}
	if o.MaxTrials > 0 {
		b.max = o.MaxTrials
	}
	if b.min < 1 {
		b.min = 1
	}
	if b.max < b.min {
		b.max = b.min
	}
	return b
}

// extraTrials spreads the trials a workload may still get over the looks
// that remain, so the last look can still add some: with 5 of 10 done and
// two looks left, 3 now and 2 later.
func extraTrials(have, max, looksLeft int) int {
	if have >= max || looksLeft < 1 {
		return 0
	}
	return int(math.Ceil(float64(max-have) / float64(looksLeft)))
}

func perTrial(d time.Duration, n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return d / time.Duration(n)
}

// selectBaselines keeps the baselines of the cells being run, so running
// a subset (a shard, a --workloads selection) does not report the rest as
// missing.
func selectBaselines(all []*result.Result, manifests []*workload.Manifest) []*result.Result {
	want := map[string]bool{}
	for _, m := range manifests {
		want[m.Cell] = true
	}
	var out []*result.Result
	for _, b := range all {
		if want[b.Workload.Cell] {
			out = append(out, b)
		}
	}
	return out
}

// Record runs trials of every manifest (n each, or the manifest's
// trials.min when n is 0) without comparing: a baseline run. It fails on
// the first run failure, since a partial run must not become a baseline.
func Record(ctx context.Context, t Trials, manifests []*workload.Manifest, n int) ([]*result.Result, error) {
	var out []*result.Result
	for _, m := range manifests {
		b := trialBudget(m, Options{MinTrials: n})
		srv, err := t.Prepare(ctx, m)
		if err != nil {
			return out, fmt.Errorf("%s: %w", m.Cell, err)
		}
		res := t.NewResult(m, srv)
		res.StartedAt = time.Now().UTC()
		if err := t.RunTrials(ctx, m, res, b.min); err != nil {
			return out, fmt.Errorf("%s: %w", m.Cell, err)
		}
		out = append(out, res)
	}
	return out, nil
}
