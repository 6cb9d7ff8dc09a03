package verdict

import "github.com/perfgate/perfgate/gate/result"

// This file holds what the paired A/B verdict (package gate/ab) shares with
// this package: the vocabulary of a paired comparison, which rides on
// Comparison and Cell so that reports, exit codes and the JSON contract
// stay one, and thin exported doors to the distribution functions and
// rules of this package, so that both verdicts use the same numerics.

// Paired describes a paired A/B comparison: arm A on the baseline side,
// arm B on the candidate side, interleaved in blocks on one runner.
type Paired struct {
	// Order is the arms of all blocks in run order ("ABBABAAB"); Seed the
	// seed a random balanced order was drawn from (0: the fixed pattern).
	Order string `json:"order"`
	Seed  uint64 `json:"seed,omitempty"`
	// Blocks is the number of blocks of both arms, Pairs the adjacent
	// block pairs (Blocks/2) the differences are taken over.
	Blocks int `json:"blocks"`
	Pairs  int `json:"pairs"`
	// Resident is true when each arm was one long-running server session:
	// the between-session term then applies (CellNoise.Between).
	Resident bool `json:"resident"`
	// Estimator names how the pair differences are combined (see
	// docs/statistics.md, "Paired A/B verdict").
	Estimator string `json:"estimator"`
	// StartupS is the total server start-up time of all blocks, seconds:
	// the price of restarting per block.
	StartupS float64 `json:"startup_s,omitempty"`
	// BlockS is the mean wall-clock time of a block in seconds, start-up
	// included (from one block's start to the next's): what one more
	// block costs, and with restarted blocks the server-seconds it uses.
	// 0 when fewer than two blocks ran.
	BlockS float64 `json:"block_s,omitempty"`
	// Plan is the experiment's plan when a gated cell is undecided: the
	// least power and the most blocks of the undecided cells' plans
	// (Cell.Plan), so one line can say what deciding all of them needs.
	// Its Change is 0 (each cell's is twice its own tolerance).
	Plan *BlockPlan `json:"plan,omitempty"`
}

// BlockPlan is what a paired cell's measured noise predicts (package
// gate/ab, ab.PlanOf): the power of the blocks run and how many blocks
// would decide the cell. A change of exactly the tolerance is found at
// most half the time at any number of blocks (a regression must be
// estimated beyond the tolerance), so the plan is quoted for a worsening
// of twice the tolerance, and for an unchanged B passing.
type BlockPlan struct {
	// Blocks is the number of blocks (both arms) the prediction is for:
	// the blocks of the pairs kept.
	Blocks int `json:"blocks"`
	// Change is the worsening Power and BlocksForChange are quoted for,
	// on the scale of Cell.Worse (twice the tolerance).
	Change float64 `json:"change,omitempty"`
	// Power is the predicted chance that the blocks run call a true
	// worsening of Change a regression.
	Power float64 `json:"power"`
	// BlocksForChange is the smallest number of blocks (a multiple of
	// four) finding a worsening of Change with 80 % power; 0 when none up
	// to 400 does (resident servers: the between-session term may forbid
	// it at any number).
	BlocksForChange int `json:"blocks_for_change"`
	// BlocksToPass is the smallest number of blocks at which an unchanged
	// B passes at the tolerance in 90 % of runs; 0 when none up to 400
	// does.
	BlocksToPass int `json:"blocks_to_pass"`
}

// BlockValue is one block's value of one metric: the geometric mean of its
// valid trials (the arithmetic mean for absolute metrics).
type BlockValue struct {
	Block  int     `json:"block"` // 1-based position in the run order
	Arm    string  `json:"arm"`   // "a" or "b"
	Trials int     `json:"trials"`
	Value  float64 `json:"value"`
}

// PairedCell is what a paired A/B cell was computed from.
type PairedCell struct {
	// Values holds every block with a value, in run order.
	Values []BlockValue `json:"values"`
	// Pairs is each kept pair's B vs A change on the report's scale
	// (percent, or points for absolute metrics), natural sign; Lost the
	// 1-based pairs left out because a block had no valid trial or was
	// left out as an outlier (Cell.Outliers).
	Pairs []float64 `json:"pairs"`
	Lost  []int     `json:"lost,omitempty"`
	// Drift is the estimated drift term per pair on the report's scale:
	// how much a B block after an A block gains over the pair's true
	// difference from the runner's drift alone (0 when not estimated).
	Drift float64 `json:"drift"`
}

// TSurvival is P(T > t) for Student's t with df degrees of freedom.
func TSurvival(t, df float64) float64 { return tSurvival(t, df) }

// Holm returns Holm's step-down adjusted p-values of p.
func Holm(p []float64) []float64 { return holm(p) }

// ArmOf summarises one side of a cell from its raw values, as Compare does.
func ArmOf(values []float64, absolute bool) Arm { return summariseArm(values, absolute) }

// WithinFloor is the policy's floor on a per-trial variance on the test
// scale (MinCV for relative metrics, MinAbs for absolute ones).
func (p *Policy) WithinFloor(absolute bool) float64 { return withinFloor(p, absolute) }

// Between is the between-session variance (test scale) Compare would use
// for (cell, metric) of a one-session baseline: the calibrated or history
// prior of Policy.Noise when it has one (with its degrees of freedom and
// source), else Policy.AssumedBetween ("assumed") or DefaultBetweenCV
// ("default"), both taken as exact (df 0).
func (p *Policy) Between(cell, metric string) (v, df float64, source string) {
	if pr, ok := p.Noise.Lookup(cell, metric); ok && pr.BetweenDF > 0 && pr.BetweenVar >= 0 {
		return pr.BetweenVar, pr.betweenDF(), orDefault(pr.Source, "prior")
	}
	v, set := p.assumedBetween(metric)
	if set {
		return v, 0, "assumed"
	}
	return v, 0, "default"
}

// DropImpossible returns rs with every valid trial that carries an
// impossible zero (a TTFT or E2EL of 0) marked invalid, as Compare treats
// them; the results given are not modified.
func DropImpossible(rs []*result.Result) []*result.Result { return dropImpossible(rs) }
