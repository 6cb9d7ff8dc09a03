package config

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/metrics"
)

// Limits are the trial validity limits (metrics.Limits): a trial beyond
// one is kept but invalid, excluded from verdicts and baselines. They are
// settings, not only flags, so the Action and a shared runner's
// perfgate.yaml can set them: a runner whose client wakes late now and
// then (a busy CI host) raises max_dispatch_lag_ms rather than lose its
// trials to "client saturated".
type Limits struct {
	// MaxFailureShare is the largest share of failed requests (0.01 = 1 %).
	MaxFailureShare float64 `mapstructure:"max_failure_share"`
	// MaxDispatchLagMs is the largest p99 of the client's dispatch lag.
	MaxDispatchLagMs float64 `mapstructure:"max_dispatch_lag_ms"`
	// MaxTokensPerChunk is the largest mean of output tokens per token
	// message (0: not checked).
	MaxTokensPerChunk float64 `mapstructure:"max_tokens_per_chunk"`
}

// defaultLimits are metrics.DefaultLimits as settings.
func defaultLimits() Limits {
	d := metrics.DefaultLimits
	return Limits{MaxFailureShare: d.FailureShare, MaxDispatchLagMs: d.DispatchLagMs, MaxTokensPerChunk: d.MaxTokensPerChunk}
}

// Metrics are the limits as the load generator applies them.
func (l Limits) Metrics() metrics.Limits {
	return metrics.Limits{FailureShare: l.MaxFailureShare, DispatchLagMs: l.MaxDispatchLagMs, MaxTokensPerChunk: l.MaxTokensPerChunk}
}

func (l Limits) problems() []problem {
	var ps []problem
	for _, p := range l.Metrics().Problems() {
		ps = append(ps, problem{"limits.max_" + p.Name, fmt.Sprintf("%v: %s", p.Value, p.Msg)})
	}
	return ps
}
