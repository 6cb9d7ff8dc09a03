package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/perfgate/perfgate/gate/verdict"
)

// step halves g: the midpoint against both ends, look by look, until one
// of the three outcomes holds or the step's blocks (or the search's
// budget) run out.
//
// The decision at each look, on the test scale (log ratio, worse
// positive): L is the midpoint against the low end, R the high end
// against the midpoint, each from its own paired experiment by gate/ab's
// paired verdict. A half "holds a part" of the change when its side is
// significantly worse (one-sided t test of the pairs at StepAlpha/2 over
// the step's looks, the paired verdict's own test).
//
//   - Split, when both halves hold a part and both are regressions by the
//     paired verdict at the tolerance MinShare × the ends' change: both
//     halves hold a part worth naming, and both are searched.
//   - LikeGood, when the right half holds a part and the left holds none
//     worth naming (the paired verdict passes it at that tolerance): the
//     midpoint is like the good end, and the search goes right. At the
//     step's last look the left need not pass: the side that holds a
//     part (the larger one when both do) is followed. LikeBad is the
//     mirror image. Waiting for the other side to pass, rather than
//     following the first side that turns significant, is what keeps a
//     second part of the change from being passed over.
//
// The wrong turns are the ones the bound counts: going into a half that
// holds nothing of the change (its side is significant although it is
// not worse), and a split when one half holds nothing; each is tested at
// StepAlpha/2 over the step. An improvement inside the range makes its
// side better, never significantly worse, so the search follows the
// regression past it.
func (s *searcher) step(ctx context.Context, g span, queue []span) (Step, error) {
	mid := g.lo + (g.hi-g.lo)/2
	st := Step{Lo: g.lo, Mid: mid, Hi: g.hi, Decision: Undecided}
	half := s.res.StepAlpha / 2
	split := s.splitTolerance()
	before := s.res.Blocks
	defer func() { s.stepBlocks += s.res.Blocks - before }()
	// A side is settled once it holds a part beyond the split tolerance
	// (a regression by the paired verdict, significant at the step's
	// alpha): a rejection at any look stands under the looks' Bonferroni
	// split, so later looks run only the other side, which is where a
	// step's blocks go (the side with the change turns significant early,
	// the side without it takes longer to pass). A side that passes is not
	// settled: its pass is a weak test (partPassAlpha), and more blocks may
	// still show a part there. On the seeded one-culprit search this
	// spends 294 blocks instead of 320 at the same rates; settling passed
	// sides too spent 259 but named the culprit in 97 % instead of 99.5 %.
	// The step's two experiments: the low end against the midpoint (Left)
	// and the midpoint against the high end (Right). worse: significant at
	// the last look; done: settled, as above.
	type side struct {
		p           Pair
		m           *Measure
		t, q        *float64
		worse, done bool
	}
	sides := [2]side{
		{p: Pair{g.lo, mid}, m: &st.Left, t: &st.TLeft, q: &st.QLeft},
		{p: Pair{mid, g.hi}, m: &st.Right, t: &st.TRight, q: &st.QRight},
	}
	for look := 1; look <= s.looks; look++ {
		st.Looks = look
		lk := verdict.Look{Index: look, Max: s.looks}
		t := test{tol: split, alpha: half, passAlpha: partPassAlpha, look: lk}
		blocks := blocksAt(look, s.o.Blocks, s.o.MoreBlocks, s.o.MaxBlocks)
		need := 0
		for _, sd := range sides {
			if !sd.done {
				need += max(blocks-s.spent[sd.p].Blocks, 0)
			}
		}
		if s.res.Blocks+need > s.o.Budget {
			st.Why = fmt.Sprintf("the search's budget of %d blocks is spent (%d used); the next look needs %d more", s.o.Budget, s.res.Blocks, need)
			return st, nil
		}
		for i := range sides {
			sd := &sides[i]
			if sd.done {
				continue
			}
			m, err := s.measure(ctx, sd.p, blocks, t)
			*sd.m = m
			if err != nil {
				return s.stopped(st, err)
			}
			if m.tested() {
				*sd.t, *sd.q = m.W/m.SE, verdict.TQuantile(1-half/float64(s.looks), m.DF)
				sd.worse = *sd.t > *sd.q
				sd.done = sd.worse && regression(m)
			}
		}
		left, right := sides[0].worse, sides[1].worse
		s.progress(len(s.res.Steps)+1, g.lo, g.hi, look, queue)
		for _, m := range []Measure{st.Left, st.Right} {
			if m.RunnerBusy != "" {
				s.busy = s.busyWhy(m)
				st.Why = s.busy
				return st, nil
			}
		}
		if !st.Left.tested() || !st.Right.tested() {
			continue
		}
		last := look == s.looks
		switch {
		case regression(st.Left) && regression(st.Right):
			st.Decision = Split
		case right && (noPart(st.Left) || last && (!left || st.Right.W >= st.Left.W)):
			st.Decision = LikeGood
		case left && (noPart(st.Right) || last && (!right || st.Left.W > st.Right.W)):
			st.Decision = LikeBad
		default:
			continue
		}
		return st, nil
	}
	st.Why = fmt.Sprintf("undecided at %d blocks per side (the most per experiment): the midpoint is %s against the low end and the high end %s against the midpoint; more blocks per experiment (--max-blocks) would decide it",
		s.o.MaxBlocks, pct(st.Left.Worse), pct(st.Right.Worse))
	return st, nil
}

// stopped is a step the Bench could not go on with.
func (s *searcher) stopped(st Step, err error) (Step, error) {
	if errors.Is(err, errBudget) {
		st.Why = fmt.Sprintf("the search's budget of %d blocks is spent", s.o.Budget)
		return st, nil
	}
	st.Why = "stopped: " + err.Error()
	return st, err
}

// noPart reports whether a side holds no part of the change worth naming:
// the paired verdict passes it at the split tolerance (or finds it
// better).
func noPart(m Measure) bool {
	return m.Outcome == verdict.Pass || m.Outcome == verdict.Improvement
}

// splitTolerance is the change a half must show to count as a part of
// the ends' change worth naming: MinShare of it, as a fraction.
func (s *searcher) splitTolerance() float64 {
	w := s.o.MinShare * s.res.Ends.W
	if s.res.Ends.W <= 0 {
		return 0
	}
	// Relative metrics are tested on the log scale; ratio metrics by
	// difference (W is then a fraction of points already).
	if verdict.Absolute(s.o.Metric) {
		return w
	}
	return math.Expm1(w)
}

func pct(x float64) string { return fmt.Sprintf("%+.1f %%", x) }

// partPassAlpha is the one-sided error of "this side holds no part worth
// naming" (the paired verdict's pass at the split tolerance). It is not a
// wrong-commit error (the bound does not count it): a side passed wrongly
// loses a part smaller than it looks, never names a commit without
// change. 0.25 passes an untouched side in about half the blocks 0.10
// needs (the seeded one-culprit search: 318 blocks against 369) and still
// named both of two equal parts in every seeded search.
const partPassAlpha = 0.25
