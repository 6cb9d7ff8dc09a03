package verdict

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// Issue 20, item 13: 0.5 % HTTP 500s where the baseline had none pass
// success_rate's default tolerance of 0.5 points; the comparison must at
// least say so, as data on the workload.
func TestNewServerErrorsAreAlwaysShown(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 13))
	b, c := simArm(rng, "w", 10, 0.01, nil), simArm(rng, "w", 10, 0.01, nil)
	for i := range b.Trials {
		b.Trials[i].Completed = 200
		c.Trials[i].Completed, c.Trials[i].Failed = 199, 1
		c.Trials[i].Errors = map[string]int{"http_500": 1}
		c.Trials[i].Values["success_rate"] = 0.995
	}
	cmp, err := Compare([]*result.Result{b}, []*result.Result{c}, DefaultPolicy(), Look{})
	if err != nil {
		t.Fatal(err)
	}
	w := cmp.Workloads[0]
	note := ""
	for _, msg := range w.Warnings {
		if strings.HasPrefix(msg, "new server errors") {
			note = msg
		}
	}
	if !strings.Contains(note, "failed 10 of 2000 requests (0.50 %; http_500 ×10) where the baseline failed none of 2000") ||
		!strings.Contains(note, "probability 0.097 %") || !strings.Contains(note, "policy.tolerances.success_rate") {
		t.Errorf("workload warnings %q lack the new-errors note", w.Warnings)
	}
	// The baseline failed too: the rate is the tolerance's to judge.
	b.Trials[0].Failed = 1
	if cmp, _ := Compare([]*result.Result{b}, []*result.Result{c}, DefaultPolicy(), Look{}); hasPrefix(cmp.Workloads[0].Warnings, "new server errors") {
		t.Errorf("a baseline with failures still got the note: %q", cmp.Workloads[0].Warnings)
	}
}

func TestFisherAllIn(t *testing.T) {
	for _, tc := range []struct {
		m, n, k int
		want    float64
	}{
		{1, 2, 1, 0.5},
		{2, 4, 2, 1.0 / 6},           // C(2,2)/C(4,2)
		{1000, 2000, 10, 0.00095473}, // a little under 2^-10
		{5, 10, 6, 0},
	} {
		if got := fisherAllIn(tc.m, tc.n, tc.k); math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("fisherAllIn(%d, %d, %d) = %g, want %g", tc.m, tc.n, tc.k, got, tc.want)
		}
	}
}

func hasPrefix(msgs []string, prefix string) bool {
	for _, m := range msgs {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}
