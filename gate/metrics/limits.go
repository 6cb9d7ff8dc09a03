package metrics

import "math"

// LimitProblem is one validity limit out of range: Name is the limit's
// name as the flag --max-NAME and the setting limits.max_NAME spell it
// with dashes or underscores ("failure_share", "dispatch_lag_ms",
// "tokens_per_chunk"), Value the value refused, Msg what is wrong.
type LimitProblem struct {
	Name  string
	Value float64
	Msg   string
}

// Problems are the limits of l out of range, so the flags of `perfgate
// run` and perfgate.yaml's limits section refuse the same values with the
// same words.
func (l Limits) Problems() []LimitProblem {
	var ps []LimitProblem
	if !(l.FailureShare > 0 && l.FailureShare <= 1) {
		ps = append(ps, LimitProblem{"failure_share", l.FailureShare, "must be a share above 0 and at most 1 (0.01 = 1 %)"})
	}
	if !(l.DispatchLagMs > 0) || math.IsInf(l.DispatchLagMs, 0) {
		ps = append(ps, LimitProblem{"dispatch_lag_ms", l.DispatchLagMs, "must be a positive number of milliseconds"})
	}
	if !(l.MaxTokensPerChunk >= 0) || math.IsInf(l.MaxTokensPerChunk, 0) {
		ps = append(ps, LimitProblem{"tokens_per_chunk", l.MaxTokensPerChunk, "must be 0 (not checked) or a positive number of tokens"})
	}
	return ps
}
