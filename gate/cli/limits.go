package cli

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/perfgate/perfgate/gate/metrics"
)

// limitFlags registers the trial validity limits on a measuring command
// (run, gate, calibrate, ab), starting from metrics.DefaultLimits so a
// limit without a flag keeps its default instead of the zero value, which
// for MaxTokensPerChunk would switch its rule off.
func limitFlags(f *pflag.FlagSet, lim *metrics.Limits) {
	*lim = metrics.DefaultLimits
	f.Float64Var(&lim.FailureShare, "max-failure-share", lim.FailureShare, "a trial with a larger share of failed requests is invalid")
	f.Float64Var(&lim.DispatchLagMs, "max-dispatch-lag-ms", lim.DispatchLagMs, "a trial whose client dispatch lag p99 exceeds this is invalid (client saturated)")
	f.Float64Var(&lim.MaxTokensPerChunk, "max-tokens-per-chunk", lim.MaxTokensPerChunk, "a trial whose token messages carry more output tokens than this on average is invalid (0: not checked)")
}

// checkLimits names the flag of cmd whose limit is out of range.
func checkLimits(cmd string, lim metrics.Limits) error {
	switch {
	case !(lim.FailureShare > 0 && lim.FailureShare <= 1):
		return exitf(ExitInvalid, "%s: --max-failure-share %v: must be a share above 0 and at most 1 (0.01 = 1 %%)", cmd, lim.FailureShare)
	case !(lim.DispatchLagMs > 0) || math.IsInf(lim.DispatchLagMs, 0):
		return exitf(ExitInvalid, "%s: --max-dispatch-lag-ms %v: must be a positive number of milliseconds", cmd, lim.DispatchLagMs)
	case !(lim.MaxTokensPerChunk >= 0) || math.IsInf(lim.MaxTokensPerChunk, 0):
		return exitf(ExitInvalid, "%s: --max-tokens-per-chunk %v: must be 0 (not checked) or a positive number of tokens", cmd, lim.MaxTokensPerChunk)
	}
	return nil
}
