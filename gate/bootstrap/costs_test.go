package bootstrap

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// spent is a result of n trials that ran for d.
func spent(d time.Duration, n int) *result.Result {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	return &result.Result{StartedAt: t0, FinishedAt: t0.Add(d), Trials: make([]result.Trial, n)}
}

// TestCostsOf: a trial of every cell is the sum over cells of each
// cell's mean time per trial; a start is what the wall time spent
// outside the cells, per start.
func TestCostsOf(t *testing.T) {
	two := []map[string]*result.Result{
		{"a": spent(30*time.Second, 3), "b": spent(20*time.Second, 2)}, // a: 10 s, b: 10 s per trial
		{"a": spent(60*time.Second, 3), "b": spent(20*time.Second, 2)}, // a: 20 s, b: 10 s
	}
	for _, tc := range []struct {
		name     string
		sessions []map[string]*result.Result
		wall     time.Duration
		starts   int
		want     Costs
	}{
		{"two sessions", two, 230 * time.Second, 2, Costs{Trial: 25 * time.Second, Startup: 50 * time.Second}},
		{"no starts counted", two, 230 * time.Second, 0, Costs{Trial: 25 * time.Second}},
		{"wall within the cells", two, 100 * time.Second, 2, Costs{Trial: 25 * time.Second}},
		{"no trials, no time", []map[string]*result.Result{{"a": spent(time.Minute, 0), "b": spent(-time.Second, 2)}}, time.Minute, 1, Costs{Startup: time.Minute}},
		{"nothing", nil, 0, 0, Costs{}},
	} {
		if got := CostsOf(tc.sessions, tc.wall, tc.starts); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
