package bisect

import "github.com/perfgate/perfgate/gate/verdict"

// Schema identifies the JSON form of a Result.
const Schema = "perfgate.bisect/v1"

// Status is how a search ended.
type Status string

const (
	// Found: at least one culprit is named.
	Found Status = "found"
	// NoDifference: the ends do not differ now (by less than the
	// tolerance, with confidence), so there is nothing to search: the
	// step the history saw was noise, or the runner changed since.
	NoDifference Status = "no-difference"
	// Improved: the bad end is better than the good one.
	Improved Status = "improved"
	// NotFound: the budget (or an experiment's most blocks) ran out
	// before the search named a commit; Open says where it stood.
	NotFound Status = "not-found"
	// Interrupted: a run could not go on (interrupt, failed build or
	// server); everything measured is kept by the Bench, and a rerun
	// continues from it.
	Interrupted Status = "interrupted"
)

// Decision is a step's outcome.
type Decision string

const (
	// LikeGood: the midpoint is like the good end; the change lies
	// between the midpoint and the bad end.
	LikeGood Decision = "like-good"
	// LikeBad: the midpoint is like the bad end; the change lies between
	// the good end and the midpoint.
	LikeBad Decision = "like-bad"
	// Split: both halves hold a significant part of the change; both are
	// searched.
	Split Decision = "split"
	// Undecided: the step ran out of blocks or budget, or one of its
	// experiments was measured on a busy runner (Why says which).
	Undecided Decision = "undecided"
)

// Step is one step of the search: the midpoint Mid of the range Lo..Hi
// (the change lies in commits Lo+1..Hi) against both ends.
type Step struct {
	Lo  int `json:"lo"`
	Mid int `json:"mid"`
	Hi  int `json:"hi"`
	// Left is Mid against Lo, Right is Hi against Mid.
	Left  Measure `json:"left"`
	Right Measure `json:"right"`
	// TLeft and TRight are each side's t statistic (worse positive) at
	// the last look, QLeft and QRight the quantiles they were held
	// against: a side above its quantile holds a part of the change.
	TLeft  float64 `json:"t_left"`
	TRight float64 `json:"t_right"`
	QLeft  float64 `json:"q_left"`
	QRight float64 `json:"q_right"`
	// Looks is the looks the step took.
	Looks    int      `json:"looks"`
	Decision Decision `json:"decision"`
	Why      string   `json:"why,omitempty"`
}

// Culprit is a named commit: the experiment of it against its parent,
// and its share of the ends' change.
type Culprit struct {
	Index  int     `json:"index"`
	Commit Commit  `json:"commit"`
	Effect Measure `json:"effect"`
	// Share is the culprit's change over the ends' change (on the test
	// scale), ShareLow and ShareHigh its bounds from Effect's interval
	// (at Level).
	Share     float64 `json:"share"`
	ShareLow  float64 `json:"share_low"`
	ShareHigh float64 `json:"share_high"`
}

// Range is a part of the search left undecided: the change (or part of
// it) lies in commits Lo+1..Hi.
type Range struct {
	Lo  int    `json:"lo"`
	Hi  int    `json:"hi"`
	Why string `json:"why"`
}

// Result is a finished (or stopped) search.
type Result struct {
	Schema  string   `json:"schema"`
	Metric  string   `json:"metric"`
	Commits []Commit `json:"commits"`
	Status  Status   `json:"status"`
	// Message says in one sentence what the search found, and when it
	// found nothing what would decide it.
	Message  string    `json:"message"`
	Ends     *Measure  `json:"ends,omitempty"`
	Steps    []Step    `json:"steps"`
	Culprits []Culprit `json:"culprits"`
	Open     []Range   `json:"open,omitempty"`
	// Blocks and GPUSeconds are what the search spent (every experiment
	// it judged, cached ones included).
	Blocks     int     `json:"blocks"`
	GPUSeconds float64 `json:"gpu_seconds"`
	// Alpha is the bound on naming a wrong commit, StepAlpha each
	// decision's share of it, MaxSteps the decisions on the path to one
	// culprit it is divided over (the ends and ceil(log2 N) steps).
	Alpha     float64 `json:"alpha"`
	StepAlpha float64 `json:"step_alpha"`
	MaxSteps  int     `json:"max_steps"`
	// Tolerance is the ends' "no difference" margin, MinShare the share a
	// part needs to split a step, both fractions.
	Tolerance float64 `json:"tolerance"`
	MinShare  float64 `json:"min_share"`
	// Blocks per experiment: first look, per further look, most; the
	// search's budget.
	FirstBlocks int      `json:"first_blocks"`
	MoreBlocks  int      `json:"more_blocks"`
	MaxBlocks   int      `json:"max_blocks"`
	Budget      int      `json:"budget"`
	Warnings    []string `json:"warnings,omitempty"`
}

// regression reports whether the paired verdict calls m a regression.
func regression(m Measure) bool { return m.Outcome == verdict.Regression }
