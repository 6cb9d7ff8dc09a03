package bisect

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/verdict"
)

// finish sets the search's status and its one-sentence message: what was
// found, or why nothing was and what would decide it.
func (s *searcher) finish(err error) {
	r := s.res
	tol := fmt.Sprintf("%.1f %%", 100*s.o.Tolerance)
	switch {
	case err != nil:
		r.Status = Interrupted
		r.Message = fmt.Sprintf("the search stopped: %v; everything measured is kept: fix what stopped it (or let an interrupted run go on) and run the same command again to continue from there", err)
	case len(r.Culprits) > 0:
		r.Status = Found
		var names []string
		for _, c := range r.Culprits {
			names = append(names, fmt.Sprintf("%s (%s, %.0f %% of the step)", short(c.Commit.SHA), pct(c.Effect.Worse), 100*c.Share))
		}
		r.Message = fmt.Sprintf("%s made %s worse", strings.Join(names, " and "), s.o.Metric)
		if len(r.Open) > 0 {
			r.Message += fmt.Sprintf("; %d part(s) of the range stayed undecided (see open)", len(r.Open))
		}
	case s.busy != "":
		r.Status = NotFound
		r.Message = "no commit named: " + s.busy
	case r.Ends == nil || r.Ends.Blocks == 0:
		r.Status = NotFound
		r.Message = fmt.Sprintf("nothing was measured: the budget of %d blocks does not hold the ends' first look", s.o.Budget)
	case r.Ends.Outcome == verdict.Pass:
		r.Status = NoDifference
		r.Message = fmt.Sprintf("the ends do not differ now: the bad end is %s against the good one [%s, %s], within the tolerance %s, so there is nothing to search: the step was noise, or the runner changed since it was seen",
			pct(r.Ends.Worse), pct(r.Ends.Low), pct(r.Ends.High), tol)
	case r.Ends.Outcome == verdict.Improvement:
		r.Status = Improved
		r.Message = fmt.Sprintf("the bad end is better than the good one (%s [%s, %s]): there is no regression of %s to search for; check the order of --good and --bad",
			pct(r.Ends.Worse), pct(r.Ends.Low), pct(r.Ends.High), s.o.Metric)
	case len(r.Steps) == 0:
		r.Status = NotFound
		r.Message = fmt.Sprintf("the ends are undecided at %d blocks: the bad end is %s against the good one [%s, %s] at the tolerance %s; more blocks per experiment (--max-blocks) or a larger tolerance would decide it",
			r.Ends.Blocks, pct(r.Ends.Worse), pct(r.Ends.Low), pct(r.Ends.High), tol)
	default:
		r.Status = NotFound
		why := ""
		if len(r.Open) > 0 {
			o := r.Open[0]
			why = fmt.Sprintf(": the change lies in %s..%s (%d commits); %s", short(s.commits[o.Lo+1].SHA), short(s.commits[o.Hi].SHA), o.Hi-o.Lo, o.Why)
		}
		r.Message = "no commit named within the budget" + why
	}
	for _, c := range r.Culprits {
		if c.Effect.tested() && c.Effect.Low <= 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: its own change %s [%s, %s] is not significant by itself; the halving steps placed the change there, and a longer experiment of it against its parent would confirm it",
				short(c.Commit.SHA), pct(c.Effect.Worse), pct(c.Effect.Low), pct(c.Effect.High)))
		}
	}
	if r.Status == Found && len(r.Culprits) == 1 && r.Culprits[0].ShareHigh < 1-s.o.MinShare {
		c := r.Culprits[0]
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s explains %.0f %% of the step (at most %.0f %%): the rest is spread over commits too small to name one by one at min share %.0f %%",
			short(c.Commit.SHA), 100*c.Share, 100*c.ShareHigh, 100*s.o.MinShare))
	}
}
