// Package bisect finds the commit that made a metric worse: a search over
// an ordered list of commits, from a good end to a bad end, in which every
// step compares a midpoint with the range's two ends by interleaved
// blocks and gate/ab's paired verdict.
//
// A naive `git bisect run` over one benchmark run per commit walks to a
// wrong commit whenever one run lands on the wrong side of the midpoint
// between the ends, and with a per-start offset of a few percent that
// happens at most steps of a five-percent change (docs/bisect.md gives the
// seeded rates). Here each step runs two paired experiments, the midpoint
// against the good end (left) and the bad end against the midpoint
// (right), and decides with three outcomes: like good (the change lies to
// the right), like bad (to the left), undecided (more blocks, up to a
// budget). A step whose two sides both hold a significant part of the
// change splits the search, so a change spread over two commits names
// both with their share. Every decision is tested at a per-step alpha
// chosen so that the union over the search's decisions bounds its chance
// of naming a wrong commit (see StepAlpha).
//
// The package is pure: running blocks is whatever the Bench it is given
// does (gate/cli launches a build of each commit; the seeded tests draw
// from a model).
package bisect

import (
	"context"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// Commit is one commit of the range, oldest first.
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject,omitempty"`
	Author  string `json:"author,omitempty"`
}

// Pair is one paired experiment: commit A (arm A) against commit B (arm
// B), as indexes into the search's commits.
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Bench runs the blocks of paired experiments.
type Bench interface {
	// Run extends the experiment of p to at least blocks blocks, in the
	// balanced order ab.Order(blocks, seed) (extended by ab.Extend, so
	// the first blocks of a longer order are the shorter one's), and
	// returns both arms' results: every workload cell, every block run
	// so far. A Bench that already holds more blocks of p (a rerun of
	// a search, from its cache) may return them all; the search uses
	// the first blocks of them, so a rerun takes the same decisions.
	// The error is for a run that could not go on (a build or server
	// that failed, an interrupt); what was measured stays with the
	// Bench.
	Run(ctx context.Context, p Pair, blocks int) (a, b []*result.Result, err error)
}

// Defaults of Options.
const (
	// DefaultAlpha bounds the search's chance of naming a wrong commit.
	DefaultAlpha = 0.05
	// DefaultMinShare is the smallest share of the step that a part
	// must hold to be searched for on its own when a step splits.
	DefaultMinShare = 0.25
	// DefaultBlocks, DefaultMoreBlocks and DefaultMaxBlocks are each
	// experiment's blocks at its first look, the blocks each further
	// look adds while a step is undecided, and its most blocks.
	DefaultBlocks     = 16
	DefaultMoreBlocks = 8
	DefaultMaxBlocks  = 48
	// DefaultBudget is the most blocks of a whole search.
	DefaultBudget = 800
)

// Options are the knobs of a search.
type Options struct {
	// Metric is the metric id searched for (tpot_ms.p50); its direction
	// says which way is worse.
	Metric string
	// Policy is the base policy (hard keys, noise floors, outlier rule);
	// the search replaces its rules, alpha, pass alpha and looks for each
	// test it makes. Zero: verdict.DefaultPolicy().
	Policy verdict.Policy
	// Tolerance is the change between the ends below which they "do not
	// differ" (a fraction, 0.03 = 3 %). Zero: the metric's default
	// tolerance (verdict.DefaultTolerance).
	Tolerance float64
	// Alpha bounds the chance that the search names a wrong commit.
	Alpha float64
	// MinShare is the smallest share of the ends' change a part must hold
	// for a step to split the search into both halves.
	MinShare float64
	// Blocks, MoreBlocks and MaxBlocks shape each experiment's looks.
	Blocks, MoreBlocks, MaxBlocks int
	// Budget is the most blocks of the whole search; a step that would
	// go beyond it ends the search undecided.
	Budget int
	// Progress, when set, is told after every look.
	Progress func(Progress)
}

// Progress is where a search stands after a look.
type Progress struct {
	// Step is the number of steps taken so far (the ends are step 0).
	Step int
	// Lo and Hi bound the range being searched: the change lies in
	// commits Lo+1..Hi.
	Lo, Hi int
	// Look is the look within the step, Blocks the blocks of the whole
	// search so far, GPUSeconds their server time.
	Look, Blocks int
	GPUSeconds   float64
	// ETASeconds is the server time the rest of the search is expected
	// to take, at the blocks per step and the seconds per block measured
	// so far; StepsLeft the steps it expects.
	ETASeconds float64
	StepsLeft  int
}

func (o Options) withDefaults() Options {
	if o.Policy.Alpha == 0 {
		o.Policy = verdict.DefaultPolicy()
	}
	if o.Tolerance == 0 {
		o.Tolerance = verdict.DefaultTolerance(o.Metric)
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.MinShare == 0 {
		o.MinShare = DefaultMinShare
	}
	if o.Blocks == 0 {
		o.Blocks = DefaultBlocks
	}
	if o.MoreBlocks == 0 {
		o.MoreBlocks = DefaultMoreBlocks
	}
	if o.MaxBlocks == 0 {
		o.MaxBlocks = max(DefaultMaxBlocks, o.Blocks)
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	return o
}
