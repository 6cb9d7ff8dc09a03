// Package verdict decides, from the trials of a baseline and a candidate,
// whether each gated (workload cell, metric) regressed, passed, improved or
// could not be decided, and what that means for the whole gate run.
//
// It is pure: it reads result.Result values it is given and returns a
// Comparison; it does no I/O. docs/statistics.md is the specification of
// the method; the comparison's JSON encoding is the contract that reports
// and PR comments are rendered from, so its field names are stable.
//
// Sign convention used throughout: Worse, CILow, CIHigh, Tolerance and MDE
// are direction-adjusted, so a positive number is always "worse" (slower
// latency, lower throughput, lower success rate) and a negative number is
// always "better". Change keeps the natural sign of candidate vs baseline.
// Relative metrics are in percent; absolute metrics (ratios such as
// success_rate, see Cell.Absolute) are in percentage points.
package verdict

import (
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// SchemaID identifies the JSON encoding of Comparison.
// v2 added the two-level noise model: moderated (empirical-Bayes) within-
// session noise, the between-session term, several-session baselines,
// outlier trials, and the per-cell pass tolerance, pass chance and limit.
// Every v1 field is still written with its v1 meaning, except that
// Noise.Excluded stays empty (no cell is kept out of a prior any more) and
// CellNoise.Source has new values.
const SchemaID = "perfgate.comparison/v2"

// Outcome is the decision for one cell, or for the whole comparison.
type Outcome string

const (
	// Pass: the worse end of the confidence interval is inside the
	// tolerance (or, overall: every gated cell passed or improved).
	Pass Outcome = "pass"
	// Regression: significantly worse after family-wise correction, and the
	// estimate exceeds the tolerance.
	Regression Outcome = "regression"
	// Improvement: the mirror image of Regression. Overall, improvements
	// count as a pass.
	Improvement Outcome = "improvement"
	// Inconclusive: neither; more trials may decide it.
	Inconclusive Outcome = "inconclusive"
	// Invalid is only an overall verdict: some workload could not be
	// compared (missing baseline, workload changed, fingerprint mismatch,
	// incomplete run) and the policy does not allow skipping it.
	Invalid Outcome = "invalid"
)

// Status says whether and why a workload cell was (not) compared.
type Status string

const (
	// Compared: both arms present, same workload hash, comparable
	// environment; the cell's metrics are in Comparison.Cells.
	Compared Status = "compared"
	// MissingBaseline: the candidate has a cell the baseline lacks.
	MissingBaseline Status = "missing-baseline"
	// MissingCandidate: the baseline has a cell the candidate lacks.
	MissingCandidate Status = "missing-candidate"
	// WorkloadChanged: the workload hashes differ, so the numbers measure
	// different things ("workload changed since the baseline; re-baseline").
	WorkloadChanged Status = "workload-changed"
	// FingerprintMismatch: a hard fingerprint key (Policy.HardKeys)
	// differs, e.g. another GPU model.
	FingerprintMismatch Status = "fingerprint-mismatch"
	// IncompleteRun: an arm's run stopped early; it is never judged.
	IncompleteRun Status = "incomplete-run"
	// NoValidTrials: an arm has no valid trial, or the share of invalid
	// trials exceeds Policy.MaxInvalidShare.
	NoValidTrials Status = "no-valid-trials"
)

// Look says which look of an adaptive gate run a comparison is. perfgate
// gate compares, adds trials to inconclusive workloads, and compares again,
// up to Max looks; each look tests regressions at Alpha/Max so that the
// chance of any false regression over all looks stays at most Alpha
// whatever the rule for adding trials (see docs/statistics.md). A single
// `perfgate compare` is Look{Index: 1, Max: 1}.
type Look struct {
	Index int `json:"index"` // 1-based
	Max   int `json:"max"`
}

// Comparison is the complete result of comparing a candidate run with its
// baseline: the verdict, every workload's status and every cell.
type Comparison struct {
	Schema string `json:"schema"`
	// Verdict: regression if any gated cell regressed; else invalid if a
	// workload could not be compared and the policy does not allow it;
	// else inconclusive if any gated cell is inconclusive; else pass.
	Verdict Outcome `json:"verdict"`
	// Headline is the most significant gated regression (smallest adjusted
	// p-value), or when there is none the most worrying inconclusive gated
	// cell; nil when every gated cell passed or improved. A copy of the
	// entry in Cells.
	Headline *Cell `json:"headline,omitempty"`
	// Alpha is the family-wise false-regression rate over all looks;
	// LookAlpha the part of it spent on this look.
	Alpha     float64 `json:"alpha"`
	LookAlpha float64 `json:"look_alpha"`
	Look      Look    `json:"look"`
	// Family is the number of gated cells in the Holm family.
	Family int `json:"family"`
	// Counts of gated cells by outcome.
	Regressions   int `json:"regressions"`
	Improvements  int `json:"improvements"`
	Inconclusives int `json:"inconclusives"`
	Passes        int `json:"passes"`
	// Workloads lists every workload cell of either arm, sorted by name.
	Workloads []Workload `json:"workloads"`
	// Cells holds every compared (workload, metric), gated ones first in
	// the order regressions, inconclusive, improvements, passes, then
	// ungated ones; within a group by workload then metric report order.
	Cells []Cell `json:"cells"`
	// Noise describes the per-metric pooled noise estimates.
	Noise []Noise `json:"noise"`
	// Warnings are caveats about the comparison as a whole.
	Warnings []string `json:"warnings,omitempty"`
	// Policy is the policy the comparison ran under (after defaults).
	Policy Policy `json:"policy"`
	// AB is set when this is the paired verdict of an interleaved A/B
	// experiment (`perfgate ab`, package gate/ab): the baseline side is arm
	// A, the candidate side arm B.
	AB *Paired `json:"ab,omitempty"`
	// Explanation, when set, says where the regressed workloads' time
	// went (gate/explain). Additive: it has its own schema version and
	// the verdict never depends on it.
	Explanation *Explanation `json:"explanation,omitempty"`
}

// Workload is the status of one workload cell.
type Workload struct {
	Cell    string `json:"cell"`
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	// Allowed is true when a non-compared status is tolerated by the
	// policy (AllowMissing, AllowMismatch) and does not make the verdict
	// invalid. A fingerprint mismatch that is allowed is still compared.
	Allowed       bool   `json:"allowed,omitempty"`
	BaselineHash  string `json:"baseline_hash,omitempty"`
	CandidateHash string `json:"candidate_hash,omitempty"`
	// BaselineTrials and CandidateTrials count valid trials.
	BaselineTrials  int `json:"baseline_trials"`
	CandidateTrials int `json:"candidate_trials"`
	// BaselineSessions is the number of baseline results (server
	// sessions) of a several-session baseline; 0 for one.
	BaselineSessions int `json:"baseline_sessions,omitempty"`
	// Excluded lists the invalid trials left out, with their reasons.
	Excluded []Excluded `json:"excluded,omitempty"`
	// Fingerprint lists every fingerprint key whose value differs.
	Fingerprint []FingerprintDiff `json:"fingerprint,omitempty"`
	// Provenance of the baseline, when it is a promoted baseline file.
	Provenance *result.Provenance `json:"provenance,omitempty"`
	// BaselineAgeDays is the time between the baseline's promotion (or
	// start) and the candidate's start, in days; 0 when unknown.
	BaselineAgeDays float64 `json:"baseline_age_days,omitempty"`
	// Substitutions lists the gated statistics neither arm carries and the
	// statistics gated in their place (docs/statistics.md, "Missing
	// statistics").
	Substitutions []Substitution `json:"substitutions,omitempty"`
	Warnings      []string       `json:"warnings,omitempty"`
}

// Excluded is an invalid trial left out of the comparison.
type Excluded struct {
	Arm string `json:"arm"` // "baseline" or "candidate"
	// Session is the 1-based baseline session of a several-session
	// baseline; 0 otherwise.
	Session int    `json:"session,omitempty"`
	Trial   int    `json:"trial"`
	Reason  string `json:"reason"`
}

// FingerprintDiff is one fingerprint key that differs between the arms
// (result.DiffFingerprints). An empty value means the key is absent on
// that side.
type FingerprintDiff = result.FingerprintDiff

// Arm summarises one side of a cell: the metric's value in each valid trial.
type Arm struct {
	N      int       `json:"n"`
	Values []float64 `json:"values"`
	// Centre is the geometric mean for relative metrics (the centre the
	// log-scale test compares) and the arithmetic mean for absolute ones.
	Centre float64 `json:"centre"`
	Median float64 `json:"median"`
	// CV is the arm's own coefficient of variation (relative metrics) or
	// standard deviation (absolute metrics); 0 with fewer than 2 trials.
	CV float64 `json:"cv"`
	// Sessions is the number of server sessions of a several-session
	// baseline (whose Centre is then the mean of its session means); 0 for
	// one session.
	Sessions int `json:"sessions,omitempty"`
}

// Cell is the comparison of one metric of one workload cell.
type Cell struct {
	Workload  string `json:"workload"`
	Metric    string `json:"metric"`
	Label     string `json:"label"`
	Unit      string `json:"unit"`
	Direction string `json:"direction"`
	Gated     bool   `json:"gated"`
	// Substitutes names the gated statistic this cell stands in for
	// because neither arm carries it (e.g. "ttft_ms.p99" on a
	// ttft_ms.p95 cell); empty for a cell gated in its own right.
	Substitutes string `json:"substitutes,omitempty"`
	// Absolute is true for ratio metrics compared by difference
	// (percentage points) rather than by ratio (percent).
	Absolute bool `json:"absolute"`
	// Baseline and Candidate are the arms. A gated metric only one arm
	// carries gives a cell with an empty arm (N 0), untested and
	// inconclusive.
	Baseline  Arm `json:"baseline"`
	Candidate Arm `json:"candidate"`
	// Change is candidate vs baseline with its natural sign: percent
	// (Centre ratio - 1) for relative metrics, points for absolute ones.
	Change float64 `json:"change"`
	// Worse is Change direction-adjusted: positive means worse.
	Worse float64 `json:"worse"`
	// CILow and CIHigh bound Worse at confidence CILevel (two-sided, so
	// CIHigh is the one-sided 1-(1-CILevel)/2 upper bound the pass rule
	// uses).
	CILow   float64 `json:"ci_low"`
	CIHigh  float64 `json:"ci_high"`
	CILevel float64 `json:"ci_level"`
	// Tolerance is the practical margin, same scale as Worse.
	Tolerance float64 `json:"tolerance"`
	// PValue is the one-sided p-value in the direction of the estimate
	// (worse when Worse >= 0); PAdjusted is its Holm adjustment within the
	// gated family of that direction (equal to PValue for ungated cells).
	PValue    float64 `json:"p_value"`
	PAdjusted float64 `json:"p_adjusted"`
	// MDE is the smallest worsening this look would call a regression with
	// 80 % power, same scale as Worse.
	MDE float64 `json:"mde"`
	// PassTolerance is the smallest tolerance at which an unchanged build
	// would pass this cell in 90 % of runs at this look's trials and
	// noise; PassChance is the chance it passes at the configured
	// Tolerance. Same scale as Worse; PassChance a probability.
	PassTolerance float64 `json:"pass_tolerance"`
	PassChance    float64 `json:"pass_chance"`
	// Limit says, for an inconclusive gated cell, what would decide it:
	// LimitCandidate, LimitBaseline or LimitBetween (more trials cannot).
	Limit Limit `json:"limit,omitempty"`
	// Outliers are trials left out of this cell's test (see
	// docs/statistics.md, "Outlier trials"); their values stay in the
	// arms' Values.
	Outliers []Outlier `json:"outliers,omitempty"`
	// Noise says which noise estimate the test used.
	Noise   CellNoise `json:"noise"`
	Outcome Outcome   `json:"outcome"`
	// LowConfidence is set when an arm has fewer than Policy.MinTrials
	// valid trials: the test then uses the policy's assumed noise (or the
	// pooled or own spread when larger), not a measured one.
	LowConfidence bool     `json:"low_confidence"`
	Warnings      []string `json:"warnings,omitempty"`
	// Blocks are the per-block values and per-pair differences of a paired
	// A/B cell (Comparison.AB set); nil otherwise.
	Blocks *PairedCell `json:"blocks,omitempty"`
	// Plan is, for an undecided gated cell of a paired A/B comparison,
	// what its measured noise predicts: the power of the blocks run and
	// the blocks that would decide it (gate/ab, ab.PlanOf); nil otherwise.
	Plan *BlockPlan `json:"plan,omitempty"`
	// Decision is the interval the outcome was decided on (decision.go):
	// the family-wise one of the regression and improvement tests, or the
	// pass interval for a passing cell; nil for an ungated or untested
	// cell and in comparisons written before it was added.
	Decision *Decision `json:"decision,omitempty"`
}

// CellNoise is the noise estimate a cell's test used.
type CellNoise struct {
	// Source of the within-session noise: "moderated" (the cell's spread
	// shrunk toward the metric's empirical-Bayes prior), "own" (no prior
	// could be fitted: the cell's spread alone), or "assumed"
	// (Policy.AssumedCV or a calibrated within variance: too few trials),
	// or "pairs" (a paired A/B cell, gate/ab: Sigma is then the residual
	// standard deviation of one block pair's difference and WithinDF its
	// degrees of freedom).
	Source string `json:"source"`
	// Sigma is the per-trial within-session standard deviation on the test
	// scale (log values for relative metrics, raw for absolute ones).
	Sigma float64 `json:"sigma"`
	// DF is the degrees of freedom of the t test (Satterthwaite; 0 means
	// normal).
	DF float64 `json:"df"`
	// SE is the standard error of the estimate on the test scale.
	SE float64 `json:"se"`
	// WithinDF is Sigma's degrees of freedom, PriorDF the part of them
	// borrowed from the metric's prior (d0).
	WithinDF float64 `json:"within_df"`
	PriorDF  float64 `json:"prior_df"`
	// Between is the between-session standard deviation of a session's
	// level on the test scale, BetweenDF its degrees of freedom (0: taken
	// as exact), BetweenSource where it came from: "calibration",
	// "history" (Policy.Noise), "sessions" (the baseline's own sessions),
	// joined by "+" within a workload and by "," across the metric's
	// workloads, whose estimates are pooled; "assumed"
	// (Policy.AssumedBetween) or "default" (DefaultBetweenCV: not
	// calibrated).
	Between       float64 `json:"between"`
	BetweenDF     float64 `json:"between_df"`
	BetweenSource string  `json:"between_source"`
}

// Limit names what keeps an inconclusive cell undecided.
type Limit string

const (
	// LimitCandidate: more candidate trials can decide the cell.
	LimitCandidate Limit = "candidate-trials"
	// LimitBaseline: baseline trials are the larger part of its standard
	// error, or more candidate trials alone cannot decide it.
	LimitBaseline Limit = "baseline-trials"
	// LimitBetween: not even unlimited trials of these sessions can decide
	// it; the between-session noise alone keeps it undecided.
	LimitBetween Limit = "between-session"
)

// Noise is the empirical-Bayes prior of one metric's noise, fitted across
// its workloads.
type Noise struct {
	Metric string `json:"metric"`
	// Sigma is the prior within-session standard deviation (s0), DF its
	// prior degrees of freedom (d0): the weight each cell's posterior
	// gives it.
	Sigma float64 `json:"sigma"`
	DF    float64 `json:"df"`
	// Pooled counts the workloads the prior was fitted from. Excluded is
	// kept for v1 readers and stays empty.
	Pooled   int      `json:"pooled"`
	Excluded []string `json:"excluded,omitempty"`
	// Usable is false when no prior could be fitted (fewer than three
	// workloads, fewer than Policy.MinPooledDF degrees of freedom, or
	// variances too spread for a prior worth more than 2 df):
	// cells then use their own spread or the assumed noise.
	Usable bool `json:"usable"`
	// Between and BetweenDF are the between-session standard deviation
	// pooled over the workloads' estimates, with its degrees of freedom; 0
	// when no workload had one.
	Between   float64 `json:"between,omitempty"`
	BetweenDF float64 `json:"between_df,omitempty"`
}

// Ages are compared in days; kept here so the JSON stays in plain numbers.
const day = 24 * time.Hour
