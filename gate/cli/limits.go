package cli

import (
	"strings"

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

// checkLimits names the flag of cmd whose limit is out of range: `perfgate
// run`, which has no configuration. The commands that read perfgate.yaml
// take their limits from it (limits.*, which the flags override through
// limitKeys) and Load checks them.
func checkLimits(cmd string, lim metrics.Limits) error {
	for _, p := range lim.Problems() {
		return exitf(ExitInvalid, "%s: --max-%s %v: %s", cmd, strings.ReplaceAll(p.Name, "_", "-"), p.Value, p.Msg)
	}
	return nil
}

// limitKeys binds the limit flags to perfgate.yaml's limits section; each
// configured command adds them to its flag keys.
var limitKeys = map[string]string{
	"max-failure-share":    "limits.max_failure_share",
	"max-dispatch-lag-ms":  "limits.max_dispatch_lag_ms",
	"max-tokens-per-chunk": "limits.max_tokens_per_chunk",
}
