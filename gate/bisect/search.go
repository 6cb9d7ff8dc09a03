package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/verdict"
)

// errBudget stops a step whose next look would spend more than the
// search's budget.
var errBudget = errors.New("budget spent")

// searcher is a search in progress.
type searcher struct {
	o       Options
	commits []Commit
	bench   Bench
	res     *Result
	looks   int
	// spent is, per experiment, the blocks judged and their server time.
	spent map[Pair]Measure
	// stepBlocks is the blocks the steps (not the ends) spent.
	stepBlocks int
	// busy is why the search stopped on a busy runner (busyWhy), empty
	// unless it did.
	busy string
}

// Search looks for the commit(s) that made o.Metric worse among commits
// (oldest first: commits[0] is the good end, the last the bad end). It
// first tests the ends; when they differ it halves the range step by step
// (see the package comment) until every part of the change is pinned to
// one commit or the budget is spent. The error is for invalid options and
// for a Bench that could not go on; the Result is returned in every case
// with what was decided so far (Status Interrupted when the Bench
// failed).
func Search(ctx context.Context, commits []Commit, bench Bench, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(len(commits)); err != nil {
		return nil, err
	}
	n := len(commits) - 1
	s := &searcher{o: o, commits: commits, bench: bench, spent: map[Pair]Measure{},
		looks: looksOf(o.Blocks, o.MoreBlocks, o.MaxBlocks)}
	s.res = &Result{Schema: Schema, Metric: o.Metric, Commits: commits, Steps: []Step{}, Culprits: []Culprit{},
		Alpha: o.Alpha, StepAlpha: StepAlpha(n, o.Alpha), MaxSteps: MaxSteps(n), Tolerance: o.Tolerance, MinShare: o.MinShare,
		FirstBlocks: o.Blocks, MoreBlocks: o.MoreBlocks, MaxBlocks: o.MaxBlocks, Budget: o.Budget}
	err := s.run(ctx)
	s.finish(err)
	return s.res, err
}

// Validate checks o, with its defaults filled in, for a search over
// commits commits (both ends included).
func (o Options) Validate(commits int) error { return o.withDefaults().validate(commits) }

func (o Options) validate(commits int) error {
	var errs []error
	if commits < 2 {
		errs = append(errs, fmt.Errorf("%d commit(s): a search needs a good and a bad end", commits))
	}
	if _, ok := metrics.Lookup(o.Metric); !ok {
		errs = append(errs, fmt.Errorf("metric %q: unknown (perfgate metrics lists them)", o.Metric))
	} else if metrics.MustLookup(o.Metric).Direction == metrics.Informational {
		errs = append(errs, fmt.Errorf("metric %q is informational: it has no worse direction to search for", o.Metric))
	}
	if o.Alpha <= 0 || o.Alpha >= 0.5 {
		errs = append(errs, fmt.Errorf("alpha %v: must be in (0, 0.5)", o.Alpha))
	}
	if o.MinShare <= 0 || o.MinShare >= 1 {
		errs = append(errs, fmt.Errorf("min share %v: must be in (0, 1)", o.MinShare))
	}
	if o.Tolerance < 0 {
		errs = append(errs, fmt.Errorf("tolerance %v: must not be negative", o.Tolerance))
	}
	for _, b := range []struct {
		name string
		v    int
	}{{"blocks", o.Blocks}, {"more blocks", o.MoreBlocks}, {"max blocks", o.MaxBlocks}} {
		if b.v < 2 || b.v%2 != 0 {
			errs = append(errs, fmt.Errorf("%s %d: want an even number of at least 2", b.name, b.v))
		}
	}
	if o.MaxBlocks < o.Blocks {
		errs = append(errs, fmt.Errorf("max blocks %d: below the %d blocks of the first look", o.MaxBlocks, o.Blocks))
	}
	if o.Budget < 2*o.Blocks {
		errs = append(errs, fmt.Errorf("budget %d blocks: below one step's first look (%d)", o.Budget, 2*o.Blocks))
	}
	return errors.Join(errs...)
}

// span is a range still to search, with the experiment of its ends.
type span struct {
	lo, hi int
	ends   Measure
}

func (s *searcher) run(ctx context.Context) error {
	n := len(s.commits) - 1
	ends, decided, err := s.endsTest(ctx)
	if err != nil || !decided {
		return err
	}
	s.res.Ends = &ends
	queue := []span{{0, n, ends}}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for g.hi-g.lo > 1 {
			st, err := s.step(ctx, g, queue)
			s.res.Steps = append(s.res.Steps, st)
			if err != nil || s.busy != "" {
				// A failed Bench or a busy runner stops the search: the
				// rest would be measured on the same runner.
				s.open(g, st.Why)
				for _, q := range queue {
					s.open(q, "not searched: "+st.Why)
				}
				return err
			}
			switch st.Decision {
			case LikeGood:
				g = span{st.Mid, g.hi, st.Right}
			case LikeBad:
				g = span{g.lo, st.Mid, st.Left}
			case Split:
				queue = append(queue, span{st.Mid, g.hi, st.Right})
				g = span{g.lo, st.Mid, st.Left}
			default:
				s.open(g, st.Why)
				g = span{}
			}
		}
		if g.hi-g.lo == 1 {
			s.name(g)
		}
	}
	return nil
}

// open records a range left undecided.
func (s *searcher) open(g span, why string) {
	if g.hi > g.lo {
		s.res.Open = append(s.res.Open, Range{Lo: g.lo, Hi: g.hi, Why: why})
	}
}

// name records the culprit of a range of one commit.
func (s *searcher) name(g span) {
	e := g.ends
	c := Culprit{Index: g.hi, Commit: s.commits[g.hi], Effect: e}
	if total := s.res.Ends.W; total > 0 {
		c.Share = e.W / total
		q := 0.0
		if e.tested() {
			q = verdict.TQuantile(1-(1-Level)/2, e.DF)
		}
		c.ShareLow, c.ShareHigh = (e.W-q*e.SE)/total, (e.W+q*e.SE)/total
	}
	s.res.Culprits = append(s.res.Culprits, c)
}

// endsTest is the first experiment: the bad end against the good one at
// the tolerance. decided is false when the search ends with it (no
// difference, improved, undecided).
func (s *searcher) endsTest(ctx context.Context) (Measure, bool, error) {
	p := Pair{A: 0, B: len(s.commits) - 1}
	var m Measure
	for look := 1; look <= s.looks; look++ {
		t := test{tol: s.o.Tolerance, alpha: s.res.StepAlpha, passAlpha: s.o.Alpha / float64(s.looks),
			look: verdict.Look{Index: look, Max: s.looks}}
		var err error
		m, err = s.measure(ctx, p, blocksAt(look, s.o.Blocks, s.o.MoreBlocks, s.o.MaxBlocks), t)
		s.res.Ends = &m
		if err != nil {
			if errors.Is(err, errBudget) {
				return m, false, nil
			}
			return m, false, err
		}
		s.progress(0, p.A, p.B, look, nil)
		if m.RunnerBusy != "" {
			s.busy = s.busyWhy(m)
			return m, false, nil
		}
		switch m.Outcome {
		case verdict.Regression:
			return m, true, nil
		case verdict.Pass, verdict.Improvement:
			return m, false, nil
		}
	}
	return m, false, nil
}

// measure runs pair p to blocks blocks and judges them under t, counting
// what the search spent. A look that would take the search past its
// budget is not run (errBudget).
func (s *searcher) measure(ctx context.Context, p Pair, blocks int, t test) (Measure, error) {
	if more := blocks - s.spent[p].Blocks; s.res.Blocks+more > s.o.Budget {
		return s.spent[p], errBudget
	}
	a, b, err := s.bench.Run(ctx, p, blocks)
	if err != nil {
		return s.spent[p], err
	}
	if got := min(blocksOf(a), blocksOf(b)); got < blocks {
		return s.spent[p], fmt.Errorf("commits %s and %s: the bench returned %d blocks, %d were asked for", short(s.commits[p.A].SHA), short(s.commits[p.B].SHA), got, blocks)
	}
	m, err := judge(a, b, blocks, s.o.Metric, s.o.Policy, t)
	if err != nil {
		return m, fmt.Errorf("commits %s and %s: %w", short(s.commits[p.A].SHA), short(s.commits[p.B].SHA), err)
	}
	m.Pair = p
	old := s.spent[p]
	s.res.Blocks += m.Blocks - old.Blocks
	s.res.GPUSeconds += m.GPUSeconds - old.GPUSeconds
	s.spent[p] = m
	return m, nil
}

// short is a commit id as the messages show it.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// progress tells the caller where the search stands, with its ETA: the
// steps the open ranges still need at the blocks per step and the server
// seconds per block measured so far.
func (s *searcher) progress(step, lo, hi, look int, queue []span) {
	if s.o.Progress == nil {
		return
	}
	left := stepsFor(hi - lo)
	for _, q := range queue {
		left += stepsFor(q.hi - q.lo)
	}
	perStep := float64(2 * s.o.Blocks)
	if steps := len(s.res.Steps); steps > 0 && s.stepBlocks > 0 {
		perStep = float64(s.stepBlocks) / float64(steps)
	}
	perBlock := 0.0
	if s.res.Blocks > 0 {
		perBlock = s.res.GPUSeconds / float64(s.res.Blocks)
	}
	s.o.Progress(Progress{Step: step, Lo: lo, Hi: hi, Look: look, Blocks: s.res.Blocks, GPUSeconds: s.res.GPUSeconds,
		StepsLeft: left, ETASeconds: float64(left) * perStep * perBlock})
}

// stepsFor is the halvings a range of n commits needs.
func stepsFor(n int) int {
	if n <= 1 {
		return 0
	}
	return int(math.Ceil(math.Log2(float64(n))))
}
