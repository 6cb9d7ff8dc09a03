package config

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
)

// TestLoadLimits: the limits section defaults to metrics.DefaultLimits,
// a file or PERFGATE_LIMITS_* sets each limit, and an impossible one names
// file:line (or the variable), the key and the value.
func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(Options{})
	if err != nil || l.Config.Limits.Metrics() != metrics.DefaultLimits {
		t.Fatalf("default: %+v %v, want %+v", l.Config.Limits, err, metrics.DefaultLimits)
	}
	l, err = Load(Options{File: writeFile(t, dir, "perfgate.yaml", "limits:\n  max_dispatch_lag_ms: 250\n  max_tokens_per_chunk: 0\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := metrics.DefaultLimits
	want.DispatchLagMs, want.MaxTokensPerChunk = 250, 0
	if got := l.Config.Limits.Metrics(); got != want {
		t.Errorf("from the file: %+v, want %+v", got, want)
	}
	l, err = Load(Options{Environ: []string{"PERFGATE_LIMITS_MAX_FAILURE_SHARE=0.05"}})
	if err != nil || l.Config.Limits.MaxFailureShare != 0.05 {
		t.Errorf("from the environment: %+v %v", l.Config.Limits, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"limits:\n  max_failure_share: 2\n", "perfgate.yaml:2: limits.max_failure_share: 2: must be a share above 0 and at most 1"},
		{"limits:\n  max_dispatch_lag_ms: 0\n", "perfgate.yaml:2: limits.max_dispatch_lag_ms: 0: must be a positive number of milliseconds"},
		{"limits:\n  max_tokens_per_chunk: -1\n", "perfgate.yaml:2: limits.max_tokens_per_chunk: -1: must be 0 (not checked)"},
		{"limits:\n  max_lag: 5\n", "perfgate.yaml:2"},
	} {
		_, err := Load(Options{File: writeFile(t, dir, "perfgate.yaml", tc.file)})
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}
