package bisect

import "math"

// MaxSteps is the number of decisions on the path to one culprit among
// n candidate commits (the commits after the good end, the bad end
// included): the ends' test and ceil(log2 n) halvings.
func MaxSteps(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 + int(math.Ceil(math.Log2(float64(n))))
}

// StepAlpha is each decision's share of the search's bound alpha on naming
// a wrong commit among n candidates: alpha / MaxSteps(n).
//
// Why this bounds the search: a wrong commit is named only when some
// decision on the path to it was wrong, that is the ends were called
// different when they are not, or a step sent the search to the half
// without the change. Each of these is tested at StepAlpha in all (the
// looks of a step share it, Bonferroni: a look is tested at
// StepAlpha/looks), so by the union bound over the MaxSteps decisions the
// chance of any wrong one is at most alpha. Within a step the two wrong
// turns (the wrong half, and a split when one half holds nothing) get half
// of StepAlpha each. The bound is conservative: for a change of several
// noise widths the wrong turns are far rarer than alpha (the seeded tests
// measure it). A split searches both halves, each part on its own path
// with its own decisions at the same StepAlpha, so a search that names k
// parts is bounded by k·alpha.
func StepAlpha(n int, alpha float64) float64 {
	return alpha / float64(MaxSteps(n))
}

// looksOf is the number of looks of an experiment that starts with first
// blocks, adds more per look and stops at most.
func looksOf(first, more, most int) int {
	if most <= first || more <= 0 {
		return 1
	}
	return 1 + (most-first+more-1)/more
}

// blocksAt is the experiment's blocks at look i (1-based).
func blocksAt(i, first, more, most int) int {
	return min(first+(i-1)*more, max(most, first))
}
